/**
 * Anything thrown in a gRPC handler becomes the catalogue's status code and message
 * (KServeError.grpcCode); stacks go to the log, never to the client.
 */
import type { StatusObject } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { toKServeError } from '../../protocols/errors.js';

export type GrpcFailure = Pick<StatusObject, 'code' | 'details'>;

export function toGrpcStatus(err: unknown, logger: Logger, method: string): GrpcFailure {
  const kerr = toKServeError(err);
  if (kerr.kind === 'Internal' || kerr.kind === 'InferenceError') logger.error({ err, method }, 'request failed');
  return { code: kerr.grpcCode, details: kerr.message };
}
