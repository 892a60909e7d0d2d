/**
 * gRPC to the graph's steps: one grpc-js channel per target for the router's life,
 * ModelInfer sent and received through the hand-written wire codec (protocols/grpc/wire),
 * so raw tensor contents go out as the bytes that came in. The step's gRPC target is the
 * host of its serviceUrl with the step gRPC port (`--step_grpc_port`, kserve-ts's 8081),
 * or the target `--step_grpc_targets` maps the URL's origin to; the model is the one the
 * URL names (`/v2/models/{m}[/versions/{v}]/infer`, `/v1/models/{m}:predict`), else the
 * request's own.
 */
import * as grpc from '@grpc/grpc-js';
import type { ModelInferRequestMessage, ModelInferResponseMessage } from '../../protocols/grpc/messages.js';
import { INFERENCE_SERVICE } from '../../protocols/grpc/proto.js';
import { decodeModelInferResponse } from '../../protocols/grpc/wire/decode-infer.js';
import { encodeModelInferRequest } from '../../protocols/grpc/wire/encode-infer.js';

const MODEL_INFER = `/${INFERENCE_SERVICE}/ModelInfer`;

/** grpc-js receives 4 MiB by default; a step's answer may be larger. */
const MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

export interface GrpcStepTarget {
  readonly target: string;
  /** undefined: the request's own model name. */
  readonly model: string | undefined;
  readonly version: string | undefined;
}

export type GrpcOutcome = { readonly ok: true; readonly msg: ModelInferResponseMessage } | { readonly ok: false; readonly code: number; readonly details: string };

export class StepChannels {
  readonly #clients = new Map<string, grpc.Client>();

  constructor(
    private readonly stepPort: number,
    private readonly targets: ReadonlyMap<string, string>,
  ) {}

  /** Where a serviceUrl's step is reached over gRPC, or undefined when the URL does not parse. */
  resolve(serviceUrl: string): GrpcStepTarget | undefined {
    let url: URL;
    try {
      url = new URL(serviceUrl);
    } catch {
      return undefined;
    }
    // hostname keeps an IPv6 address in brackets, as a gRPC target wants it.
    const target = this.targets.get(url.origin) ?? `${url.hostname}:${this.stepPort}`;
    const v2 = /^\/v2\/models\/([^/]+)(?:\/versions\/([^/]+))?\/infer$/.exec(url.pathname);
    const v1 = /^\/v1\/models\/([^/:]+):predict$/.exec(url.pathname);
    const model = v2?.[1] ?? v1?.[1];
    return { target, model: model === undefined ? undefined : decodeURIComponent(model), version: v2?.[2] === undefined ? undefined : decodeURIComponent(v2[2]) };
  }

  #client(target: string): grpc.Client {
    let c = this.#clients.get(target);
    if (c === undefined) {
      c = new grpc.Client(target, grpc.credentials.createInsecure(), {
        'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
        'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
      });
      this.#clients.set(target, c);
    }
    return c;
  }

  /** One ModelInfer; every gRPC status comes back as an outcome. */
  infer(target: string, msg: ModelInferRequestMessage, metadata: grpc.Metadata, timeoutMs: number | undefined, signal: AbortSignal): Promise<GrpcOutcome> {
    return new Promise((resolve) => {
      const options: grpc.CallOptions = timeoutMs === undefined ? {} : { deadline: Date.now() + timeoutMs };
      const call = this.#client(target).makeUnaryRequest(MODEL_INFER, encodeModelInferRequest, decodeModelInferResponse, msg, metadata, options, (err, res) => {
        signal.removeEventListener('abort', cancel);
        if (err !== null) resolve({ ok: false, code: err.code, details: err.details });
        else resolve({ ok: true, msg: res as ModelInferResponseMessage });
      });
      const cancel = (): void => call.cancel();
      signal.addEventListener('abort', cancel, { once: true });
    });
  }

  close(): void {
    for (const c of this.#clients.values()) c.close();
  }
}
