/**
 * Answers 405 with an `Allow` header (and the catalogue's error body) when a path exists but
 * not for the request's method, as HTTP (and the anchor) do, instead of a 404.
 */
import type { FastifyInstance } from 'fastify';
import { errors } from '../../protocols/errors.js';

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;

/** Same route shape whatever the parameter names (`/v1/models/:name` = `/v1/models/:target`). */
function shapeOf(url: string): string {
  return url.replace(/:[^/]+/g, ':');
}

export interface MethodRoutes {
  /** Registers the 405 handlers; call after every route plugin has been registered. */
  register(app: FastifyInstance): void;
}

export function collectRoutes(app: FastifyInstance): MethodRoutes {
  const byShape = new Map<string, { url: string; methods: Set<string> }>();
  app.addHook('onRoute', (route) => {
    const shape = shapeOf(route.url);
    const entry = byShape.get(shape) ?? { url: route.url, methods: new Set<string>() };
    for (const m of Array.isArray(route.method) ? route.method : [route.method]) entry.methods.add(m);
    byShape.set(shape, entry);
  });
  return {
    register(target) {
      // Snapshot first: registering the 405 routes fires onRoute again.
      for (const { url, methods } of [...byShape.values()]) {
        const missing = METHODS.filter((m) => !methods.has(m));
        if (missing.length === 0) continue;
        const allow = METHODS.filter((m) => methods.has(m)).join(', ');
        target.route({
          method: missing,
          url,
          // Not an operation of the API: kept out of the OpenAPI document.
          schema: { hide: true },
          // Thrown, not sent: the error handler writes the body of the API the path belongs to.
          handler: async (request, reply) => {
            void reply.header('allow', allow);
            throw errors.methodNotAllowed(request.method, request.url, allow);
          },
        });
      }
    },
  };
}
