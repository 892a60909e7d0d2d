/** Triton's statistics extension: per loaded version counts and cumulative durations, as Triton's JSON. */
import type { FastifyInstance } from 'fastify';
import type { HttpContext } from './context.js';
import { docs, modelParams, versionParams } from './schemas.js';

type ModelParams = { Params: { name?: string; version?: string } };

export function statsRoutes(ctx: HttpContext) {
  const { dataplane } = ctx;
  const statsDocs = docs.okOrModelError(docs.ref('ModelStatistics'));
  const stats = async (req: { params: ModelParams['Params'] }) => ({ model_stats: dataplane.modelStatistics(req.params.name, req.params.version) });
  return async (app: FastifyInstance): Promise<void> => {
    app.get<ModelParams>('/v2/models/stats', { schema: { summary: 'Statistics of every loaded model (Triton)' }, config: { docs: docs.ok(docs.ref('ModelStatistics')) } }, stats);
    app.get<ModelParams>('/v2/models/:name/stats', { schema: { summary: 'Statistics of a model, per version (Triton)', params: modelParams }, config: { docs: statsDocs } }, stats);
    app.get<ModelParams>(
      '/v2/models/:name/versions/:version/stats',
      { schema: { summary: 'Statistics of a model version (Triton)', params: versionParams }, config: { docs: statsDocs } },
      stats,
    );
  };
}
