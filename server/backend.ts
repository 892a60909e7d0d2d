/**
 * The backend boundary, in three lifetimes (after Triton's backend API):
 * - Backend: one per model format, registered once at start-up; stateless.
 * - ModelInstance: one per loaded model version. `load` validates and fails loudly
 *   (a rejected promise whose message names the cause); a failed load leaves nothing behind.
 * - infer: executes one request. Implementations must not block the caller's event loop
 *   (run native work on another thread) and may be called concurrently; they queue or
 *   parallelise internally. Inputs arrive already validated against `inputs` (or, for a
 *   model with `signatures`, against the inputs of the signature the request selected), and
 *   `outputNames` name outputs that exist there.
 *
 * Ownership: `infer` may detach (transfer) the ArrayBuffers of input tensors; the caller
 * must not read the inputs after calling it. Returned outputs belong to the caller.
 * Backends never see wire formats; they speak the neutral tensor types only.
 */
import type { Logger } from 'pino';
import type { Parameters, SignatureDef, Tensor, TensorSpec } from '../protocols/tensor.js';
import type { ModelConfig } from './repository/model-config.js';

export interface LoadOptions {
  /** Ordered preference, e.g. ['cuda', 'cpu']; a backend falls back along the list. */
  readonly executionProviders: readonly string[];
  /** Threads for one operator's parallel work; 0 lets the runtime decide. */
  readonly intraOpThreads: number;
  readonly interOpThreads: number;
  /**
   * A model whose warm-up inference takes at most this many microseconds may also run small
   * requests on the main thread (no worker hand-off); 0 keeps every request off the event loop.
   */
  readonly inlineMaxMicros: number;
  readonly logger: Logger;
}

export interface LoadSpec {
  readonly modelName: string;
  /** Version label ('1', '2', ...) or undefined for an unversioned model folder. */
  readonly version: string | undefined;
  /** Folder holding the model's files for this version. */
  readonly dir: string;
  /** The file `detect` found in `dir`. */
  readonly file: string;
  readonly config: ModelConfig | undefined;
}

export interface ModelInstance {
  /** Platform string for V2 metadata, e.g. "onnxruntime_onnx". */
  readonly platform: string;
  readonly inputs: readonly TensorSpec[];
  readonly outputs: readonly TensorSpec[];
  /**
   * Named signatures (TensorFlow SignatureDefs), for models that have them; the default
   * first, and `inputs`/`outputs` describe it. A request chooses one with the
   * `signature_name` parameter (protocols/signature.ts); the data plane selects it, validates
   * the request against it and, when the request names no outputs, asks for all of its
   * outputs. Models without signatures leave this undefined and ignore the parameter.
   */
  readonly signatures?: readonly SignatureDef[];
  /**
   * Runs one inference and returns the outputs named in `outputNames`, in that order.
   * `parameters` are the request's protocol parameters, for backends that take options per
   * request (e.g. a signature name); backends ignore the ones they do not know.
   */
  infer(inputs: readonly Tensor[], outputNames: readonly string[], parameters?: Parameters): Promise<Tensor[]>;
  /** Releases native resources. Callers stop issuing `infer` first; pending calls may fail. */
  unload(): Promise<void>;
  /**
   * Registers a listener called once if the instance breaks on its own (e.g. its worker
   * thread dies) and can serve no more requests. Not called for `unload`.
   */
  onFailure(listener: (err: Error) => void): void;
}

export interface Backend {
  /** Registry key and config `backend` name, e.g. "onnx". */
  readonly name: string;
  /** Other names that select this backend: Triton `platform`/`backend` values. */
  readonly aliases: readonly string[];
  /**
   * The model file this backend would load from `dir`, or undefined if none is there.
   * `files` are the names of the plain files in `dir`, listed once by the registry.
   */
  detect(dir: string, files: readonly string[]): Promise<string | undefined>;
  load(spec: LoadSpec, options: LoadOptions): Promise<ModelInstance>;
}
