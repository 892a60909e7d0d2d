/**
 * Two faults in a call's framing that grpc-js answers INTERNAL (as grpc-go does), although
 * the client made them: a `grpc-timeout` that is not a timeout, and a compressed message
 * that does not decompress. Both are answered INVALID_ARGUMENT naming the defect, as every
 * other malformed request is (undecodable.ts): INTERNAL would page the server's operators
 * for a client's bug.
 *
 * The timeout is checked before grpc-js sees the call, with the spec's grammar (1 to 8
 * digits and a unit; grpc-js's own check also takes `123456789S` as 23456789 s). A failed
 * decompression is only known once grpc-js has tried, so on calls that declare gzip or
 * deflate its trailers-only INTERNAL for it is rewritten on the way out; any other status
 * passes unchanged.
 */
import type { Http2Server, IncomingHttpHeaders, OutgoingHttpHeaders, ServerHttp2Stream, ServerStreamResponseOptions } from 'node:http2';
import { GrpcCode, errors } from '../../protocols/errors.js';
import { endCall } from './call-status.js';

const TIMEOUT = /^\d{1,8}[HMSmun]$/;
/** grpc-js's status for a message its gunzip or inflate refused (server-interceptors). */
const GRPC_JS_DECOMPRESS_FAILED = encodeURI('Failed to decompress message');

function rewriteDecompressFailure(stream: ServerHttp2Stream, encoding: string): void {
  const refused = errors.invalidInput(`the request message does not decompress as ${encoding} (grpc-encoding)`);
  const respond = stream.respond.bind(stream);
  stream.respond = (headers?: OutgoingHttpHeaders, options?: ServerStreamResponseOptions) =>
    respond(
      headers !== undefined && String(headers['grpc-status']) === String(GrpcCode.INTERNAL) && headers['grpc-message'] === GRPC_JS_DECOMPRESS_FAILED
        ? { ...headers, 'grpc-status': String(refused.grpcCode), 'grpc-message': encodeURI(refused.message) }
        : headers,
      options,
    );
}

/** Installs the checks on one of grpc-js's http2 servers (after bind: they run before its handler). */
export function refuseMalformedCalls(h2: Http2Server): void {
  h2.prependListener('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => {
    const header = headers['grpc-timeout'];
    const timeout = Array.isArray(header) ? header.join(',') : header;
    if (timeout !== undefined && !TIMEOUT.test(timeout)) {
      // Closed here, the call is cancelled before grpc-js starts a handler for it.
      endCall(stream, errors.invalidInput(`the grpc-timeout header ${JSON.stringify(timeout.slice(0, 32))} is not a timeout: 1 to 8 digits and a unit (H, M, S, m, u, n)`));
      return;
    }
    const encoding = headers['grpc-encoding'];
    if (encoding === 'gzip' || encoding === 'deflate') rewriteDecompressFailure(stream, encoding);
  });
}
