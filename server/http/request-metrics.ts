/**
 * Counts inference requests by model, protocol and final status code. Inference routes tag
 * the request in an onRequest hook, before the body is read, so that requests the body
 * parser rejects (413) are counted too; the onResponse hook counts it once the status is
 * known, errors included.
 */
import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { Metrics, Protocol } from '../metrics.js';

interface InferenceTag {
  model: string;
  protocol: Protocol;
}

const tags = new WeakMap<FastifyRequest, InferenceTag>();

/** Route-level onRequest hook marking the request as an inference for the model `modelOf` names. */
export function tagInference(protocol: Protocol, modelOf: (request: FastifyRequest) => string | undefined): onRequestHookHandler {
  return (request, _reply, done) => {
    const model = modelOf(request);
    if (model !== undefined) tags.set(request, { model, protocol });
    done();
  };
}

/**
 * Tags a request whose model only its body names (the OpenAI routes), once the handler has
 * read it: a body the parser rejects is not counted there, having no model to count under.
 */
export function tagParsedInference(request: FastifyRequest, protocol: Protocol, model: string): void {
  tags.set(request, { model, protocol });
}

/**
 * Requests for models the server does not know are not counted: model names come from
 * clients, and each new label value would be a new series kept for the process lifetime.
 */
export function registerRequestMetrics(app: FastifyInstance, metrics: Metrics, isKnownModel: (name: string) => boolean): void {
  app.addHook('onResponse', (request, reply, done) => {
    const tag = tags.get(request);
    if (tag !== undefined && isKnownModel(tag.model)) metrics.countRequest(tag.model, tag.protocol, reply.statusCode);
    done();
  });
}
