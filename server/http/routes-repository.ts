/** Model repository extension: KServe's load/unload plus Triton's index. */
import type { FastifyInstance } from 'fastify';
import type { HttpContext } from './context.js';

type NameParams = { Params: { name: string } };

export function repositoryRoutes(ctx: HttpContext) {
  const { dataplane } = ctx;
  return async (app: FastifyInstance): Promise<void> => {
    app.post<NameParams>('/v2/repository/models/:name/load', async (req) => {
      await dataplane.load(req.params.name);
      return { name: req.params.name, load: true };
    });
    app.post<NameParams>('/v2/repository/models/:name/unload', async (req) => {
      await dataplane.unload(req.params.name);
      return { name: req.params.name, unload: true };
    });
    app.post('/v2/repository/index', async () =>
      dataplane.modelStates().map(({ name, state, reason, versions }) => ({
        name,
        ...(versions.length > 0 ? { version: versions[versions.length - 1] } : {}),
        // Triton's states: a model that failed its load is UNAVAILABLE, with the reason.
        state: state === 'FAILED' ? 'UNAVAILABLE' : state,
        ...(reason !== undefined ? { reason } : {}),
      })),
    );
  };
}
