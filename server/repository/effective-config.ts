/**
 * The configuration a loaded version runs with, as Triton's model configuration extension
 * reports it (protocols/triton-documents.ts): what config.pbtxt said where the server acts on
 * it, and what the model itself declares or the server decided otherwise. Fields the server
 * ignores (ModelConfig.ignoredFields, logged at load) are not reported as if they applied.
 */
import { datatypeInfo } from '../../protocols/datatypes.js';
import type { TensorSpec } from '../../protocols/tensor.js';
import type { InstanceGroup, ModelConfigDocument, ModelTensorConfig, VersionPolicy } from '../../protocols/triton-documents.js';
import type { InstanceGroupConfig, VersionPolicy as ConfigVersionPolicy } from '../backend/model-config.js';
import type { ServedVersion } from './model-repository.js';

/** Triton's backend name for the platforms kserve-ts runs; a Triton client reads `backend` as Triton names it. */
const TRITON_BACKENDS: ReadonlyMap<string, string> = new Map([
  ['onnxruntime_onnx', 'onnxruntime'],
  ['tensorflow_savedmodel', 'tensorflow'],
  ['tensorflow_tfjs', 'tensorflow'],
]);

/** Triton's dims leave out the batch dimension of a model with max_batch_size > 0. */
function tensorConfig(spec: TensorSpec, batched: boolean): ModelTensorConfig {
  const tritonType = datatypeInfo(spec.datatype)?.tritonType ?? 'TYPE_INVALID';
  return { name: spec.name, data_type: tritonType, dims: batched ? spec.shape.slice(1) : [...spec.shape] };
}

/** The model's version_policy in Triton's shape; none is kserve-ts's default, every version (docs/model-repository.md). */
function versionPolicy(policy: ConfigVersionPolicy | undefined): VersionPolicy {
  switch (policy?.kind) {
    case 'latest':
      return { latest: { num_versions: policy.numVersions } };
    case 'specific':
      return { specific: { versions: policy.versions.map(Number) } };
    default:
      return { all: {} };
  }
}

/**
 * The groups the version was loaded with (instance-plan.ts), named as Triton names a group it
 * was not given a name for; none in config.pbtxt is the one instance the backend placed.
 * The kind is where the instances run: KIND_AUTO on the GPU only when every instance is
 * there, and a KIND_GPU group whose instances fell back to the cpu (cuda,cpu without a
 * device) is reported as KIND_CPU, as the kserve_model_info metric reports it.
 */
function instanceGroups(name: string, groups: readonly InstanceGroupConfig[], providers: readonly string[]): InstanceGroup[] {
  const allGpu = providers.length > 0 && providers.every((p) => p === 'cuda');
  if (groups.length === 0) return [{ name: `${name}_0`, kind: allGpu ? 'KIND_GPU' : 'KIND_CPU', count: 1 }];
  return groups.map((g, i) => {
    const gpu = g.kind === 'gpu' ? providers.includes('cuda') : g.kind === 'auto' && allGpu;
    return { name: g.name ?? `${name}_${i}`, kind: gpu ? 'KIND_GPU' : 'KIND_CPU', count: g.count, ...(gpu && g.gpus.length > 0 ? { gpus: [...g.gpus] } : {}) };
  });
}

export function effectiveConfig(name: string, served: ServedVersion): ModelConfigDocument {
  const config = served.config;
  const maxBatchSize = config?.maxBatchSize ?? 0;
  const batched = maxBatchSize > 0;
  // The repository batches only with a batch dimension (model-repository.ts, #withBatching).
  const batching = batched ? config?.dynamicBatching : undefined;
  // A version of several instances lists the distinct providers they run on (instance-pool.ts).
  const providers = served.instance.executionProvider?.split(',') ?? [];
  return {
    name,
    platform: served.platform,
    backend: TRITON_BACKENDS.get(served.platform) ?? config?.backend ?? '',
    version_policy: versionPolicy(config?.versionPolicy),
    max_batch_size: maxBatchSize,
    input: served.inputs.map((t) => tensorConfig(t, batched)),
    output: served.outputs.map((t) => tensorConfig(t, batched)),
    ...(batching === undefined
      ? {}
      : { dynamic_batching: { preferred_batch_size: [...batching.preferredBatchSizes], max_queue_delay_microseconds: batching.maxQueueDelayMicroseconds } }),
    instance_group: instanceGroups(name, config?.instanceGroups ?? [], providers),
    parameters: Object.fromEntries([...(config?.parameters ?? new Map<string, string>())].map(([k, v]) => [k, { string_value: v }])),
  };
}
