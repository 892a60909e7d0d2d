/**
 * The router's V2 gRPC side (beyond KServe's router): `inference.GRPCInferenceService`, so
 * tritonclient.grpc and other Open Inference Protocol clients can call a graph. ModelInfer
 * routes the request through the graph (grpc-wire.ts); its messages go through the wire
 * codec both ways, raw contents untouched. ServerLive answers true while serving;
 * ServerReady and ModelReady follow the router's readiness (the steps'). A routing
 * failure is the gRPC status of its HTTP status, with KServe's cause as the message;
 * a step's own error status comes back as it was.
 */
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { ModelInferRequestMessage, ModelInferResponseMessage } from '../../protocols/grpc/messages.js';
import { INFERENCE_SERVICE, loadProtocolDefinition } from '../../protocols/grpc/proto.js';
import { decodeModelInferRequest } from '../../protocols/grpc/wire/decode-infer.js';
import { encodeModelInferResponse } from '../../protocols/grpc/wire/encode-infer.js';
import { Routing } from '../executor.js';
import type { GraphSpec } from '../graph-spec.js';
import { propagatedHeaders } from '../header-propagation.js';
import type { RouterMetrics } from '../metrics.js';
import { RoutingError } from '../routing-error.js';
import { grpcOfHttp, httpOfGrpc } from './grpc-status.js';
import { grpcWire } from './grpc-wire.js';
import type { StepChannels } from './step-channels.js';

export interface GrpcFrontOptions {
  readonly spec: GraphSpec;
  readonly channels: StepChannels;
  readonly metrics: RouterMetrics;
  readonly logger: Logger;
  readonly propagate: readonly RegExp[];
  /** routerTimeouts.serviceClient in ms (undefined: none, as KServe's default). */
  readonly stepTimeoutMs: number | undefined;
  readonly maxMessageBytes: number;
  readonly readiness: () => Promise<{ ready: boolean; reason: string }>;
}

export interface GrpcFront {
  listen(host: string, port: number): Promise<number>;
  close(): Promise<void>;
}

/** Metadata as header lists (grpc-js keys are lower-case; binary `-bin` entries are not headers). */
function metadataHeaders(md: grpc.Metadata): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(md.toJSON())) if (!k.endsWith('-bin')) out[k] = (v as (string | Buffer)[]).map(String);
  return out;
}

function serviceDefinition(): grpc.ServiceDefinition {
  const def = loadProtocolDefinition()[INFERENCE_SERVICE] as grpc.ServiceDefinition;
  const infer = def['ModelInfer'] as grpc.MethodDefinition<unknown, unknown>;
  return {
    ...def,
    ModelInfer: {
      ...infer,
      requestDeserialize: (buf: Buffer) => decodeModelInferRequest(buf),
      responseSerialize: (v: unknown) => encodeModelInferResponse(v as ModelInferResponseMessage),
    },
  };
}

function fail(code: number, details: string): Partial<grpc.StatusObject> {
  return { code, details };
}

export function buildGrpcFront(opts: GrpcFrontOptions): GrpcFront {
  const log = opts.logger.child({ component: 'grpc' });
  const server = new grpc.Server({ 'grpc.max_receive_message_length': opts.maxMessageBytes, 'grpc.max_send_message_length': opts.maxMessageBytes });

  const modelInfer = (call: grpc.ServerUnaryCall<ModelInferRequestMessage, ModelInferResponseMessage>, cb: grpc.sendUnaryData<ModelInferResponseMessage>): void => {
    const controller = new AbortController();
    call.on('cancelled', () => controller.abort());
    const metadata = new grpc.Metadata();
    for (const [k, v] of Object.entries(propagatedHeaders(metadataHeaders(call.metadata), opts.propagate))) metadata.set(k, v);
    const wire = opts.metrics.observed(grpcWire(opts.channels, { request: call.request, metadata, timeoutMs: opts.stepTimeoutMs, signal: controller.signal }), 'grpc');
    new Routing(opts.spec, wire).route({ kind: 'request', msg: call.request }).then(
      (answer) => {
        const p = answer.payload;
        if (p.kind === 'response') {
          opts.metrics.request('grpc', answer.status);
          cb(null, p.msg);
        } else if (p.kind === 'error') {
          opts.metrics.request('grpc', httpOfGrpc(p.code));
          cb(fail(p.code, p.details));
        } else {
          opts.metrics.request('grpc', 500);
          cb(fail(grpc.status.INTERNAL, 'the graph answered a request, not a response'));
        }
      },
      (err: unknown) => {
        if (err instanceof RoutingError) {
          opts.metrics.request('grpc', err.status);
          log.warn({ cause: err.reason, status: err.status }, 'failed to process request');
          cb(fail(grpcOfHttp(err.status), err.reason));
          return;
        }
        log.error({ err }, 'router gRPC request failed');
        opts.metrics.request('grpc', 500);
        cb(fail(grpc.status.INTERNAL, err instanceof Error ? err.message : String(err)));
      },
    );
  };

  const ready = (_call: unknown, cb: grpc.sendUnaryData<{ ready: boolean }>): void => {
    opts.readiness().then(
      (s) => cb(null, { ready: s.ready }),
      () => cb(null, { ready: false }),
    );
  };

  server.addService(serviceDefinition(), {
    ModelInfer: modelInfer,
    ServerLive: (_call: unknown, cb: grpc.sendUnaryData<{ live: boolean }>) => cb(null, { live: true }),
    ServerReady: ready,
    ModelReady: ready,
  });

  return {
    listen: (host, port) =>
      new Promise<number>((resolve, reject) => {
        const address = host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
        server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err, bound) => (err ? reject(err) : resolve(bound)));
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.tryShutdown(() => resolve());
      }),
  };
}
