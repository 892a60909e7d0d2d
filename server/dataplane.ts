/**
 * The transport-neutral data plane: REST (V1, V2) and gRPC call these methods and nothing
 * else of the server core. Nothing here knows a wire format. Every inference, whatever its
 * transport and verb, is one `run` of the request pipeline (pipeline/pipeline.ts) with the
 * transport's codec (a value) and the verb (pipeline/verbs.ts).
 */
import { errors } from '../protocols/errors.js';
import type { ModelMetadata, ModelView } from '../protocols/tensor.js';
import type { ModelConfigDocument, ModelStatisticsDocument } from '../protocols/triton-documents.js';
import type { LoadParameters } from '../protocols/v2/repository-load.js';
import type { Decoded, WireMessage } from './pipeline/codec.js';
import { viewOf } from './pipeline/model-view.js';
import { type Answer, type Call, Pipeline, type PipelineOptions, type StreamAnswer, type StreamCall } from './pipeline/pipeline.js';
import { effectiveConfig } from './repository/effective-config.js';
import { loadOverride } from './repository/load-override.js';
import type { ModelRepository, ModelState } from './repository/model-repository.js';

export interface ServerInfo {
  readonly name: string;
  readonly version: string;
}

/** Advertised in server metadata; `model_configuration` and `statistics` are Triton's names for its extensions. */
export const EXTENSIONS = ['model_repository_extension', 'binary_tensor_data', 'model_configuration', 'statistics'] as const;

export class DataPlane {
  readonly #repository: ModelRepository;
  readonly #info: ServerInfo;
  readonly #pipeline: Pipeline;
  #draining = false;
  /** Holds on readiness (the entry point's, while its listeners bind). */
  #held = 0;

  /** `pipeline`: metrics and the latency and request loggers every inference goes through. */
  constructor(repository: ModelRepository, info: ServerInfo, pipeline: PipelineOptions) {
    this.#repository = repository;
    this.#info = info;
    this.#pipeline = new Pipeline(repository, pipeline);
  }

  live(): boolean {
    return true;
  }

  ready(): boolean {
    return !this.#draining && this.#held === 0 && this.#repository.serverReady() && this.#repository.names().every((n) => this.#healthy(n));
  }

  /** A loaded model's own health (ModelInstance.healthy); models not loaded are the repository's business. */
  #healthy(name: string, version?: string): boolean {
    if (this.#repository.state(name)?.state !== 'READY') return true;
    return this.#repository.peek(name, version).instance.healthy?.() ?? true;
  }

  /**
   * Readiness stays false until the returned function is called: `listen` holds it until
   * every listener is bound, so a server missing one of its ports never reports ready.
   */
  hold(): () => void {
    this.#held++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#held--;
    };
  }

  /** Readiness turns false for good (shutdown has begun); requests are still served. */
  drain(): void {
    this.#draining = true;
  }

  serverMetadata(): { name: string; version: string; extensions: string[] } {
    return { name: this.#info.name, version: this.#info.version, extensions: [...EXTENSIONS] };
  }

  listModels(): string[] {
    return this.#repository.names();
  }

  /** Throws ModelNotFound for unknown models; false while loading, failed or unloading. */
  modelReady(name: string, version?: string): boolean {
    const st = this.#repository.state(name);
    if (st === undefined) throw errors.modelNotFound(name);
    if (st.state !== 'READY') return false;
    return this.#healthy(name, version);
  }

  /** Like modelReady, but a model that is not ready throws ModelNotReady with its failure cause. */
  assertModelReady(name: string, version?: string): void {
    if (!this.modelReady(name, version)) throw errors.modelNotReady(name, this.#repository.state(name)?.reason);
  }

  /** Throws like modelReady; metadata needs a loaded model. */
  modelMetadata(name: string, version?: string): ModelMetadata {
    const served = this.#repository.peek(name, version);
    return {
      name,
      versions: this.#repository.versionsOf(name),
      platform: served.platform,
      inputs: served.inputs,
      outputs: served.outputs,
    };
  }

  /** Triton's model configuration extension: the configuration the version runs with; throws like modelMetadata. */
  modelConfig(name: string, version?: string): ModelConfigDocument {
    return effectiveConfig(name, this.#repository.peek(name, version));
  }

  /**
   * Triton's statistics extension, one document per loaded version: of every model (no
   * name), of one model (no version) or of one version. Throws like modelMetadata for a
   * named model or version.
   */
  modelStatistics(name?: string, version?: string): ModelStatisticsDocument[] {
    return this.#repository.servedVersions(name, version).map((v) => v.statistics.document(v.modelName, v.version ?? ''));
  }

  /** The given (or default) version as codecs see it (e.g. TF Serving's metadata); throws like modelMetadata. */
  modelView(name: string, version?: string): ModelView {
    return viewOf(name, this.#repository.peek(name, version));
  }

  /** One version's state (a number or a label), for TF Serving's model status API; see ModelRepository.versionStatus. */
  versionStatus(name: string, selector: string): { version: string; state: ModelState; reason: string | undefined } {
    return this.#repository.versionStatus(name, selector);
  }

  /**
   * Runs one inference on the given (or default) version through the pipeline. Throws
   * ModelNotFound or ModelNotReady before anything of the request is decoded, as the anchor
   * answers 404/503 whatever the body holds; catalogue errors otherwise.
   */
  run<In, D extends Decoded, R, Out extends WireMessage>(call: Call<In, D, R, Out>): Promise<Answer<Out>> {
    return this.#pipeline.run(call);
  }

  /** Like `run`, for a verb that answers with a sequence (see Pipeline.stream). */
  stream<In, D extends Decoded, R, Out extends WireMessage>(call: StreamCall<In, D, R, Out>): Promise<StreamAnswer<Out>> {
    return this.#pipeline.stream(call);
  }

  /** Whether the server knows the model at all (whatever its state): bounds metric labels to known names. */
  knows(name: string): boolean {
    return this.#repository.state(name) !== undefined;
  }

  /** Every known model with its state and versions, for the repository index. */
  modelStates(): Array<{ name: string; state: ModelState; reason: string | undefined; versions: string[] }> {
    return this.#repository.names().map((name) => {
      const st = this.#repository.state(name);
      return { name, state: st?.state ?? 'FAILED', reason: st?.reason, versions: this.#repository.versionsOf(name) };
    });
  }

  /** Loads or reloads a model; `parameters` may carry a config override (load-override.ts), refused with InvalidInput before anything loads. */
  async load(name: string, parameters?: LoadParameters): Promise<void> {
    return this.#repository.load(name, loadOverride(name, parameters));
  }

  unload(name: string): Promise<void> {
    return this.#repository.unload(name);
  }
}
