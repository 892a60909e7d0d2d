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
 * session (onnxruntime-node runs off the loop). Hooks may be called concurrently for
 * different requests.
 *
 * Errors: throw the SDK's error classes (sdk-errors.ts); anything else is a 500 naming the
 * model, with the message but never the stack.
 */
import type { TensorSpec } from '../../protocols/tensor.js';
import type { InferRequest, InferResponse } from './infer-request.js';
import { NotImplemented } from './sdk-errors.js';

export type Awaitable<T> = T | Promise<T>;

/** Request headers (REST) or metadata (gRPC): lower-case names, one value each. */
export type RequestHeaders = Readonly<Record<string, string>>;
/** Headers a hook adds to the response (REST headers; gRPC initial metadata). */
export type ResponseHeaders = Record<string, string>;

export class Model {
  readonly name: string;
  /** True once loaded; a model that turns it false answers ModelNotReady until it turns true again. */
  ready = false;

  constructor(name: string) {
    this.name = name;
  }

  /** Loads weights, opens sessions. Default: ready at once. Return false (or throw) to fail the load. */
  load(): Awaitable<boolean | void> {
    this.ready = true;
    return true;
  }

  preprocess(request: InferRequest, _headers: RequestHeaders): Awaitable<InferRequest> {
    return request;
  }

  predict(_request: InferRequest, _headers: RequestHeaders, _responseHeaders: ResponseHeaders): Awaitable<InferResponse> {
    throw new NotImplemented(`Model ${this.name} does not implement predict`);
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

  /** Releases what `load` opened (KServe's `stop`). */
  unload(): Awaitable<void> {
    this.ready = false;
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
}
