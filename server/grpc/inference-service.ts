/**
 * `inference.GRPCInferenceService` on the shared data plane. Handlers decode with the
 * protocols/grpc codec, call DataPlane and nothing else, and map failures through the
 * error catalogue (status.ts).
 *
 * ModelInfer serialises its own response (`encodeInferResponse`), so that the encode time
 * is measured as postprocess and an oversize response is refused with a clear
 * RESOURCE_EXHAUSTED and counted; grpc-server.ts makes the transport pass such
 * pre-encoded buffers through unchanged.
 */
import { Metadata, type ServerUnaryCall, type UntypedServiceImplementation, type handleUnaryCall } from '@grpc/grpc-js';
import { errors, toKServeError } from '../../protocols/errors.js';
import type { ModelInferRequestMessage, ModelInferResponseMessage, ModelMetadataResponseMessage } from '../../protocols/grpc/messages.js';
import { type ModelRepositoryParameterMessage, decodeGrpcLoadParameters } from '../../protocols/grpc/repository-load.js';
import type { GrpcContext } from './context.js';
import { toGrpcStatus } from './status.js';
import { isUndecodable, undecodableError, undecodableReason } from './undecodable.js';
import type { ClientSignal } from '../client-signal.js';
import { infer } from '../pipeline/verbs.js';
import { modelInferCodec } from './infer-codec.js';

interface ModelRef {
  name?: string;
  version?: string;
}
interface RepositoryRef {
  model_name?: string;
  /** Field 2: where Triton's clients put the model name. */
  triton_model_name?: string;
}
interface RepositoryLoadRef extends RepositoryRef {
  /** Field 3: Triton's load parameters (its config override). */
  parameters?: Record<string, ModelRepositoryParameterMessage>;
}

const versionOf = (v: string | undefined): string | undefined => (v ? v : undefined);

/** Request metadata for a model's hooks (SDK models): text entries only, one value per key. */
export function metadataHeaders(md: Metadata): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [k, v] of Object.entries(md.getMap())) if (typeof v === 'string') out[k] = v;
  return out;
}

/** The headers a model set, as gRPC metadata (sent with the response headers). */
export function modelMetadata(headers: Readonly<Record<string, string>>): Metadata | undefined {
  const entries = Object.entries(headers);
  if (entries.length === 0) return undefined;
  const md = new Metadata();
  for (const [k, v] of entries) md.set(k.toLowerCase(), v);
  return md;
}

/**
 * One ModelInfer call as the runner needs it, whichever layer serves it: grpc-js's unary
 * handler, or the direct path below grpc-js (direct-unary.ts).
 */
export interface InferCall {
  /** The request's text metadata. */
  readonly headers: Readonly<Record<string, string>>;
  /** True once the client is gone (cancelled, or past its deadline). */
  readonly cancelled: boolean;
  /** Sends the model's response headers as the call's initial metadata (before the message). */
  sendHeaders(md: Metadata): void;
}

export type ModelInferRunner = (req: ModelInferRequestMessage, call: InferCall) => Promise<Buffer>;

function requireModelName(name: string | undefined): string {
  if (!name) throw errors.invalidInput(`'model_name' must not be empty`);
  return name;
}

/** A call's ClientSignal (a class: an object literal with a getter is built on V8's slow path). */
class CallSignal implements ClientSignal {
  constructor(private readonly call: { readonly cancelled: boolean }) {}

  get aborted(): boolean {
    return this.call.cancelled;
  }
}

/**
 * ModelInfer on the data plane: the decoded message in, the serialised response out, with
 * the request counted and the response size checked. Shared by both layers that serve it.
 */
export function modelInferRunner(ctx: GrpcContext, encodeInferResponse: (msg: ModelInferResponseMessage) => Buffer): ModelInferRunner {
  const { dataplane, metrics, maxSendMessageLength, decodeLimits } = ctx;
  const codec = modelInferCodec(decodeLimits, encodeInferResponse);

  /**
   * Counts a request unless the model name is unknown: names come from clients (bounded label
   * cardinality). `status_code` is the HTTP status of the outcome's catalogue kind, as for
   * REST, so one query covers every protocol (see docs/compatibility.md).
   */
  function count(name: string, httpStatus: number): void {
    if (dataplane.knows(name)) metrics.countRequest(name, 'grpc', httpStatus);
  }

  return async (req, call) => {
    const name = req.model_name ?? '';
    try {
      const answer = await dataplane.run({
        name,
        version: versionOf(req.model_version),
        transport: 'grpc',
        verb: infer,
        codec,
        input: req,
        headers: call.headers,
        signal: new CallSignal(call),
      });
      const md = modelMetadata(answer.responseHeaders);
      if (md !== undefined) call.sendHeaders(md);
      const bytes = answer.message.body;
      if (maxSendMessageLength >= 0 && bytes.byteLength > maxSendMessageLength) {
        throw errors.responseTooLarge(bytes.byteLength, maxSendMessageLength, '--grpc_max_send_message_length');
      }
      count(name, 200);
      return bytes;
    } catch (err) {
      count(name, toKServeError(err).httpStatus);
      throw err;
    }
  };
}

/** A grpc-js unary call as the runner's InferCall (cancelled: by the client or its deadline). */
class GrpcJsInferCall implements InferCall {
  readonly headers: Readonly<Record<string, string>>;

  constructor(private readonly call: ServerUnaryCall<ModelInferRequestMessage, Buffer>) {
    this.headers = metadataHeaders(call.metadata);
  }

  get cancelled(): boolean {
    return this.call.cancelled;
  }

  sendHeaders(md: Metadata): void {
    this.call.sendMetadata(md);
  }
}

export function inferenceService(ctx: GrpcContext, runModelInfer: ModelInferRunner): UntypedServiceImplementation {
  const { dataplane, logger } = ctx;

  function unary<Req, Res>(method: string, fn: (req: Req, call: ServerUnaryCall<Req, Res>) => Res | Promise<Res>): handleUnaryCall<Req, Res> {
    return (call, callback) => {
      Promise.resolve()
        .then(() => {
          const req: unknown = call.request;
          if (isUndecodable(req)) throw undecodableError(method, undecodableReason(req));
          return fn(req as Req, call);
        })
        .then(
          (res) => callback(null, res),
          (err: unknown) => callback(toGrpcStatus(err, logger, method)),
        );
    };
  }

  return {
    ServerLive: unary('ServerLive', () => ({ live: dataplane.live() })),
    ServerReady: unary('ServerReady', () => ({ ready: dataplane.ready() })),
    ModelReady: unary('ModelReady', (r: ModelRef) => ({
      ready: dataplane.modelReady(r.name ?? '', versionOf(r.version)),
    })),
    ServerMetadata: unary('ServerMetadata', () => dataplane.serverMetadata()),
    ModelMetadata: unary('ModelMetadata', (r: ModelRef): ModelMetadataResponseMessage => {
      const m = dataplane.modelMetadata(r.name ?? '', versionOf(r.version));
      const spec = (t: (typeof m.inputs)[number]) => ({ name: t.name, datatype: t.datatype, shape: [...t.shape] });
      return {
        name: m.name,
        versions: [...m.versions],
        platform: m.platform,
        inputs: m.inputs.map(spec),
        outputs: m.outputs.map(spec),
      };
    }),
    ModelInfer: unary('ModelInfer', (req: ModelInferRequestMessage, call: ServerUnaryCall<ModelInferRequestMessage, Buffer>) => runModelInfer(req, new GrpcJsInferCall(call))),
    RepositoryModelLoad: unary('RepositoryModelLoad', async (r: RepositoryLoadRef) => {
      const name = requireModelName(r.triton_model_name || r.model_name);
      await dataplane.load(name, decodeGrpcLoadParameters(r.parameters));
      return { model_name: name, isLoaded: true };
    }),
    RepositoryModelUnload: unary('RepositoryModelUnload', async (r: RepositoryRef) => {
      const name = requireModelName(r.triton_model_name || r.model_name);
      await dataplane.unload(name);
      return { model_name: name, isUnloaded: true };
    }),
    // Triton's extensions: the documents are the messages (protocols/triton-documents.ts).
    ModelConfig: unary('ModelConfig', (r: ModelRef) => ({ config: dataplane.modelConfig(r.name ?? '', versionOf(r.version)) })),
    // An empty name asks for every loaded model, as in Triton.
    ModelStatistics: unary('ModelStatistics', (r: ModelRef) => ({ model_stats: dataplane.modelStatistics(r.name || undefined, r.name ? versionOf(r.version) : undefined) })),
  };
}
