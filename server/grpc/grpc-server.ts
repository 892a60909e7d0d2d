/**
 * Builds the gRPC server beside the REST app: the inference service, the standard health
 * service and server reflection, with the configured message-size limits. Nothing binds a
 * port until `listen`; main.ts and the test helper decide where.
 */
import { format } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { ServerHttp2Stream } from 'node:http2';
import type { ModelInferRequestMessage, ModelInferResponseMessage } from '../../protocols/grpc/messages.js';
import { HEALTH_SERVICE, INFERENCE_SERVICE, loadProtocolDefinition } from '../../protocols/grpc/proto.js';
import { decodeModelInferRequest } from '../../protocols/grpc/wire/decode-infer.js';
import { encodeModelInferResponse } from '../../protocols/grpc/wire/encode-infer.js';
import type { DataPlane } from '../dataplane.js';
import { DEFAULT_LIMITS, type ServerLimits } from '../limits.js';
import type { Metrics } from '../metrics.js';
import { LimitLog } from '../limit-log.js';
import { limitSessions } from './connection-limit.js';
import { refuseMalformedCalls } from './malformed-call.js';
import { messageBudget } from './message-budget.js';
import { installMessageAssembly } from './message-assembly.js';
import { newHttp2Servers, widenReceiveWindows, widenSessionWindows } from './flow-control.js';
import { HealthService } from './health-service.js';
import { type DirectUnaryHandler, type DirectUnaryOptions, serveUnaryDirectly } from './direct-unary.js';
import { type ModelInferRunner, inferenceService, modelInferRunner } from './inference-service.js';
import { addReflection } from './reflection.js';
import { tolerantDeserializers, undecodableError } from './undecodable.js';

export interface GrpcServerOptions {
  readonly dataplane: DataPlane;
  readonly metrics: Metrics;
  readonly logger: Logger;
  /** Largest request / response message in bytes (the anchor's default is 8 MiB each). */
  readonly maxReceiveMessageLength: number;
  readonly maxSendMessageLength: number;
  /** Streams per connection, idle connections (server/limits.ts); defaults when absent. */
  readonly limits?: ServerLimits;
  /** How often health Watch streams re-evaluate readiness (ms). */
  readonly healthPollMs?: number;
}

export interface GrpcServer {
  readonly health: HealthService;
  /** Binds `host:port` (port 0 picks a free one) and resolves with the bound port. */
  listen(host: string, port: number): Promise<number>;
  /** Refuses new calls, ends health Watch streams and resolves once in-flight calls finish. */
  close(): Promise<void>;
  /** Cancels every call still running; for when the grace period is over. */
  forceClose(): void;
}

/**
 * ModelInfer as grpc-js runs it: messages go through the hand-written wire codec
 * (protocols/grpc/wire) instead of proto-loader's generic one, and a pre-encoded Buffer
 * response passes through unchanged (the handler serialises it itself). The other methods
 * keep proto-loader's. Large messages own their buffer (message-assembly.ts marks it
 * detachable), so a backend may take it instead of copying raw tensors.
 */
function tunedInfer(def: grpc.ServiceDefinition): grpc.ServiceDefinition {
  const method = def['ModelInfer'] as grpc.MethodDefinition<unknown, unknown>;
  return {
    ...def,
    ModelInfer: {
      ...method,
      requestDeserialize: decodeModelInferRequest,
      responseSerialize: (v: unknown) => (Buffer.isBuffer(v) ? v : encodeModelInferResponse(v as ModelInferResponseMessage)),
    },
  };
}

/** ModelInfer as the direct path serves it: undecodable messages are INVALID_ARGUMENT, as in the grpc-js path. */
function directInfer(run: ModelInferRunner): DirectUnaryHandler {
  return (message, call) => {
    let req: ModelInferRequestMessage;
    try {
      req = decodeModelInferRequest(message);
    } catch (e) {
      return Promise.reject(undecodableError('ModelInfer', (e as Error).message));
    }
    return run(req, call);
  };
}

/** grpc-js's per-stream bookkeeping (the idle-connection timer), if this release has it. */
function grpcJsStreamOpened(server: grpc.Server): ((stream: ServerHttp2Stream) => void) | undefined {
  const opened = (server as unknown as { onStreamOpened?: unknown }).onStreamOpened;
  return typeof opened === 'function' ? (stream) => (opened as (s: ServerHttp2Stream) => void).call(server, stream) : undefined;
}

/**
 * The paths of the methods whose request is a stream of messages (reflection's), as the
 * services are added: the receive deadline leaves those calls alone (open-ended by design).
 */
function streamingRequestPaths(server: grpc.Server): ReadonlySet<string> {
  const paths = new Set<string>();
  const add = server.addService.bind(server);
  server.addService = (service, implementation) => {
    for (const method of Object.values(service)) if (method.requestStream) paths.add(method.path);
    add(service, implementation);
  };
  return paths;
}

function hostPort(host: string, port: number): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
}

export function buildGrpcServer(opts: GrpcServerOptions): GrpcServer {
  const logger = opts.logger.child({ component: 'grpc' });
  // grpc-js writes its own errors to stderr as bare "E ..." lines (process-wide); here they
  // are JSON log lines like every other, and stderr keeps only the start-up's one-line errors.
  grpc.setLogger({ error: (...args: unknown[]) => logger.error({ source: 'grpc-js' }, format(...args)) });
  installMessageAssembly();
  const definition = loadProtocolDefinition();
  const inference = definition[INFERENCE_SERVICE] as grpc.ServiceDefinition;
  const health = new HealthService(opts.dataplane, { pollMs: opts.healthPollMs });

  const limits = opts.limits ?? DEFAULT_LIMITS;
  const server = new grpc.Server({
    'grpc.max_receive_message_length': opts.maxReceiveMessageLength,
    'grpc.max_send_message_length': opts.maxSendMessageLength,
    // Bounds what one connection can hold open: calls at once, and its life once it has none.
    'grpc.max_concurrent_streams': limits.grpcMaxConcurrentStreams,
    ...(limits.grpcMaxConnectionIdleMs > 0 ? { 'grpc.max_connection_idle_ms': limits.grpcMaxConnectionIdleMs } : {}),
  });
  widenReceiveWindows(server);
  const streamingRequests = streamingRequestPaths(server);
  const grpcContext = { dataplane: opts.dataplane, metrics: opts.metrics, logger, maxSendMessageLength: opts.maxSendMessageLength, decodeLimits: limits.decode };
  const runModelInfer = modelInferRunner(grpcContext, encodeModelInferResponse);
  server.addService(tolerantDeserializers(tunedInfer(inference)), inferenceService(grpcContext, runModelInfer));
  const direct: DirectUnaryOptions = {
    handlers: new Map([[(inference['ModelInfer'] as grpc.MethodDefinition<unknown, unknown>).path, directInfer(runModelInfer)]]),
    maxReceiveMessageLength: opts.maxReceiveMessageLength,
    logger,
    onStreamOpened: grpcJsStreamOpened(server),
  };
  server.addService(definition[HEALTH_SERVICE] as grpc.ServiceDefinition, health.implementation());
  addReflection(server, definition);

  const limitLog = new LimitLog(logger);
  const budget = messageBudget(limits.grpcMaxInflightMessageBytes, limitLog);
  if (limits.grpcMaxInflightMessageBytes > 0) opts.metrics.trackHeldRequestBytes('grpc', () => budget.held);

  let closing: Promise<void> | undefined;
  return {
    health,
    listen: (host, port) =>
      new Promise<number>((resolve, reject) => {
        server.bindAsync(hostPort(host, port), grpc.ServerCredentials.createInsecure(), (err, bound) => {
          if (err) reject(err);
          else {
            for (const h2 of newHttp2Servers(server)) {
              // First: it takes grpc-js's stream listener as the only one there.
              if (!serveUnaryDirectly(h2, direct)) logger.warn('grpc-js keeps every call: its stream handler is not where this release expects it');
              widenSessionWindows(h2);
              refuseMalformedCalls(h2);
              limitSessions(h2, { ...limits, streamingRequests }, limitLog);
              budget.watch(h2);
            }
            resolve(bound);
          }
        });
      }),
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        health.shutdown();
        server.tryShutdown((err) => {
          if (err) logger.warn({ err }, 'gRPC shutdown');
          resolve();
        });
      });
      return closing;
    },
    forceClose: () => server.forceShutdown(),
  };
}
