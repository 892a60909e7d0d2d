/**
 * Anything thrown in a gRPC handler becomes the catalogue's status code and message
 * (KServeError.grpcCode); stacks go to the log, never to the client.
 */
import type { StatusObject } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { type KServeError, toKServeError } from '../../protocols/errors.js';

export type GrpcFailure = Pick<StatusObject, 'code' | 'details'>;

/** The catalogue error a handler's failure is answered with; server faults are logged with their stack. */
export function callFailure(err: unknown, logger: Logger, method: string): KServeError {
  const kerr = toKServeError(err);
  if (kerr.kind === 'Internal' || kerr.kind === 'InferenceError') logger.error({ err, method }, 'request failed');
  return kerr;
}

export function toGrpcStatus(err: unknown, logger: Logger, method: string): GrpcFailure {
  const kerr = callFailure(err, logger, method);
  return { code: kerr.grpcCode, details: kerr.message };
}
