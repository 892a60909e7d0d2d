/**
 * The configuration a loaded version runs with, as Triton's model configuration extension
 * reports it (protocols/triton-documents.ts): what config.pbtxt said where the server acts on
 * it, and what the model itself declares or the server decided otherwise. Fields the server
 * ignores (ModelConfig.ignoredFields, logged at load) are not reported as if they applied.
 */
import { datatypeInfo } from '../../protocols/datatypes.js';
import type { TensorSpec } from '../../protocols/tensor.js';
import type { ModelConfigDocument, ModelTensorConfig, VersionPolicy } from '../../protocols/triton-documents.js';
import type { VersionPolicy as ConfigVersionPolicy } from '../backend/model-config.js';
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

export function effectiveConfig(name: string, served: ServedVersion): ModelConfigDocument {
  const config = served.config;
  const maxBatchSize = config?.maxBatchSize ?? 0;
  const batched = maxBatchSize > 0;
  // The repository batches only with a batch dimension (model-repository.ts, #withBatching).
  const batching = batched ? config?.dynamicBatching : undefined;
  const gpu = served.instance.executionProvider === 'cuda';
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
    // One instance per loaded version, where its backend placed it; named as Triton names a group it was not given a name for.
    instance_group: [{ name: `${name}_0`, kind: gpu ? 'KIND_GPU' : 'KIND_CPU', count: 1 }],
    parameters: Object.fromEntries([...(config?.parameters ?? new Map<string, string>())].map(([k, v]) => [k, { string_value: v }])),
  };
}
