/** Liveness root and Prometheus metrics (the OpenAPI document is openapi.ts's). */
import type { FastifyInstance } from 'fastify';
import type { HttpContext } from './context.js';
import { docs } from './schemas.js';

export function opsRoutes(ctx: HttpContext) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get('/', { schema: { summary: 'Liveness (V1)' }, config: { docs: docs.ok({ type: 'object', properties: { status: { type: 'string' } } }) } }, async () => ({
      status: 'alive',
    }));
    app.get('/metrics', { schema: { summary: 'Prometheus metrics' }, config: { docs: docs.text('text exposition format') } }, async (_req, reply) =>
      reply.type(ctx.metrics.contentType()).send(await ctx.metrics.render()),
    );
  };
}
