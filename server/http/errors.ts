/**
 * Maps anything thrown in a route to the catalogue's HTTP status and an `{"error": msg}`
 * body. Stacks go to the log, never to the client.
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import { KServeError, errors, toKServeError } from '../../protocols/errors.js';

function fromFastify(err: FastifyError, bodyLimit: number): KServeError | undefined {
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return errors.payloadTooLarge(bodyLimit);
  if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
    return errors.invalidInput(err.message);
  }
  return undefined;
}

export function registerErrorHandlers(app: FastifyInstance, bodyLimit: number): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const kerr = err instanceof KServeError ? err : (fromFastify(err, bodyLimit) ?? toKServeError(err));
    if (kerr.kind === 'Internal' || kerr.kind === 'InferenceError') {
      request.log.error({ err, reqId: request.id, url: request.url }, 'request failed');
    }
    void reply.code(kerr.httpStatus).type('application/json').send(JSON.stringify({ error: kerr.message }));
  });
  app.setNotFoundHandler((request, reply) => {
    const kerr = errors.routeNotFound(request.method, request.url);
    void reply.code(kerr.httpStatus).type('application/json').send(JSON.stringify({ error: kerr.message }));
  });
}
