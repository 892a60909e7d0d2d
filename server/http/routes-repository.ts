/** Model repository extension: KServe's load/unload plus Triton's index and load config override. */
import type { FastifyInstance } from 'fastify';
import { decodeRestLoadRequest } from '../../protocols/v2/repository-load.js';
import { bodyBytes } from './body-parsers.js';
import type { HttpContext } from './context.js';
import { docs, modelParams } from './schemas.js';

type NameParams = { Params: { name: string } };

export function repositoryRoutes(ctx: HttpContext) {
  const { dataplane } = ctx;
  const result = (verb: string) => ({ type: 'object', properties: { name: { type: 'string' }, [verb]: { type: 'boolean' } } });
  const loadBody = {
    type: 'object',
    properties: {
      parameters: {
        type: 'object',
        properties: {
          config: { type: 'string', description: "A model configuration as Triton's JSON (as GET /v2/models/{name}/config answers); it replaces config.pbtxt for this load" },
        },
      },
    },
  };
  const loadDocs = docs.okOrModelError(result('load'));
  const load = {
    schema: { summary: 'Load or reload a model, optionally with a config override (Triton)', params: modelParams },
    config: {
      docs: {
        requestBody: { required: false, content: { 'application/json': { schema: loadBody } } },
        responses: { ...loadDocs.responses, 400: docs.err('Invalid config override or load parameters; the model keeps serving as it was') },
      },
    },
  };
  const unload = {
    schema: { summary: 'Unload a model', params: modelParams },
    config: { docs: { responses: { ...docs.ok(result('unload')).responses, 404: docs.err('Unknown model') } } },
  };
  const index = { schema: { summary: 'Repository index (Triton)' }, config: { docs: docs.ok({ type: 'array', items: docs.ref('RepositoryEntry') }) } };
  return async (app: FastifyInstance): Promise<void> => {
    app.post<NameParams>('/v2/repository/models/:name/load', load, async (req) => {
      await dataplane.load(req.params.name, decodeRestLoadRequest(bodyBytes(req.body)));
      return { name: req.params.name, load: true };
    });
    app.post<NameParams>('/v2/repository/models/:name/unload', unload, async (req) => {
      await dataplane.unload(req.params.name);
      return { name: req.params.name, unload: true };
    });
    app.post('/v2/repository/index', index, async () =>
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
