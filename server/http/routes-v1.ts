/** KServe V1 protocol routes. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { decodeV1Request, encodeV1Response } from '../../protocols/v1/codec.js';
import { parseJson } from '../../protocols/v2/rest-request.js';
import { errors } from '../../protocols/errors.js';
import { since } from '../metrics.js';
import { bodyBytes } from './body-parsers.js';
import type { HttpContext } from './context.js';
import { tagInference } from './request-metrics.js';

type NameParams = { Params: { name: string } };

export function v1Routes(ctx: HttpContext) {
  const { dataplane, metrics } = ctx;
  async function predict(req: FastifyRequest, reply: FastifyReply, name: string) {
    tagInference(req, name, 'v1');
    const start = performance.now();
    const inputs = dataplane.modelInputs(name);
    const request = decodeV1Request(parseJson(bodyBytes(req.body).toString('utf8')), inputs);
    metrics.observe('preprocess', name, since(start));
    const response = await dataplane.infer(name, undefined, request);
    const encodeStart = performance.now();
    const body = encodeV1Response(response);
    metrics.observe('postprocess', name, since(encodeStart));
    return reply.type('application/json').send(body);
  }

  return async (app: FastifyInstance): Promise<void> => {
    app.get('/v1/models', async () => ({ models: dataplane.listModels() }));

    app.get<NameParams>('/v1/models/:name', async (req) => {
      const { name } = req.params;
      if (!dataplane.modelReady(name)) throw errors.modelNotReady(name);
      return { name, ready: true };
    });

    // One route for `name:verb`: the router cannot tell `:name:predict` from `:name:explain`.
    app.post<{ Params: { target: string } }>('/v1/models/:target', async (req, reply) => {
      const { target } = req.params;
      const colon = target.lastIndexOf(':');
      const verb = colon < 0 ? '' : target.slice(colon + 1);
      const name = target.slice(0, colon);
      if (verb === 'predict') return predict(req, reply, name);
      if (verb === 'explain') {
        tagInference(req, name, 'v1');
        return dataplane.explain(name);
      }
      throw errors.routeNotFound(req.method, req.url);
    });
  };
}
