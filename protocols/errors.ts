/**
 * The error catalogue: every failure a client can observe is one of these kinds, each with
 * its HTTP status and gRPC status code. Call sites throw by kind through the `errors`
 * factory; transports map the kind in one place each and never inspect messages.
 *
 * Message templates follow the anchor (KServe's Python server) wherever a client can see
 * them, e.g. `Model with name X does not exist.`.
 */

/** gRPC status codes used here (numeric values from the gRPC spec; no grpc import in protocols). */
export const GrpcCode = {
  CANCELLED: 1,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  RESOURCE_EXHAUSTED: 8,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
} as const;
export type GrpcCodeValue = (typeof GrpcCode)[keyof typeof GrpcCode];

interface KindSpec {
  readonly http: number;
  readonly grpc: GrpcCodeValue;
  /**
   * The `error.type` of OpenAI's error body (the /openai routes): the classes OpenAI's own API
   * and its clients know; server faults are `server_error`, as OpenAI answers them.
   */
  readonly openai: OpenAiErrorType;
}

export type OpenAiErrorType = 'invalid_request_error' | 'not_found_error' | 'server_error' | 'service_unavailable_error' | 'timeout_error';

const KINDS = {
  InvalidInput: { http: 400, grpc: GrpcCode.INVALID_ARGUMENT, openai: 'invalid_request_error' },
  ModelNotFound: { http: 404, grpc: GrpcCode.NOT_FOUND, openai: 'not_found_error' },
  RouteNotFound: { http: 404, grpc: GrpcCode.UNIMPLEMENTED, openai: 'not_found_error' },
  MethodNotAllowed: { http: 405, grpc: GrpcCode.UNIMPLEMENTED, openai: 'invalid_request_error' },
  PayloadTooLarge: { http: 413, grpc: GrpcCode.RESOURCE_EXHAUSTED, openai: 'invalid_request_error' },
  UriTooLong: { http: 414, grpc: GrpcCode.INVALID_ARGUMENT, openai: 'invalid_request_error' },
  ModelNotReady: { http: 503, grpc: GrpcCode.UNAVAILABLE, openai: 'service_unavailable_error' },
  /** Load shedding: the model holds its maximum of queued requests; retry later (REST adds Retry-After). */
  ModelOverloaded: { http: 503, grpc: GrpcCode.UNAVAILABLE, openai: 'service_unavailable_error' },
  ServerNotReady: { http: 503, grpc: GrpcCode.UNAVAILABLE, openai: 'service_unavailable_error' },
  /** The server holds its maximum of request bytes; retry later (REST adds Retry-After). */
  ServerBusy: { http: 503, grpc: GrpcCode.UNAVAILABLE, openai: 'service_unavailable_error' },
  NotImplemented: { http: 501, grpc: GrpcCode.UNIMPLEMENTED, openai: 'invalid_request_error' },
  /** The request was not received in time (a stalled body or message): the connection or call is closed. */
  RequestTimeout: { http: 408, grpc: GrpcCode.DEADLINE_EXCEEDED, openai: 'timeout_error' },
  /** The call's own deadline (gRPC's grpc-timeout) passed before it was answered. */
  DeadlineExceeded: { http: 504, grpc: GrpcCode.DEADLINE_EXCEEDED, openai: 'timeout_error' },
  /**
   * The client went away (closed the connection, cancelled the call, or its gRPC deadline
   * passed) before its inference ran: the queued work is dropped. Nobody reads the answer;
   * 499 is the status proxies log for it.
   */
  Cancelled: { http: 499, grpc: GrpcCode.CANCELLED, openai: 'invalid_request_error' },
  InferenceError: { http: 500, grpc: GrpcCode.INTERNAL, openai: 'server_error' },
  Internal: { http: 500, grpc: GrpcCode.INTERNAL, openai: 'server_error' },
  /** Transformer mode: the predictor could not be reached (refused, unknown host, reset before it answered). */
  PredictorUnreachable: { http: 502, grpc: GrpcCode.UNAVAILABLE, openai: 'server_error' },
  /** Transformer mode: the predictor did not answer within --predictor_request_timeout_seconds. */
  PredictorTimeout: { http: 504, grpc: GrpcCode.DEADLINE_EXCEEDED, openai: 'timeout_error' },
  /** Transformer mode: the predictor failed (a 5xx of its own) or answered something that is not its protocol. */
  PredictorError: { http: 502, grpc: GrpcCode.INTERNAL, openai: 'server_error' },
} as const satisfies Record<string, KindSpec>;

export type ErrorKind = keyof typeof KINDS;

/** Every kind in the catalogue, e.g. for tables that must cover them all. */
export const errorKinds = Object.keys(KINDS) as ErrorKind[];

export function isErrorKind(value: unknown): value is ErrorKind {
  return typeof value === 'string' && Object.hasOwn(KINDS, value);
}

/**
 * An error as plain data, for boundaries that structured-clone (worker threads): a class
 * instance loses its kind there, so it travels as `{kind, message}` and is rebuilt with
 * `fromWireError` on the other side.
 */
export interface WireError {
  readonly kind: ErrorKind;
  readonly message: string;
}

export class KServeError extends Error {
  readonly kind: ErrorKind;
  /** The request field at fault, where one is (OpenAI's `error.param`, e.g. `input`). */
  readonly param: string | undefined;
  constructor(kind: ErrorKind, message: string, options?: { cause?: unknown; param?: string }) {
    super(message, options);
    this.name = 'KServeError';
    this.kind = kind;
    this.param = options?.param;
  }
  get httpStatus(): number {
    return KINDS[this.kind].http;
  }
  get grpcCode(): GrpcCodeValue {
    return KINDS[this.kind].grpc;
  }
  get openaiType(): OpenAiErrorType {
    return KINDS[this.kind].openai;
  }
}

export const errors = {
  invalidInput: (reason: string) => new KServeError('InvalidInput', reason),
  /** Bad input in one named field of a request (OpenAI's `param`): `input`, `documents[2]`. */
  invalidParam: (param: string, reason: string) => new KServeError('InvalidInput', reason, { param }),
  /** An OpenAI generation route (completions, chat): this server serves encoders only. */
  generationNotServed: (path: string) =>
    new KServeError(
      'RouteNotFound',
      `${path} is not served: this server serves encoder models (embeddings, rerank), not text generation; serve generative models with a generation runtime such as vLLM (KServe's huggingfaceserver with its vLLM backend, or llm-d).`,
    ),
  modelNotFound: (name: string) => new KServeError('ModelNotFound', `Model with name ${name} does not exist.`),
  modelVersionNotFound: (name: string, version: string) => new KServeError('ModelNotFound', `Model with name ${name} and version ${version} does not exist.`),
  modelNotReady: (name: string, detail?: string) => new KServeError('ModelNotReady', `Model with name ${name} is not ready.${detail ? ` ${detail}` : ''}`),
  modelOverloaded: (name: string, max: number) =>
    new KServeError('ModelOverloaded', `Model with name ${name} is overloaded: ${max} requests are already queued or running (--max_queued_requests); retry later.`),
  serverBusy: (detail: string) => new KServeError('ServerBusy', `Server is busy: ${detail}; retry later.`),
  requestTimeout: (detail: string) => new KServeError('RequestTimeout', `Request not received in time: ${detail}`),
  /** grpc-js's status and message for a passed grpc-timeout, kept for the calls served below it. */
  deadlineExceeded: () => new KServeError('DeadlineExceeded', 'Deadline exceeded'),
  serverNotReady: () => new KServeError('ServerNotReady', 'Server is not ready.'),
  notImplemented: (what: string) => new KServeError('NotImplemented', what),
  cancelled: (name: string) => new KServeError('Cancelled', `Request for model ${name} was cancelled by the client before it ran.`),
  routeNotFound: (method: string, path: string) => new KServeError('RouteNotFound', `Route ${method}:${path} not found`),
  methodNotAllowed: (method: string, path: string, allow: string) => new KServeError('MethodNotAllowed', `Method ${method} is not allowed for ${path}; allowed: ${allow}`),
  uriTooLong: (maxSegment: number) => new KServeError('UriTooLong', `A path segment of the URL is longer than ${maxSegment} characters`),
  payloadTooLarge: (limitBytes: number) => new KServeError('PayloadTooLarge', `Request body is larger than the limit of ${limitBytes} bytes`),
  /** A request within the body limit that declares more than a configured bound (elements, inputs). */
  limitExceeded: (reason: string) => new KServeError('PayloadTooLarge', reason),
  responseTooLarge: (bytes: number, limitBytes: number, setting: string) =>
    new KServeError('PayloadTooLarge', `Response of ${bytes} bytes is larger than the limit of ${limitBytes} bytes (${setting})`),
  inferenceError: (reason: string, cause?: unknown) => new KServeError('InferenceError', reason, { cause }),
  internal: (reason: string, cause?: unknown) => new KServeError('Internal', reason, { cause }),
  predictorUnreachable: (target: string, reason: string, attempts: number) =>
    new KServeError('PredictorUnreachable', `Predictor ${target} is unreachable: ${reason}${attempts > 1 ? ` (${attempts} attempts)` : ''}`),
  predictorTimeout: (target: string, seconds: number) =>
    new KServeError('PredictorTimeout', `Predictor ${target} did not answer within ${seconds} s (--predictor_request_timeout_seconds)`),
  predictorError: (target: string, reason: string) => new KServeError('PredictorError', `Predictor ${target} failed: ${reason}`),
};

/**
 * Flattens anything thrown for a structured-clone boundary. A catalogue error keeps its
 * kind; anything else takes `fallback`, since a runtime's own exception (onnxruntime,
 * TensorFlow) is a failed inference rather than a bug in the server.
 */
export function toWireError(err: unknown, fallback: ErrorKind = 'InferenceError'): WireError {
  if (err instanceof KServeError) return { kind: err.kind, message: err.message };
  return { kind: fallback, message: withoutSourcePaths(err instanceof Error ? err.message : String(err)) };
}

/**
 * A runtime's own message without the source locations it embeds (onnxruntime writes
 * `/onnxruntime_src/onnxruntime/core/...h:560` into its errors): they tell a client about the
 * server's build, not about the request.
 */
export function withoutSourcePaths(message: string): string {
  return message.replace(/(?:[A-Za-z]:)?(?:[/][\w.+@-]+)+\.(?:h|hh|hpp|c|cc|cpp|cxx|cu|inc|py|js|mjs|ts):\d+(?::\d+)?\s*/g, '');
}

/** Rebuilds a catalogue error from `toWireError`'s data; an unknown kind is an internal error. */
export function fromWireError(wire: WireError): KServeError {
  return new KServeError(isErrorKind(wire.kind) ? wire.kind : 'Internal', wire.message);
}

/**
 * A runtime's failure as a catalogue error, exactly as it reads after crossing a worker
 * boundary (toWireError there, fromWireError here): code that runs the same runtime on the
 * main thread maps its errors through this, so one failure reads the same whichever thread
 * ran it.
 */
export function runtimeError(err: unknown): KServeError {
  return fromWireError(toWireError(err));
}

/**
 * Turns anything thrown into a catalogue error. Unknown errors keep the anchor's
 * `"<Type> : <message>"` form; stacks never reach a client.
 */
export function toKServeError(err: unknown): KServeError {
  if (err instanceof KServeError) return err;
  if (err instanceof Error) return errors.internal(`${err.name} : ${withoutSourcePaths(err.message)}`, err);
  return errors.internal(`Error : ${String(err)}`, err);
}
