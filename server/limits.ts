/**
 * The server's bounds on what clients can make it hold: time, connections, streams, queued
 * requests and what one request may declare. One flag each (defaults below, with units),
 * parsed once with the rest of the config; docs/limits.md lists them with the status each
 * answers. Transports and the repository receive the parsed `ServerLimits` and nothing else.
 */
import { DEFAULT_DECODE_LIMITS, type DecodeLimits } from '../protocols/limits.js';

export interface ServerLimits {
  /** What one request may declare (protocols/limits.ts). */
  readonly decode: DecodeLimits;
  /** Largest JSON part of a REST request (a whole JSON body, or a binary request's JSON header): JSON.parse holds the event loop. */
  readonly restMaxJsonBytes: number;
  /** REST request-body bytes held at once, over all requests (bodies over 64 KiB); beyond it 503. 0 = no limit. */
  readonly restMaxInflightBodyBytes: number;
  /** Largest request line plus headers (Node's maxHeaderSize); beyond it 431. */
  readonly maxHeaderBytes: number;
  /** Time to receive a request's headers (ms); then 408. */
  readonly headersTimeoutMs: number;
  /** Time to receive a whole request, body included (ms); then 408 (REST) / DEADLINE_EXCEEDED (gRPC). */
  readonly requestTimeoutMs: number;
  /** A REST body or gRPC request message that receives no byte for this long (ms) is ended: 408 / DEADLINE_EXCEEDED. 0 = never. */
  readonly receiveTimeoutMs: number;
  /** A response (REST) or response message (gRPC) the client leaves unread this long (ms, no byte sent) loses its connection / call. 0 = never. */
  readonly sendTimeoutMs: number;
  /** An idle keep-alive connection is closed after this long (ms); KServe's --timeout_keep_alive. */
  readonly keepAliveTimeoutMs: number;
  /** REST connections open at once; beyond it the oldest connection with no request in progress is closed. */
  readonly maxConnections: number;
  /** gRPC connections open at once; beyond it the oldest connection with no call in progress is closed. */
  readonly grpcMaxConnections: number;
  /** gRPC request bytes held at once over all calls; a call that would pass it is reset (RESOURCE_EXHAUSTED). 0 = no limit. */
  readonly grpcMaxInflightMessageBytes: number;
  /** Concurrent gRPC streams (calls) per connection. */
  readonly grpcMaxConcurrentStreams: number;
  /** A gRPC connection with no call for this long is closed (ms; GOAWAY). */
  readonly grpcMaxConnectionIdleMs: number;
  /** Requests one model may hold in flight (queued or running); beyond it 503 + Retry-After / UNAVAILABLE. 0 = no limit. */
  readonly maxQueuedRequests: number;
}

const MiB = 1024 * 1024;

/** Flag name → default, help, and where the value goes (seconds flags become ms). */
interface LimitFlag {
  readonly name: string;
  readonly dflt: string;
  readonly help: string;
}

/**
 * The limit flags, in the shape of the server's flag table (kind 'int'). `timeout_keep_alive`
 * is KServe's own flag (uvicorn's keep-alive, default 5 s).
 */
export const LIMIT_FLAGS: ReadonlyArray<LimitFlag & { readonly kind: 'int' }> = [
  {
    name: 'max_tensor_elements',
    dflt: String(DEFAULT_DECODE_LIMITS.maxTensorElements),
    help: 'elements all input tensors of one request may declare together; beyond it 413 / RESOURCE_EXHAUSTED',
  },
  { name: 'max_inputs', dflt: String(DEFAULT_DECODE_LIMITS.maxInputs), help: 'inputs one request may have; beyond it 413 / RESOURCE_EXHAUSTED' },
  { name: 'max_outputs', dflt: String(DEFAULT_DECODE_LIMITS.maxOutputs), help: 'requested outputs one request may have; beyond it 413 / RESOURCE_EXHAUSTED' },
  { name: 'rest_max_json_bytes', dflt: String(16 * MiB), help: 'largest JSON part of a REST request (bytes; binary tensors do not count); beyond it 413' },
  {
    name: 'rest_max_inflight_body_bytes',
    dflt: String(1024 * MiB),
    help: 'REST request-body bytes the server holds at once over all requests (bodies over 64 KiB count); beyond it 503 with Retry-After (0 = no limit)',
  },
  { name: 'max_header_bytes', dflt: '16384', help: 'largest REST request line and headers (bytes); beyond it 431' },
  { name: 'headers_timeout_seconds', dflt: '30', help: 'time a client has to send the request headers (seconds); then 408' },
  {
    name: 'request_timeout_seconds',
    dflt: '300',
    help: 'time a client has to send a whole request: REST headers and body, a gRPC request message (seconds); then 408 / DEADLINE_EXCEEDED',
  },
  {
    name: 'receive_timeout_seconds',
    dflt: '30',
    help: "a REST request body or gRPC request message that receives no byte for this long is ended (a stalled upload): 408 / DEADLINE_EXCEEDED, as nginx's client_body_timeout (seconds; 0 = never)",
  },
  {
    name: 'send_timeout_seconds',
    dflt: '30',
    help: "a response the client leaves unread (no byte sent) for this long loses its REST connection or gRPC call, as nginx's send_timeout (seconds; 0 = never)",
  },
  {
    name: 'timeout_keep_alive',
    dflt: '65',
    help: "idle keep-alive REST connections close after this long (seconds; KServe's flag and default: longer than a proxy's 60 s idle timeout)",
  },
  { name: 'max_connections', dflt: '4096', help: 'REST connections open at once; a new one beyond it closes the oldest connection with no request in progress' },
  { name: 'grpc_max_connections', dflt: '1024', help: 'gRPC connections open at once; a new one beyond it closes the oldest connection with no call in progress' },
  {
    name: 'grpc_max_inflight_message_bytes',
    dflt: String(1024 * MiB),
    help: 'gRPC request bytes the server holds at once over all calls; a call past it is reset, RESOURCE_EXHAUSTED (0 = no limit)',
  },
  { name: 'grpc_max_concurrent_streams', dflt: '256', help: 'concurrent gRPC calls per connection (HTTP/2 SETTINGS); beyond it the client queues or gets REFUSED_STREAM' },
  { name: 'grpc_max_connection_idle_seconds', dflt: '300', help: 'a gRPC connection without calls for this long is closed with GOAWAY (seconds; 0 = never)' },
  { name: 'max_queued_requests', dflt: '1024', help: 'requests one model may hold queued or running; beyond it 503 with Retry-After / gRPC UNAVAILABLE (0 = no limit)' },
].map((f) => ({ ...f, kind: 'int' as const }));

/** Builds the limits from parsed integer flags (`int(name)` gives a flag's value). */
export function limitsFrom(int: (name: string) => number): ServerLimits {
  const seconds = (name: string) => int(name) * 1000;
  return Object.freeze({
    decode: Object.freeze({
      maxTensorElements: int('max_tensor_elements'),
      maxInputs: int('max_inputs'),
      maxOutputs: int('max_outputs'),
    }),
    restMaxJsonBytes: int('rest_max_json_bytes'),
    restMaxInflightBodyBytes: int('rest_max_inflight_body_bytes'),
    maxHeaderBytes: int('max_header_bytes'),
    headersTimeoutMs: seconds('headers_timeout_seconds'),
    requestTimeoutMs: seconds('request_timeout_seconds'),
    receiveTimeoutMs: seconds('receive_timeout_seconds'),
    sendTimeoutMs: seconds('send_timeout_seconds'),
    keepAliveTimeoutMs: seconds('timeout_keep_alive'),
    maxConnections: int('max_connections'),
    grpcMaxConnections: int('grpc_max_connections'),
    grpcMaxInflightMessageBytes: int('grpc_max_inflight_message_bytes'),
    grpcMaxConcurrentStreams: int('grpc_max_concurrent_streams'),
    grpcMaxConnectionIdleMs: seconds('grpc_max_connection_idle_seconds'),
    maxQueuedRequests: int('max_queued_requests'),
  });
}

/** The defaults, for embedders and tests that build a server without flags. */
export const DEFAULT_LIMITS: ServerLimits = limitsFrom((name) => Number(LIMIT_FLAGS.find((f) => f.name === name)?.dflt));
