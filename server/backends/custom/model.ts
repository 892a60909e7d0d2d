/**
 * The custom-model base class, KServe's `kserve.Model` in TypeScript casing. A subclass
 * overrides the hooks it needs; each may be sync or async.
 *
 * Lifecycle (as KServe's): the server calls `load()` once before the model is served; the
 * model is served once `load()` has returned true (or nothing) and `ready` is true. Per
 * request: `preprocess` → `predict` → `postprocess`, each given the request headers;
 * `predict` and `postprocess` may set response headers. `unload()` runs at shutdown or when
 * the model is unloaded through the repository API, after in-flight requests drained.
 *
 * Threading: hooks run on the server's main thread (its event loop, as KServe's asyncio
 * loop). Await I/O freely; CPU-heavy work that blocks for long delays health checks and
 * every other model, so move it to a worker thread (node:worker_threads) or a native
 * session (onnxruntime-node runs off the loop), or serve the module with
 * `--model_module_worker`, which runs its hooks in a worker thread of their own. Hooks may
 * be called concurrently for different requests, in either mode.
 *
 * Errors: throw the SDK's error classes (sdk-errors.ts); anything else is a 500 naming the
 * model, with the message but never the stack.
 *
 * Transformer mode (KServe's `Model(name, predictor_config)`): a model constructed with
 * `{ predictor }` (the `--predictor_*` flags arrive as ModelFactoryOptions.predictor) has a
 * default `predict` that forwards the preprocessed request to that predictor over V1, V2
 * REST or V2 gRPC (server/predictor-client/), under the model's own name, with the request
 * id, B3 trace id and authorization headers; its answer goes to `postprocess`. Without a
 * predictor the default `predict` is NotImplemented (501), as KServe's.
 *
 * Cancellation: `request.signal.aborted` turns true once the client has gone away
 * (InferRequest.signal); the forwarded call is aborted then. Hooks doing long I/O may check it.
 */
import type { TensorSpec } from '../../../protocols/tensor.js';
import type { PredictorClient } from '../../predictor-client/predictor-client.js';
import { createPredictorClient } from '../../predictor-client/predictor-clients.js';
import type { PredictorConfig } from '../../predictor-client/predictor-config.js';
import { forwardToPredictor } from './forward-to-predictor.js';
import type { InferRequest, InferResponse, RequestHeaders, ResponseHeaders } from './infer-request.js';
import { NotImplemented } from './sdk-errors.js';

export type Awaitable<T> = T | Promise<T>;

/** The second argument of the Model constructor (KServe's `predictor_config`). */
export interface ModelOptions {
  /** Makes the model a transformer: the default `predict` forwards to this predictor. */
  readonly predictor?: PredictorConfig | undefined;
}

export class Model {
  readonly name: string;
  /** True once loaded; a model that turns it false answers ModelNotReady until it turns true again. */
  ready = false;
  /** Where the default `predict` forwards (transformer mode); undefined for a predictor. */
  readonly predictorConfig: PredictorConfig | undefined;
  #predictor: PredictorClient | undefined;

  constructor(name: string, options: ModelOptions = {}) {
    this.name = name;
    this.predictorConfig = options.predictor;
  }

  /** The pooled client of the configured predictor, made on first use; undefined without one. */
  protected get predictor(): PredictorClient | undefined {
    if (this.#predictor === undefined && this.predictorConfig !== undefined) this.#predictor = createPredictorClient(this.predictorConfig);
    return this.#predictor;
  }

  /** Loads weights, opens sessions. Default: ready at once. Return false (or throw) to fail the load. */
  load(): Awaitable<boolean | void> {
    this.ready = true;
    return true;
  }

  preprocess(request: InferRequest, _headers: RequestHeaders): Awaitable<InferRequest> {
    return request;
  }

  /** Default: forwards to the predictor (transformer mode); NotImplemented without one. */
  predict(request: InferRequest, headers: RequestHeaders, responseHeaders: ResponseHeaders): Awaitable<InferResponse> {
    const client = this.predictor;
    if (client === undefined) throw new NotImplemented(`Model ${this.name} does not implement predict (and has no predictor_host to forward to)`);
    return forwardToPredictor(client, this.name, request, headers, responseHeaders);
  }

  postprocess(response: InferResponse, _headers: RequestHeaders, _responseHeaders: ResponseHeaders): Awaitable<InferResponse> {
    return response;
  }

  /**
   * V1 `:explain`: a JSON-serialisable document (KServe's explainers answer a dict, e.g.
   * `{"explanations": ...}`), or an InferResponse, sent as V2-style JSON outputs.
   */
  explain(_request: InferRequest, _headers: RequestHeaders): Awaitable<InferResponse | Record<string, unknown>> {
    throw new NotImplemented(`Model ${this.name} does not support explain`);
  }

  /**
   * Declared inputs (V2 metadata; request validation; V1 `instances` decoding needs them).
   * Empty (the default, as KServe's get_input_types): any V2 inputs are handed to the model
   * unvalidated, and the model checks them itself.
   */
  getInputTypes(): TensorSpec[] {
    return [];
  }

  /** Declared outputs (V2 metadata; a client may then request a subset). */
  getOutputTypes(): TensorSpec[] {
    return [];
  }

  /**
   * The model's health, KServe's `healthy()`: `ready`, and with the predictor health check
   * (`--enable_predictor_health_check`) also the predictor server's readiness.
   */
  async healthy(): Promise<boolean> {
    if (!this.ready) return false;
    if (this.predictorConfig?.healthCheck !== true) return true;
    return (await this.predictor?.ready()) ?? false;
  }

  /** Releases what `load` opened (KServe's `stop`); closes the predictor's connections. */
  unload(): Awaitable<void> {
    this.ready = false;
    const client = this.#predictor;
    this.#predictor = undefined;
    return client?.close();
  }
}

/** What a `--model_module` exports: a Model subclass, or a factory of one. */
export type ModelFactory = (options: ModelFactoryOptions) => Awaitable<Model>;
export type ModelClass = new (name: string, options: ModelFactoryOptions) => Model;

export interface ModelFactoryOptions {
  /** --model_name */
  readonly name: string;
  /** --model_dir, where the storage-initializer put the model's files (KServe's /mnt/models); undefined when not given. */
  readonly modelDir: string | undefined;
  /** The --predictor_* flags, when --predictor_host is given: pass it on, `super(name, options)`. */
  readonly predictor?: PredictorConfig | undefined;
}
