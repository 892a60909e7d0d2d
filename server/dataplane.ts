/**
 * The transport-neutral data plane: REST (V1, V2) and gRPC call these methods and nothing
 * else of the server core. Nothing here knows a wire format. Inference goes through `open`,
 * which looks the model up once and hands back the request's scope (inference-scope.ts):
 *
 *   transport → open(name, version) → scope.decode(codec) → scope.infer → scope.encode(codec)
 *             → scope.release()
 */
import type { Logger } from 'pino';
import { errors } from '../protocols/errors.js';
import type { ModelMetadata, ModelView } from '../protocols/tensor.js';
import { InferenceScope, viewOf } from './inference-scope.js';
import { type Metrics, since } from './metrics.js';
import type { ModelRepository, ModelState } from './repository/model-repository.js';
import type { RequestLogger } from './request-logger/request-logger.js';

export interface ServerInfo {
  readonly name: string;
  readonly version: string;
}

export const EXTENSIONS = ['model_repository_extension', 'binary_tensor_data'] as const;

export class DataPlane {
  readonly #repository: ModelRepository;
  readonly #metrics: Metrics;
  readonly #info: ServerInfo;
  readonly #latencyLog: Logger | undefined;
  readonly #requestLogger: RequestLogger | undefined;
  #draining = false;

  /**
   * `latencyLog`: where each inference's stage latencies go (--enable_latency_logging);
   * `requestLogger`: where inference requests and responses are posted (--logger_url).
   * Absent: not logged.
   */
  constructor(repository: ModelRepository, metrics: Metrics, info: ServerInfo, latencyLog?: Logger, requestLogger?: RequestLogger) {
    this.#repository = repository;
    this.#metrics = metrics;
    this.#info = info;
    this.#latencyLog = latencyLog;
    this.#requestLogger = requestLogger;
  }

  live(): boolean {
    return true;
  }

  ready(): boolean {
    return !this.#draining && this.#repository.serverReady() && this.#repository.names().every((n) => this.#healthy(n));
  }

  /** A loaded model's own health (ModelInstance.healthy); models not loaded are the repository's business. */
  #healthy(name: string, version?: string): boolean {
    if (this.#repository.state(name)?.state !== 'READY') return true;
    return this.#repository.peek(name, version).instance.healthy?.() ?? true;
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

  /** The default version as codecs see it (e.g. TF Serving's metadata); throws like modelMetadata. */
  modelView(name: string): ModelView {
    return viewOf(name, this.#repository.peek(name));
  }

  /**
   * Opens one inference on the given (or default) version: the model is looked up and its
   * lease taken here, once. Throws ModelNotFound or ModelNotReady before anything of the
   * request is decoded, as the anchor answers 404/503 whatever the body holds. The caller
   * must `release` the scope (see inference-scope.ts for the contract).
   */
  open(name: string, version: string | undefined): InferenceScope {
    return new InferenceScope(name, this.#repository.acquire(name, version), this.#metrics, this.#latencyLog, this.#requestLogger);
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

  /**
   * No backend explains yet: a known, ready model answers NotImplemented. The attempt is
   * still timed as the explain stage, as the anchor's timer around `Model.explain` records
   * the calls that raise NotImplementedError.
   */
  explain(name: string): never {
    const start = performance.now();
    this.#repository.peek(name);
    this.#metrics.observe('explain', name, since(start));
    throw errors.notImplemented(`Model ${name} does not support explain`);
  }

  load(name: string): Promise<void> {
    return this.#repository.load(name);
  }

  unload(name: string): Promise<void> {
    return this.#repository.unload(name);
  }
}
