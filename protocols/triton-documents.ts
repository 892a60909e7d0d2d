/**
 * Triton's model configuration and statistics documents (extension_model_configuration.md,
 * extension_statistics.md): one shape for the REST JSON and the gRPC messages, whose field
 * names (grpc_predict_v2.proto: ModelConfig, ModelStatistics) are the JSON keys, as Triton
 * writes them. Integers are numbers in both (Triton's JSON writes 64-bit fields as numbers
 * too); enums are their names.
 */

export interface ModelTensorConfig {
  readonly name: string;
  /** TYPE_FP32, ...; BYTES is TYPE_STRING (datatypes.ts, tritonType). */
  readonly data_type: string;
  readonly dims: readonly number[];
}

export type VersionPolicy =
  { readonly latest: { readonly num_versions: number } } | { readonly all: Record<string, never> } | { readonly specific: { readonly versions: readonly number[] } };

export interface ModelConfigDocument {
  readonly name: string;
  readonly platform: string;
  readonly backend: string;
  readonly version_policy: VersionPolicy;
  readonly max_batch_size: number;
  readonly input: readonly ModelTensorConfig[];
  readonly output: readonly ModelTensorConfig[];
  readonly dynamic_batching?: { readonly preferred_batch_size: readonly number[]; readonly max_queue_delay_microseconds: number };
  readonly instance_group: ReadonlyArray<InstanceGroup>;
  readonly parameters: Readonly<Record<string, { readonly string_value: string }>>;
}

/** Triton's ModelInstanceGroup as a served version reports it: the kind it resolved to, and the devices of a KIND_GPU group that named them. */
export interface InstanceGroup {
  readonly name: string;
  readonly kind: 'KIND_CPU' | 'KIND_GPU';
  readonly count: number;
  readonly gpus?: readonly number[];
}

export interface StatisticDuration {
  readonly count: number;
  readonly ns: number;
}

export interface InferStatistics {
  readonly success: StatisticDuration;
  readonly fail: StatisticDuration;
  readonly queue: StatisticDuration;
  readonly compute_input: StatisticDuration;
  readonly compute_infer: StatisticDuration;
  readonly compute_output: StatisticDuration;
  readonly cache_hit: StatisticDuration;
  readonly cache_miss: StatisticDuration;
}

export interface InferBatchStatistics {
  readonly batch_size: number;
  readonly compute_input: StatisticDuration;
  readonly compute_infer: StatisticDuration;
  readonly compute_output: StatisticDuration;
}

export interface ModelStatisticsDocument {
  readonly name: string;
  readonly version: string;
  /** Milliseconds since the epoch; 0 before the first request. */
  readonly last_inference: number;
  readonly inference_count: number;
  readonly execution_count: number;
  readonly inference_stats: InferStatistics;
  readonly batch_stats: readonly InferBatchStatistics[];
}
