/** Triton's model configuration extension: the configuration a model (version) runs with, as Triton's JSON. */
import type { FastifyInstance } from 'fastify';
import type { HttpContext } from './context.js';
import { docs, modelParams, versionParams } from './schemas.js';

type ModelParams = { Params: { name: string; version?: string } };

export function configRoutes(ctx: HttpContext) {
  const { dataplane } = ctx;
  const configDocs = docs.okOrModelError(docs.ref('ModelConfig'));
  return async (app: FastifyInstance): Promise<void> => {
    app.get<ModelParams>('/v2/models/:name/config', { schema: { summary: 'Model configuration (Triton)', params: modelParams }, config: { docs: configDocs } }, async (req) =>
      dataplane.modelConfig(req.params.name),
    );
    app.get<ModelParams>(
      '/v2/models/:name/versions/:version/config',
      { schema: { summary: 'Model version configuration (Triton)', params: versionParams }, config: { docs: configDocs } },
      async (req) => dataplane.modelConfig(req.params.name, req.params.version),
    );
  };
}
