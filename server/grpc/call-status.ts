/**
 * Ends a call below grpc-js, before its handler has run (the connection limit, the receive
 * deadline): a trailers-only answer with the catalogue error's status and message, then
 * RST_STREAM(NO_ERROR), which tells the client to stop sending the rest of its request
 * (RFC 9113 §8.1). grpc-js sees the stream close and drops the call. A call already
 * answered is only closed.
 */
import { type ServerHttp2Stream, constants } from 'node:http2';
import type { KServeError } from '../../protocols/errors.js';

export function endCall(stream: ServerHttp2Stream, err: KServeError): void {
  if (stream.closed || stream.destroyed) return;
  if (!stream.headersSent) {
    stream.respond(
      // grpc-js's clients decode grpc-message with decodeURI, as grpc-js servers encode it.
      { ':status': 200, 'content-type': 'application/grpc+proto', 'grpc-status': String(err.grpcCode), 'grpc-message': encodeURI(err.message) },
      { endStream: true },
    );
  }
  stream.close(constants.NGHTTP2_NO_ERROR);
}
