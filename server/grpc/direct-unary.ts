/**
 * Unary calls served on node:http2 directly, below grpc-js, for the methods on the hot path
 * (ModelInfer). grpc-js runs every call through a generic machine (an intercepting call, a
 * Metadata object, a read queue, a promise per message, a serialise-and-copy per response):
 * for a 588 KiB raw tensor that cost more CPU than KServe's whole Python server spends on the
 * call (benchmarks/RESULTS.md, "Performance round 3": bare grpc-js 1.1–2.0 ms per call, bare
 * node:http2 0.5–0.8 ms). Here a call is one closure over the stream.
 *
 * Only what grpc-js would serve the same way is taken: POST, a gRPC content type, no message
 * compression (grpc-encoding absent or identity). Everything else, and every other method,
 * goes to grpc-js's own stream handler unchanged. Where a call can fail in the transport,
 * the status and message are grpc-js's (direct-unary.test.ts holds both side by side): a
 * message over --grpc_max_receive_message_length (RESOURCE_EXHAUSTED), none or two messages
 * on a unary call (UNIMPLEMENTED), a passed grpc-timeout (DEADLINE_EXCEEDED).
 *
 * grpc-js's handler is reached through its http2 servers (flow-control.ts's
 * newHttp2Servers) and is the one 'stream' listener it registered at bind: if a release
 * registers it differently, nothing is taken over and grpc-js serves every call, as before.
 */
import type { Http2Server, IncomingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import { Metadata } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { errors, type KServeError } from '../../protocols/errors.js';
import { endCall } from './call-status.js';
import { MessageAssembler } from './message-assembly.js';
import { callFailure } from './status.js';

/** One call as a direct handler sees it. */
export interface DirectCall {
  /** The request's text metadata (reserved gRPC and HTTP/2 headers removed, as grpc-js does). */
  readonly headers: Readonly<Record<string, string>>;
  /** True once the client is gone: the stream closed before the answer, or the deadline passed. */
  readonly cancelled: boolean;
  /** The response's initial metadata (at most once, before the message). */
  sendHeaders(md: Metadata): void;
}

/** Serves one method: the request message (no length prefix) in, the serialised response out. */
export type DirectUnaryHandler = (message: Buffer, call: DirectCall) => Promise<Buffer>;

export interface DirectUnaryOptions {
  /** Method path → handler. */
  readonly handlers: ReadonlyMap<string, DirectUnaryHandler>;
  /** Largest request message (bytes); -1 for no limit (grpc.max_receive_message_length). */
  readonly maxReceiveMessageLength: number;
  readonly logger: Logger;
  /** grpc-js's per-stream bookkeeping (its idle-connection timer counts open calls). */
  readonly onStreamOpened?: ((stream: ServerHttp2Stream) => void) | undefined;
}

/** As grpc-js parses grpc-timeout (malformed-call.ts has refused malformed ones before this runs). */
const TIMEOUT = /(\d{1,8})\s*([HMSmun])/;
const UNIT_MS: Readonly<Record<string, number>> = { H: 3_600_000, M: 60_000, S: 1000, m: 1, u: 0.001, n: 0.000001 };
/** Headers grpc-js keeps from the application's metadata (server-interceptors). */
const RESERVED = new Set(['grpc-timeout', 'grpc-encoding', 'grpc-accept-encoding', 'accept-encoding', 'te', 'content-type']);
const RESPONSE_HEADERS = { ':status': 200, 'content-type': 'application/grpc+proto', 'grpc-accept-encoding': 'identity,deflate,gzip', 'grpc-encoding': 'identity' };
const OK_TRAILERS = { 'grpc-status': '0', 'grpc-message': 'OK' };

function requestHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const md = Metadata.fromHttp2Headers(headers);
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [k, v] of Object.entries(md.getMap())) if (typeof v === 'string' && !RESERVED.has(k)) out[k] = v;
  return out;
}

/** The stream's call state; the handler's view of it is the DirectCall. */
class Call implements DirectCall {
  #headers: Record<string, string> | undefined;
  #answered = false;
  #deadlinePassed = false;
  #timer: NodeJS.Timeout | undefined;
  #metadata: Metadata | undefined;

  constructor(
    readonly stream: ServerHttp2Stream,
    private readonly rawHeaders: IncomingHttpHeaders,
  ) {}

  get headers(): Readonly<Record<string, string>> {
    this.#headers ??= requestHeaders(this.rawHeaders);
    return this.#headers;
  }

  get cancelled(): boolean {
    return this.#deadlinePassed || (!this.#answered && (this.stream.closed || this.stream.destroyed));
  }

  sendHeaders(md: Metadata): void {
    this.#metadata ??= md;
  }

  /** Arms grpc-timeout's deadline, if the call has one. */
  startDeadline(): void {
    const header = this.rawHeaders['grpc-timeout'];
    const match = typeof header === 'string' ? TIMEOUT.exec(header) : null;
    if (match === null) return;
    const ms = (Number(match[1]) * (UNIT_MS[match[2] as string] as number)) | 0;
    this.#timer = setTimeout(() => {
      this.#deadlinePassed = true;
      this.fail(errors.deadlineExceeded());
    }, ms);
    this.stream.once('close', () => clearTimeout(this.#timer));
  }

  /** The response message with grpc-js's headers and OK trailers. */
  answer(body: Buffer): void {
    if (this.#answered || this.cancelled) return;
    this.#answered = true;
    clearTimeout(this.#timer);
    const custom = this.#metadata?.toHttp2Headers();
    this.stream.respond(custom === undefined ? RESPONSE_HEADERS : { ...RESPONSE_HEADERS, ...custom }, { waitForTrailers: true });
    this.stream.once('wantTrailers', () => this.stream.sendTrailers(OK_TRAILERS));
    const prefix = Buffer.allocUnsafe(5);
    prefix[0] = 0;
    prefix.writeUInt32BE(body.byteLength, 1);
    this.stream.cork();
    this.stream.write(prefix);
    this.stream.end(body);
    this.stream.uncork();
  }

  /** A trailers-only status (and RST_STREAM(NO_ERROR) if the client is still sending). */
  fail(err: KServeError): void {
    if (this.#answered) return;
    this.#answered = true;
    clearTimeout(this.#timer);
    endCall(this.stream, err);
  }
}

/**
 * Serves the handlers' methods on `h2` itself and hands every other call to grpc-js. Call
 * right after bind, before anything else listens for streams on `h2`. False (grpc-js keeps
 * every call) when its stream listener is not the single one expected.
 */
export function serveUnaryDirectly(h2: Http2Server, o: DirectUnaryOptions): boolean {
  const listeners = h2.listeners('stream');
  const grpcJs = listeners[0];
  if (listeners.length !== 1 || typeof grpcJs !== 'function') return false;

  const serve = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, handler: DirectUnaryHandler, path: string): void => {
    // As grpc-js: every stream error is followed by 'close', which is what ends the call.
    stream.once('error', () => undefined);
    o.onStreamOpened?.(stream);
    const call = new Call(stream, headers);
    call.startDeadline();
    const assembler = new MessageAssembler(o.maxReceiveMessageLength);
    let message: Buffer | undefined;
    const onData = (chunk: Buffer): void => {
      let out: Buffer[];
      try {
        out = assembler.write(chunk);
      } catch (e) {
        stream.off('data', onData);
        call.fail(errors.limitExceeded((e as Error).message));
        return;
      }
      for (const m of out) {
        if (message !== undefined) {
          stream.off('data', onData);
          call.fail(errors.notImplemented(`Received a second request message for server streaming method ${path}`));
          return;
        }
        message = m;
      }
    };
    stream.on('data', onData);
    stream.once('end', () => {
      if (call.cancelled) return;
      if (message === undefined) {
        call.fail(errors.notImplemented(`Received no request message for server streaming method ${path}`));
        return;
      }
      handler(message.subarray(5), call).then(
        (body) => call.answer(body),
        (err: unknown) => call.fail(callFailure(err, o.logger, path)),
      );
    });
  };

  h2.removeListener('stream', grpcJs as (...args: unknown[]) => void);
  h2.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, ...rest: unknown[]) => {
    const path = headers[':path'];
    const handler = typeof path === 'string' ? o.handlers.get(path) : undefined;
    const contentType = headers['content-type'];
    const encoding = headers['grpc-encoding'];
    if (
      handler !== undefined &&
      headers[':method'] === 'POST' &&
      typeof contentType === 'string' &&
      contentType.startsWith('application/grpc') &&
      (encoding === undefined || encoding === 'identity')
    ) {
      // Ended already by a check that runs first (malformed-call.ts, the connection limit).
      if (stream.closed || stream.destroyed || stream.headersSent) return;
      serve(stream, headers, handler, path as string);
      return;
    }
    (grpcJs as (...args: unknown[]) => void).call(h2, stream, headers, ...rest);
  });
  return true;
}
