/** Liveness root, Prometheus metrics, and the OpenAPI document / Swagger UI. */
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { HttpContext } from './context.js';
import { openApiDocument } from './openapi.js';

export function opsRoutes(ctx: HttpContext) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get('/', async () => ({ status: 'alive' }));
    app.get('/metrics', async (_req, reply) =>
      reply.type(ctx.metrics.contentType()).send(await ctx.metrics.render()),
    );
    const document = openApiDocument(ctx.dataplane.serverMetadata().version);
    if (ctx.enableDocsUrl) {
      await app.register(swagger, { mode: 'static', specification: { document: document as never } });
      await app.register(swaggerUi, { routePrefix: '/docs' });
    }
    app.get('/openapi.json', async () => document);
  };
}
