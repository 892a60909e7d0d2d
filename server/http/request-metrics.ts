/**
 * Counts inference requests by model, protocol and final status code. Routes tag the
 * request with `tagInference`; the onResponse hook counts it once the status is known,
 * errors included.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Metrics, Protocol } from '../metrics.js';

interface InferenceTag {
  model: string;
  protocol: Protocol;
}

const tags = new WeakMap<FastifyRequest, InferenceTag>();

export function tagInference(request: FastifyRequest, model: string, protocol: Protocol): void {
  tags.set(request, { model, protocol });
}

export function registerRequestMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', async (request, reply) => {
    const tag = tags.get(request);
    if (tag !== undefined) metrics.countRequest(tag.model, tag.protocol, reply.statusCode);
  });
}
