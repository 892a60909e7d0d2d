/**
 * Per-model configuration, as the repository hands it to the backend that loads the model
 * (LoadSpec.config, backend.ts): the subset of Triton's `config.pbtxt` this server
 * honours, read by server/repository/config-pbtxt.ts. Part of the backend contract, so the
 * contract imports nothing from the repository.
 */
import type { Datatype } from '../../protocols/datatypes.js';
import type { TensorSpec } from '../../protocols/tensor.js';

/** Triton's instance kinds: KIND_AUTO (and KIND_MODEL) leave the placement to the backend. */
export type InstanceKind = 'auto' | 'cpu' | 'gpu';

export interface DynamicBatchingConfig {
  readonly preferredBatchSizes: readonly number[];
  readonly maxQueueDelayMicroseconds: number;
}

/**
 * Which numeric version folders are loaded (Triton's `version_policy`): the `numVersions`
 * highest, every one, or the listed ones that exist.
 */
export type VersionPolicy =
  { readonly kind: 'latest'; readonly numVersions: number } | { readonly kind: 'all' } | { readonly kind: 'specific'; readonly versions: readonly string[] };

/** One `instance_group` entry: `count` instances of `kind`, on each of `gpus` for KIND_GPU. */
export interface InstanceGroupConfig {
  readonly name: string | undefined;
  readonly count: number;
  readonly kind: InstanceKind;
  /** Device ids; empty: the backend's configured device. */
  readonly gpus: readonly number[];
}

/** Where one warm-up input's values come from (Triton's ModelWarmup.Input oneof). */
export type WarmupData = { readonly kind: 'zero' } | { readonly kind: 'random' } | { readonly kind: 'file'; readonly file: string };

export interface WarmupInput {
  readonly name: string;
  readonly datatype: Datatype;
  /** Without the batch dimension when max_batch_size > 0, as in Triton. */
  readonly dims: readonly number[];
  readonly data: WarmupData;
}

/** One `model_warmup` sample: `inputs` at `batchSize`, run `count` times on every instance. */
export interface WarmupSample {
  readonly name: string;
  readonly batchSize: number;
  readonly inputs: readonly WarmupInput[];
  readonly count: number;
}

export interface ModelConfig {
  readonly name: string | undefined;
  /** Backend name or Triton platform/backend value, e.g. "onnxruntime_onnx". */
  readonly backend: string | undefined;
  /** >0: the first dimension of every input and output is a batch dimension of at most this size. */
  readonly maxBatchSize: number;
  /** Shapes here exclude the batch dimension when maxBatchSize > 0, as in Triton. */
  readonly inputs: readonly TensorSpec[] | undefined;
  readonly outputs: readonly TensorSpec[] | undefined;
  readonly dynamicBatching: DynamicBatchingConfig | undefined;
  /** `instance_group` entries; empty: one instance of KIND_AUTO. */
  readonly instanceGroups: readonly InstanceGroupConfig[];
  /** `model_warmup` samples, run on every instance before the version is READY; empty: none. */
  readonly warmup: readonly WarmupSample[];
  /** `parameters { key: "k" value { string_value: "v" } }` entries. */
  readonly parameters: ReadonlyMap<string, string>;
  /** undefined: no `version_policy` in the file, so the server's default (every version). */
  readonly versionPolicy: VersionPolicy | undefined;
  /** TF Serving's `version_labels { key: "stable" value: 1 }`: label → numeric version. */
  readonly versionLabels: ReadonlyMap<string, string>;
  /** Fields present in the file that this server does not act on. */
  readonly ignoredFields: readonly string[];
}
