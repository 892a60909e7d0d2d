/**
 * The transport-neutral data plane: REST (V1, V2) and gRPC call these methods with decoded
 * neutral requests and encode whatever comes back. Nothing here knows a wire format.
 */
import { randomUUID } from 'node:crypto';
import { errors } from '../protocols/errors.js';
import { SIGNATURE_PARAMETER, selectSignature } from '../protocols/signature.js';
import type { InferRequest, InferResponse, ModelMetadata, Parameters, SignatureDef, TensorSpec } from '../protocols/tensor.js';
import type { V1Model } from '../protocols/v1/dialect.js';
import { type Metrics, since } from './metrics.js';
import type { ModelRepository, ServedVersion } from './repository/model-repository.js';
import { validateRequest } from './validate-request.js';

export interface ServerInfo {
  readonly name: string;
  readonly version: string;
}

export const EXTENSIONS = ['model_repository_extension', 'binary_tensor_data'] as const;

/**
 * The inputs and outputs a request runs against: those of the signature its `signature_name`
 * parameter selects, for models with named signatures; the model's own otherwise.
 */
function signatureOf(served: ServedVersion, parameters: Parameters | undefined): Pick<SignatureDef, 'inputs' | 'outputs'> {
  const signatures = served.instance.signatures;
  if (signatures === undefined || signatures.length === 0) return served;
  return selectSignature(signatures, parameters?.[SIGNATURE_PARAMETER]);
}

export class DataPlane {
  constructor(
    readonly repository: ModelRepository,
    readonly metrics: Metrics,
    readonly info: ServerInfo,
  ) {}

  live(): boolean {
    return true;
  }

  ready(): boolean {
    return this.repository.serverReady();
  }

  serverMetadata(): { name: string; version: string; extensions: string[] } {
    return { name: this.info.name, version: this.info.version, extensions: [...EXTENSIONS] };
  }

  listModels(): string[] {
    return this.repository.names();
  }

  /** Throws ModelNotFound for unknown models; false while loading, failed or unloading. */
  modelReady(name: string, version?: string): boolean {
    const st = this.repository.state(name);
    if (st === undefined) throw errors.modelNotFound(name);
    if (st.state !== 'READY') return false;
    this.repository.peek(name, version);
    return true;
  }

  /** Like modelReady, but a model that is not ready throws ModelNotReady with its failure cause. */
  assertModelReady(name: string, version?: string): void {
    if (!this.modelReady(name, version)) throw errors.modelNotReady(name, this.repository.state(name)?.reason);
  }

  /** Throws like modelReady; metadata needs a loaded model. */
  modelMetadata(name: string, version?: string): ModelMetadata {
    const served = this.repository.peek(name, version);
    return {
      name,
      versions: this.repository.versionsOf(name),
      platform: served.platform,
      inputs: served.inputs,
      outputs: served.outputs,
    };
  }

  /** Declared inputs of the default (or given) version; used by codecs that need a schema (V1). */
  modelInputs(name: string, version?: string): readonly TensorSpec[] {
    return this.repository.peek(name, version).inputs;
  }

  /**
   * The default version as a V1 dialect sees it, named signatures included; throws like
   * modelMetadata.
   */
  v1Model(name: string): V1Model {
    const served = this.repository.peek(name);
    const { platform, inputs, outputs, version } = served;
    const signatures = served.instance.signatures;
    return { name, version, platform, inputs, outputs, signatures: signatures?.length ? signatures : undefined };
  }

  /**
   * Runs one inference. The request's input buffers may be detached by the backend: callers
   * must not read them afterwards. Outputs come back filtered and ordered as requested.
   */
  async infer(name: string, version: string | undefined, request: InferRequest): Promise<InferResponse> {
    const lease = this.repository.acquire(name, version);
    try {
      const served = lease.served;
      const sig = signatureOf(served, request.parameters);
      validateRequest(name, request, sig.inputs, sig.outputs, served.config?.maxBatchSize ?? 0);
      // An empty `outputs` list asks for every output, as in the anchor (`if request_outputs:`).
      const requested = request.outputs !== undefined && request.outputs.length > 0 ? request.outputs : sig.outputs;
      const outputNames = requested.map((o) => o.name);
      const start = performance.now();
      const outputs = await served.instance.infer(request.inputs, outputNames, request.parameters);
      this.metrics.observe('predict', name, since(start));
      return {
        id: request.id ?? randomUUID(),
        modelName: name,
        modelVersion: served.version,
        outputs,
      };
    } finally {
      lease.release();
    }
  }

  /**
   * One inference as every transport runs it: decode, infer, encode, with the anchor's stage
   * histograms (preprocess = decode, predict, postprocess = encode). Stages are recorded
   * only for inferences that ran, so requests naming unknown models add no label series.
   */
  async inferStaged<D extends { readonly request: InferRequest; readonly version?: string | undefined }, T>(
    name: string,
    decode: () => D,
    encode: (response: InferResponse, decoded: D) => T,
  ): Promise<T> {
    // An unknown or unready model answers 404/503 whatever the body holds, as the anchor does.
    this.repository.peek(name);
    const start = performance.now();
    const decoded = decode();
    const decodeSeconds = since(start);
    const response = await this.infer(name, decoded.version, decoded.request);
    this.metrics.observe('preprocess', name, decodeSeconds);
    const encodeStart = performance.now();
    const encoded = encode(response, decoded);
    this.metrics.observe('postprocess', name, since(encodeStart));
    return encoded;
  }

  explain(name: string): never {
    this.repository.peek(name);
    throw errors.notImplemented(`Model ${name} does not support explain`);
  }

  load(name: string): Promise<void> {
    return this.repository.load(name);
  }

  unload(name: string): Promise<void> {
    return this.repository.unload(name);
  }
}
