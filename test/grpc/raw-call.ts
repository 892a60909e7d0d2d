/** A ModelInfer call written by hand on a raw HTTP/2 session, for tests that control each byte a client sends. */
import type http2 from 'node:http2';

export interface RawCall {
  readonly stream: http2.ClientHttp2Stream;
  /** The call's grpc-status once it ends (undefined: reset or cut without one). */
  readonly status: Promise<string | undefined>;
}

/** Opens a ModelInfer stream on `session` (its answer read and dropped); the test writes the message. */
export function rawModelInfer(session: http2.ClientHttp2Session): RawCall {
  const stream = session.request({ ':method': 'POST', ':path': '/inference.GRPCInferenceService/ModelInfer', 'content-type': 'application/grpc', te: 'trailers' });
  stream.on('error', () => undefined);
  let grpcStatus: string | undefined;
  const take = (h: http2.IncomingHttpHeaders) => (grpcStatus ??= h['grpc-status'] as string | undefined);
  stream.on('response', take);
  stream.on('trailers', take);
  stream.resume();
  return { stream, status: new Promise((resolve) => stream.once('close', () => resolve(grpcStatus))) };
}

/** gRPC's 5-byte message prefix (uncompressed) declaring a message of `length` bytes. */
export function messagePrefix(length: number): Buffer {
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(length, 1);
  return prefix;
}
