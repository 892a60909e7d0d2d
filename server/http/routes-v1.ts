/** KServe V1 protocol routes. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { v1DialectFor } from '../../protocols/v1/dialects.js';
import { parseJson } from '../../protocols/v2/rest-request.js';
import { errors } from '../../protocols/errors.js';
import { bodyBytes } from './body-parsers.js';
import { clientGone } from './client-gone.js';
import { replyInKind } from './cloud-events.js';
import type { InferenceScope } from '../inference-scope.js';
import type { HttpContext } from './context.js';
import { requestHeaders, sendModelHeaders } from './model-headers.js';
import { docs, modelParams } from './schemas.js';
import { tagInference } from './request-metrics.js';

type NameParams = { Params: { name: string } };
type TargetParams = { Params: { target: string } };

/** Splits the `name:verb` path segment of V1 predict and explain routes. */
function splitTarget(target: string): { name: string; verb: string } {
  const colon = target.lastIndexOf(':');
  return { name: target.slice(0, colon), verb: colon < 0 ? '' : target.slice(colon + 1) };
}

export function v1Routes(ctx: HttpContext) {
  const { dataplane } = ctx;
  /** The request body in the model's V1 dialect, with the configured decode limits. */
  function decodeBody(req: FastifyRequest, scope: InferenceScope) {
    const dialect = v1DialectFor(scope.model.platform);
    return { dialect, decoded: scope.decode((model) => dialect.decode(parseJson(bodyBytes(req.body).toString('utf8')), model, ctx.limits?.decode)) };
  }

  async function predict(req: FastifyRequest, reply: FastifyReply, name: string) {
    const scope = dataplane.open(name, undefined);
    try {
      const { dialect, decoded } = decodeBody(req, scope);
      const headers = requestHeaders(req.headers);
      scope.logRequest(decoded.request, bodyBytes(req.body), 'application/json', headers);
      const response = await scope.infer(decoded.request, headers, clientGone(reply));
      const body = scope.encode(() => dialect.encode(response, decoded));
      scope.logResponse(body, 'application/json');
      sendModelHeaders(reply, scope.responseHeaders);
      return reply.send(replyInKind(req, reply, name, body, 'application/json'));
    } finally {
      scope.release();
    }
  }

  /** Models that explain (SDK models) get the decoded request; the others answer 501 as before. */
  async function explain(req: FastifyRequest, reply: FastifyReply, name: string) {
    const scope = dataplane.open(name, undefined);
    try {
      if (!scope.explains) return dataplane.explain(name);
      const { decoded } = decodeBody(req, scope);
      const result = await scope.explain(decoded.request, requestHeaders(req.headers));
      sendModelHeaders(reply, scope.responseHeaders);
      return reply.type('application/json').send(JSON.stringify(result));
    } finally {
      scope.release();
    }
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
    const metadataRoute = { schema: { summary: "TF Serving's signature metadata (TensorFlow models)", params: modelParams }, config: { docs: docs.okOrModelError({ type: 'object' }) } };
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
      if (verb === 'predict') return predict(req, reply, name);
      if (verb === 'explain') return explain(req, reply, name);
      throw errors.routeNotFound(req.method, req.url);
    });
  };
}
