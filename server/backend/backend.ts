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
import type { FlagSpec, Flags } from '../../cli/flags.js';
import type { Parameters, SignatureDef, Tensor, TensorSpec } from '../../protocols/tensor.js';
import type { InstanceKind, ModelConfig } from './model-config.js';
import type { ClientSignal } from '../client-signal.js';

/** What every backend gets at load, whatever its own options. */
export interface LoadContext {
  /** Threads one model's operators may use: --intra_op_threads, already divided among worker processes. */
  readonly threads: number;
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
  /**
   * Which instance of the version's instance group this load creates (config.pbtxt
   * `instance_group`); absent: the version's only instance, placed as the backend chooses
   * (KIND_AUTO). Backends that do not declare `instanceGroups` only ever get count 1 and
   * kind 'auto' or 'cpu'.
   */
  readonly instance?: InstanceSpec | undefined;
}

export interface InstanceSpec {
  /** 0-based position among the version's instances. */
  readonly index: number;
  /** The version's instances in all (every group's count, times its GPUs). */
  readonly count: number;
  readonly kind: InstanceKind;
  /** KIND_GPU with `gpus`: the device this instance runs on; undefined: the backend's configured device. */
  readonly gpu: number | undefined;
}

/**
 * Per-request facts beyond the tensors, for instances that hand them to user code (SDK
 * models, server/backends/custom/). File-backed backends ignore it. Transports fill
 * `headers` and send what the instance put in `responseHeaders` (REST headers, gRPC
 * initial metadata).
 */
export interface InferContext {
  readonly id: string | undefined;
  readonly parameters: Parameters | undefined;
  /** Request headers (REST) or metadata (gRPC), lower-case names, one value each. */
  readonly headers: Readonly<Record<string, string>>;
  readonly responseHeaders: Record<string, string>;
  /** Response-level parameters the instance sets (an SDK InferResponse's); sent by V2 REST and gRPC. */
  responseParameters?: Parameters | undefined;
  /**
   * Aborted when the client goes away (REST connection closed, gRPC call cancelled or past
   * its deadline). Instances that queue work drop it if it has not started (rejecting with
   * the Cancelled kind); work already running finishes and its answer is discarded.
   */
  readonly signal?: ClientSignal | undefined;
}

export interface ModelInstance {
  /** Platform string for V2 metadata, e.g. "onnxruntime_onnx". */
  readonly platform: string;
  /**
   * Where the model really runs once loaded, e.g. "cpu" or "cuda" (after any fallback), for
   * the kserve_model_info metric; undefined when a backend has no such choice.
   */
  readonly executionProvider?: string;
  readonly inputs: readonly TensorSpec[];
  readonly outputs: readonly TensorSpec[];
  /**
   * Named signatures (TensorFlow SignatureDefs), for models that have them; the default
   * first, and `inputs`/`outputs` describe it. A request chooses one with the
   * `signature_name` parameter (protocols/signature.ts); the request's scope selects it,
   * validates the request against it and, when the request names no outputs, asks for all of
   * its outputs. Models without signatures leave this undefined and ignore the parameter.
   */
  readonly signatures?: readonly SignatureDef[];
  /**
   * Runs one inference and returns the outputs named in `outputNames`, in that order.
   * `signature` is the name of the signature the request's scope resolved (once, from its
   * `signature_name` parameter; server/pipeline/verbs.ts), for models with `signatures`;
   * undefined otherwise. Backends look it up, never choose it again.
   */
  infer(inputs: readonly Tensor[], outputNames: readonly string[], signature?: string, context?: InferContext): Promise<Tensor[]>;
  /**
   * Explains one request (V1 `:explain`), for instances that can (SDK models): the result is
   * a JSON-serialisable document sent as the response body, as KServe's explainers answer.
   * Absent: the model does not explain (501).
   */
  explain?(inputs: readonly Tensor[], context: InferContext): Promise<unknown>;
  /**
   * Whether the model is fit to serve beyond being loaded, for readiness only (probes, V2
   * ready routes, gRPC health); inference does not ask it, as KServe's predict does not run
   * the predictor health check. A transformer with --enable_predictor_health_check answers
   * its predictor's last probed readiness. Absent: loaded means ready. Must not block.
   */
  healthy?(): boolean;
  /**
   * True for instances that check requests themselves: SDK models without getInputTypes
   * (they declare no inputs), text models (they take `text` or token ids instead, see
   * protocols/openai/text-tasks.ts). The scope then skips validation against `inputs`/`outputs`.
   */
  readonly validatesOwnInputs?: boolean;
  /**
   * Request parameters (InferContext.parameters) that change what the instance computes for
   * a row, e.g. a text model's `dimensions`. The dynamic batcher (server/batching) stacks only
   * requests that agree on them and runs their batch with them; other parameters, and a
   * request's headers and signal, never reach a batched call. Absent: none.
   */
  readonly batchParameters?: readonly string[];
  /** Releases native resources. Callers stop issuing `infer` first; pending calls may fail. */
  unload(): Promise<void>;
  /**
   * Registers a listener called once if the instance breaks on its own (e.g. its worker
   * thread dies) and can serve no more requests. Not called for `unload`.
   */
  onFailure(listener: (err: Error) => void): void;
}

/**
 * One model format's runtime. Backends own their options, as Triton's do:
 * - `flags`: the server flags it reads (e.g. onnx's --execution_providers), declared in the
 *   shared CLI table and parsed with the server's own at start-up; `settings` turns their
 *   values into its typed settings once, failing (FlagError) on a malformed value. A flag
 *   given on the command line is logged once as not applying when a model of another backend
 *   loads (model-repository.ts), never silently dropped.
 * - `modelOptions`: a model's options from those settings and its config.pbtxt `parameters`;
 *   a key it does not read, or a malformed value, refuses the load with a message naming it.
 * Methods, not function properties: a registry holds every backend as Backend<unknown, unknown>.
 */
/** A model no folder holds (an SDK model, a --model_module): the repository loads it by name like any other. */
export interface ProvidedModel {
  load(context: LoadContext): Promise<ModelInstance>;
}

export interface Backend<Settings = unknown, Options = unknown> {
  /** Registry key and config `backend` name, e.g. "onnx". */
  readonly name: string;
  /** Other names that select this backend: Triton `platform`/`backend` values. */
  readonly aliases: readonly string[];
  readonly flags: readonly FlagSpec[];
  /**
   * The backend whose flags this one reads as its own, for a backend that runs its models
   * through another (the text backend's graphs run in onnx instances): that backend's flags
   * are not reported as not applying to this one's models.
   */
  readonly flagsOf?: string;
  /**
   * What of config.pbtxt's `instance_group` this backend honours. `multiple`: `load` may be
   * called several times for one version, each call an independent instance that runs in
   * parallel with the others (its own session and thread); the repository sends each request
   * to a free one. `gpu`: a KIND_GPU instance is placed on its device (LoadSpec.instance).
   * Absent: one instance per version; the repository refuses a group that asks for more, or
   * for a GPU, naming the field.
   */
  readonly instanceGroups?: { readonly multiple: boolean; readonly gpu: boolean };
  /**
   * True: the repository runs TF Serving's warm-up records
   * (`<version>/assets.extra/tf_serving_warmup_requests`) on every instance before the
   * version is served, after config.pbtxt's `model_warmup`. Absent: the file is ignored.
   */
  readonly tfServingWarmup?: boolean;
  settings(flags: Flags): Settings;
  /**
   * Process-wide set-up, called on the main thread by createServer before any model loads or
   * any worker thread exists: the one place a backend may set environment that a native
   * library reads with getenv(). Never called while loading; must be idempotent (embedders
   * may create several servers in one process).
   */
  prepareProcess?(settings: Settings): void;
  modelOptions(settings: Settings, parameters: ReadonlyMap<string, string>): Options;
  /**
   * The model file this backend would load from `dir`, or undefined if none is there.
   * `files` are the names of the plain files in `dir`, listed once by the registry.
   */
  detect(dir: string, files: readonly string[]): Promise<string | undefined>;
  load(spec: LoadSpec, options: Options, context: LoadContext): Promise<ModelInstance>;
  /**
   * Models this backend serves from its flags rather than from a folder (the custom
   * backend's --model_module), by name; `server` is what the command line says of the single
   * model. A provided model named like --model_name takes --model_dir as its own (it is
   * then not loaded as a file-backed model).
   */
  providedModels?(settings: Settings, server: { readonly modelName: string; readonly modelDir: string | undefined }): ReadonlyMap<string, ProvidedModel>;
}
