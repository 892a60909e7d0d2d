/** KServe V1 protocol routes. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { v1DialectFor } from '../../protocols/v1/dialects.js';
import { modelStatusDocument } from '../../protocols/v1/model-status.js';
import { errors } from '../../protocols/errors.js';
import { type Verb, explain as explainVerb, infer as inferVerb } from '../pipeline/verbs.js';
import type { Codec, Decoded } from '../pipeline/codec.js';
import { bodyBytes } from './body-parsers.js';
import { clientGone } from './client-gone.js';
import type { HttpContext } from './context.js';
import { type RestMessage, v1ExplainCodec, v1PredictCodec } from './infer-codecs.js';
import { requestHeaders } from './model-headers.js';
import { sendAnswer } from './send-answer.js';
import { docs, modelParams, selectorParams } from './schemas.js';
import { tagInference } from './request-metrics.js';

type NameParams = { Params: { name: string } };
type TargetParams = { Params: { target: string } };
type VersionTargetParams = { Params: { name: string; target: string } };

/**
 * TF Serving's versioned predict routes, `/v1/models/{m}/versions/{v}:verb` and
 * `/v1/models/{m}/labels/{l}:verb`, each with the check that keeps its kind apart: a version
 * is a number and a label never is (the repository resolves both, version-config.ts).
 */
const VERSION_SELECTORS: ReadonlyArray<{ segment: string; what: string; refuse: (selector: string) => string | undefined }> = [
  { segment: 'versions', what: 'version', refuse: (v) => (/^\d+$/.test(v) ? undefined : `Version '${v}' is not a number; a version label goes in /labels/${v}`) },
  { segment: 'labels', what: 'label', refuse: (l) => (/^\d+$/.test(l) ? `Label '${l}' is a number; a version number goes in /versions/${l}` : undefined) },
];

/** Splits the `name:verb` path segment of V1 predict and explain routes. */
function splitTarget(target: string): { name: string; verb: string } {
  const colon = target.lastIndexOf(':');
  return { name: target.slice(0, colon), verb: colon < 0 ? '' : target.slice(colon + 1) };
}

export function v1Routes(ctx: HttpContext) {
  const { dataplane } = ctx;
  const predictCodec = v1PredictCodec(ctx.limits?.decode);
  const explainCodec = v1ExplainCodec(ctx.limits?.decode);

  async function run<D extends Decoded, R>(req: FastifyRequest, reply: FastifyReply, name: string, verb: Verb<R>, codec: Codec<Buffer, D, R, RestMessage>, version?: string) {
    const answer = await dataplane.run({
      name,
      version,
      transport: 'rest',
      verb,
      codec,
      input: bodyBytes(req.body),
      headers: requestHeaders(req.headers),
      signal: clientGone(reply),
    });
    return sendAnswer(req, reply, name, answer);
  }

  return async (app: FastifyInstance): Promise<void> => {
    app.get('/v1/models', { schema: { summary: 'List models' }, config: { docs: docs.ok(docs.ref('ModelList')) } }, async () => ({ models: dataplane.listModels() }));

    const byName = { schema: { summary: 'Model readiness (V1)', params: modelParams }, config: { docs: docs.okOrModelError(docs.ref('ModelReady')) } };
    app.get<NameParams>('/v1/models/:name', byName, async (req) => {
      const { name } = req.params;
      dataplane.assertModelReady(name);
      return { name, ready: true };
    });

    // TF Serving's signature metadata, for the dialects that have it (404 for the others).
    const metadataRoute = {
      schema: { summary: "TF Serving's signature metadata (TensorFlow models)", params: modelParams },
      config: { docs: docs.okOrModelError({ type: 'object' }) },
    };
    app.get<NameParams>('/v1/models/:name/metadata', metadataRoute, async (req) => {
      const model = dataplane.modelView(req.params.name);
      const dialect = v1DialectFor(model.platform);
      if (dialect.metadata === undefined) throw errors.routeNotFound(req.method, req.url);
      return dialect.metadata(model);
    });

    // One route for `name:verb`: the router cannot tell `:name:predict` from `:name:explain`.
    // A hot path like V2 infer: documented (as its two operations), no validation pass.
    const onRequest = tagInference('v1', (req) => {
      const { name, verb } = splitTarget((req.params as TargetParams['Params']).target);
      return verb === 'predict' || verb === 'explain' ? name : undefined;
    });
    const nameParameter = { name: 'name', in: 'path', required: true, schema: { type: 'string' } };
    const targetDocs = {
      responses: {},
      as: {
        '/v1/models/{name}:predict': { summary: 'Predict (V1)', parameters: [nameParameter], docs: docs.predictV1 },
        '/v1/models/{name}:explain': { summary: 'Explain (V1)', parameters: [nameParameter], docs: docs.explainV1 },
      },
    };
    app.post<TargetParams>('/v1/models/:target', { onRequest, config: { docs: targetDocs } }, async (req, reply) => {
      const { name, verb } = splitTarget(req.params.target);
      if (verb === 'predict') return run(req, reply, name, inferVerb, predictCodec);
      if (verb === 'explain') return run(req, reply, name, explainVerb, explainCodec);
      throw errors.routeNotFound(req.method, req.url);
    });

    const onVersionRequest = tagInference('v1', (req) => {
      const { name, target } = req.params as VersionTargetParams['Params'];
      const { verb } = splitTarget(target);
      return verb === 'predict' || verb === 'explain' ? name : undefined;
    });
    for (const { segment, what, refuse } of VERSION_SELECTORS) {
      const selectorParameter = { name: what, in: 'path', required: true, schema: { type: 'string' } };
      const parameters = [nameParameter, selectorParameter];
      const versionDocs = {
        responses: {},
        as: {
          [`/v1/models/{name}/${segment}/{${what}}:predict`]: { summary: `Predict on a model ${what} (V1, TF Serving)`, parameters, docs: docs.predictV1 },
          [`/v1/models/{name}/${segment}/{${what}}:explain`]: { summary: `Explain on a model ${what} (V1)`, parameters, docs: docs.explainV1 },
        },
      };
      app.post<VersionTargetParams>(`/v1/models/:name/${segment}/:target`, { onRequest: onVersionRequest, config: { docs: versionDocs } }, async (req, reply) => {
        const { verb, name: selector } = splitTarget(req.params.target);
        if (verb !== 'predict' && verb !== 'explain') throw errors.routeNotFound(req.method, req.url);
        const refused = refuse(selector);
        if (refused !== undefined) throw errors.invalidInput(refused);
        const { name } = req.params;
        return verb === 'predict' ? run(req, reply, name, inferVerb, predictCodec, selector) : run(req, reply, name, explainVerb, explainCodec, selector);
      });

      /** The selector of a GET route, checked as the predict routes check it; `name:verb` is no GET route. */
      const selectorOf = (req: FastifyRequest<VersionTargetParams>): string => {
        const { target } = req.params;
        if (target.includes(':')) throw errors.routeNotFound(req.method, req.url);
        const refused = refuse(target);
        if (refused !== undefined) throw errors.invalidInput(refused);
        return target;
      };
      // TF Serving's model status API; `GET /v1/models/{m}` stays KServe's readiness answer.
      const statusRoute = {
        schema: { summary: `Model status of a ${what} (TF Serving)`, params: selectorParams },
        config: { docs: docs.okOrModelError(docs.ref('ModelVersionStatus')) },
      };
      app.get<VersionTargetParams>(`/v1/models/:name/${segment}/:target`, statusRoute, async (req) => {
        const status = dataplane.versionStatus(req.params.name, selectorOf(req));
        return modelStatusDocument(status.version, status.state, status.reason);
      });
      const versionMetadataRoute = {
        schema: { summary: `TF Serving's signature metadata of a ${what}`, params: selectorParams },
        config: { docs: docs.okOrModelError({ type: 'object' }) },
      };
      app.get<VersionTargetParams>(`/v1/models/:name/${segment}/:target/metadata`, versionMetadataRoute, async (req) => {
        const model = dataplane.modelView(req.params.name, selectorOf(req));
        const dialect = v1DialectFor(model.platform);
        if (dialect.metadata === undefined) throw errors.routeNotFound(req.method, req.url);
        return dialect.metadata(model);
      });
    }
  };
}
