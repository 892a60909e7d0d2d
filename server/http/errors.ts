/**
 * Maps anything thrown in a route to the catalogue's HTTP status and the body of the API the
 * path belongs to (error-body.ts: KServe's `{"error": msg}`, or OpenAI's shape under its
 * prefix). Stacks go to the log, never to the client.
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import { KServeError, errors, toKServeError } from '../../protocols/errors.js';
import type { ErrorBody } from './error-body.js';

function fromFastify(err: FastifyError, bodyLimit: number): KServeError | undefined {
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return errors.payloadTooLarge(bodyLimit);
  if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
    return errors.invalidInput(err.message);
  }
  return undefined;
}

/** A request URL without its query string, which may carry a token: what logs and errors show. */
export function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

export function registerErrorHandlers(app: FastifyInstance, bodyLimit: number, bodyFor: (path: string) => ErrorBody): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const kerr = err instanceof KServeError ? err : (fromFastify(err, bodyLimit) ?? toKServeError(err));
    if (kerr.kind === 'Internal' || kerr.kind === 'InferenceError') {
      // The path only: a query string may carry a token, and logs travel further than requests.
      request.log.error({ err, reqId: request.id, url: pathOf(request.url) }, 'request failed');
    }
    // Load shedding: the client may retry, after a moment.
    if (kerr.kind === 'ModelOverloaded' || kerr.kind === 'ServerBusy') void reply.header('retry-after', '1');
    void reply
      .code(kerr.httpStatus)
      .type('application/json')
      .send(bodyFor(pathOf(request.url))(kerr));
  });
  app.setNotFoundHandler((request, reply) => {
    const path = pathOf(request.url);
    const kerr = errors.routeNotFound(request.method, path);
    void reply.code(kerr.httpStatus).type('application/json').send(bodyFor(path)(kerr));
  });
}
