/** V2 / Open Inference Protocol REST routes, with real model versions. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../../protocols/errors.js';
import type { ModelMetadata } from '../../protocols/tensor.js';
import { HEADER_LENGTH_HEADER } from '../../protocols/v2/rest-request.js';
import { infer as inferVerb } from '../pipeline/verbs.js';
import { bodyBytes } from './body-parsers.js';
import { clientGone } from './client-gone.js';
import type { HttpContext } from './context.js';
import { v2InferCodec } from './infer-codecs.js';
import { requestHeaders } from './model-headers.js';
import { sendAnswer } from './send-answer.js';
import { docs, modelParams, versionParams } from './schemas.js';
import { tagInference } from './request-metrics.js';

type ModelParams = { Params: { name: string; version?: string } };

function metadataJson(m: ModelMetadata): unknown {
  return {
    name: m.name,
    versions: m.versions.length > 0 ? m.versions : null,
    platform: m.platform,
    inputs: m.inputs,
    outputs: m.outputs,
  };
}

export function v2Routes(ctx: HttpContext) {
  const { dataplane } = ctx;

  const codec = v2InferCodec(ctx.limits?.decode);

  async function infer(req: FastifyRequest<ModelParams>, reply: FastifyReply) {
    const { name, version } = req.params;
    const answer = await dataplane.run({
      name,
      version,
      transport: 'rest',
      verb: inferVerb,
      codec,
      input: { body: bodyBytes(req.body), headerLength: req.headers[HEADER_LENGTH_HEADER] },
      headers: requestHeaders(req.headers),
      signal: clientGone(reply),
    });
    return sendAnswer(req, reply, name, answer);
  }

  function ready(req: FastifyRequest<ModelParams>) {
    const { name, version } = req.params;
    dataplane.assertModelReady(name, version);
    return { name, ready: true };
  }

  function metadata(req: FastifyRequest<ModelParams>) {
    return metadataJson(dataplane.modelMetadata(req.params.name, req.params.version));
  }

  const { ok, okOrModelError, ref, err } = docs;
  const metadataDocs = okOrModelError(ref('ModelMetadata'));
  const readyDocs = okOrModelError(ref('ModelReady'));
  return async (app: FastifyInstance): Promise<void> => {
    app.get('/v2', { schema: { summary: 'Server metadata' }, config: { docs: ok(ref('ServerMetadata')) } }, async () => dataplane.serverMetadata());
    app.get('/v2/health/live', { schema: { summary: 'Server liveness' }, config: { docs: ok({ type: 'object', properties: { live: { type: 'boolean' } } }) } }, async () => ({
      live: dataplane.live(),
    }));
    const readyServer = { responses: { 200: ok({ type: 'object', properties: { ready: { type: 'boolean' } } }).responses[200] as object, 503: err('Not ready') } };
    app.get('/v2/health/ready', { schema: { summary: 'Server readiness: every model the server started with is ready' }, config: { docs: readyServer } }, async () => {
      if (!dataplane.ready()) throw errors.serverNotReady();
      return { ready: true };
    });
    app.get('/v2/models', { schema: { summary: 'List models' }, config: { docs: ok(ref('ModelList')) } }, async () => ({ models: dataplane.listModels() }));
    app.get<ModelParams>('/v2/models/:name', { schema: { summary: 'Model metadata', params: modelParams }, config: { docs: metadataDocs } }, async (req) => metadata(req));
    app.get<ModelParams>(
      '/v2/models/:name/versions/:version',
      { schema: { summary: 'Model version metadata', params: versionParams }, config: { docs: metadataDocs } },
      async (req) => metadata(req),
    );
    app.get<ModelParams>('/v2/models/:name/ready', { schema: { summary: 'Model readiness', params: modelParams }, config: { docs: readyDocs } }, async (req) => ready(req));
    app.get<ModelParams>(
      '/v2/models/:name/versions/:version/ready',
      { schema: { summary: 'Model version readiness', params: versionParams }, config: { docs: readyDocs } },
      async (req) => ready(req),
    );
    const onRequest = tagInference('v2', (req) => (req.params as ModelParams['Params']).name);
    // No validation pass on the hot path: parameters documented only (schemas.ts, docs.inferV2).
    app.post<ModelParams>('/v2/models/:name/infer', { onRequest, schema: { summary: 'Inference' }, config: { docs: docs.inferV2(modelParams) } }, infer);
    app.post<ModelParams>(
      '/v2/models/:name/versions/:version/infer',
      { onRequest, schema: { summary: 'Inference on a model version' }, config: { docs: docs.inferV2(versionParams) } },
      infer,
    );
  };
}
