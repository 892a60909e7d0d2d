/**
 * A predictor's refusal as the transformer's answer. A 4xx (or the gRPC code of one) is the
 * client's mistake seen one hop later, so it keeps its status through the catalogue kind
 * that has it and the predictor's message; 503 / UNAVAILABLE stays "not ready, retry later";
 * any other failure of the predictor is PredictorError (502), naming the predictor.
 */
import { type ErrorKind, GrpcCode, KServeError, errors } from '../../protocols/errors.js';

const HTTP_KINDS: ReadonlyMap<number, ErrorKind> = new Map([
  [400, 'InvalidInput'],
  [404, 'ModelNotFound'],
  [405, 'MethodNotAllowed'],
  [413, 'PayloadTooLarge'],
  [414, 'UriTooLong'],
  [501, 'NotImplemented'],
  [503, 'ModelNotReady'],
]);

const GRPC_KINDS: ReadonlyMap<number, ErrorKind> = new Map([
  [GrpcCode.INVALID_ARGUMENT, 'InvalidInput'],
  [GrpcCode.NOT_FOUND, 'ModelNotFound'],
  [GrpcCode.RESOURCE_EXHAUSTED, 'PayloadTooLarge'],
  [GrpcCode.UNIMPLEMENTED, 'NotImplemented'],
  [GrpcCode.UNAVAILABLE, 'ModelNotReady'],
]);

/** The predictor answered HTTP `status` (not 2xx) with `message` (its `error` field, or its body). */
export function httpRefusal(target: string, status: number, message: string): KServeError {
  const kind = HTTP_KINDS.get(status) ?? (status >= 400 && status < 500 ? 'InvalidInput' : undefined);
  if (kind !== undefined) return new KServeError(kind, message || `Predictor ${target} answered ${status}`);
  return errors.predictorError(target, `${status}${message ? ` ${message}` : ''}`);
}

/** The predictor's gRPC call ended with `code` (not OK) and `details`. */
export function grpcRefusal(target: string, code: number, details: string): KServeError {
  const kind = GRPC_KINDS.get(code);
  if (kind !== undefined) return new KServeError(kind, details || `Predictor ${target} answered gRPC status ${code}`);
  return errors.predictorError(target, `gRPC status ${code}${details ? ` ${details}` : ''}`);
}

/** The `error` field of a KServe error body, or the body's text, bounded. */
export function errorMessage(body: string): string {
  try {
    const doc = JSON.parse(body) as unknown;
    if (typeof doc === 'object' && doc !== null && typeof (doc as { error?: unknown }).error === 'string') return (doc as { error: string }).error;
  } catch {
    // Not JSON: the text itself.
  }
  return body.length > 1000 ? `${body.slice(0, 1000)}...` : body;
}
