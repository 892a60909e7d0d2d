/**
 * Wire compatibility of the project's .proto: package, service, methods and every field
 * number as KServe's grpc_predict_v2.proto has them (plus the two InferParameter
 * extensions), so existing clients keep working whatever edits the file sees; Triton's
 * ModelConfig and ModelStatistics messages with the numbers of Triton's grpc_service.proto
 * and model_config.proto, so tritonclient.grpc decodes them.
 */
import { describe, expect, it } from 'vitest';
import { loadProtocolDefinition } from './proto.js';

const definition = loadProtocolDefinition();

interface Descriptor {
  name: string;
  field: Array<{ name: string; number: number; label: string; type: string }>;
  nestedType: Descriptor[];
}

/** The descriptor of `Outer` or `Outer.Inner` (nested messages live in their parent). */
function descriptor(message: string): Descriptor {
  const [outer, ...inner] = message.split('.');
  let d = (definition[`inference.${outer}`] as { type: Descriptor } | undefined)?.type;
  for (const name of inner) d = d?.nestedType.find((n) => n.name === name);
  if (d === undefined) throw new Error(`no message ${message}`);
  return d;
}

function fields(message: string): Record<string, number> {
  return Object.fromEntries(descriptor(message).field.map((f) => [f.name, f.number]));
}

const EXPECTED: Record<string, Record<string, number>> = {
  ServerLiveRequest: {},
  ServerLiveResponse: { live: 1 },
  ServerReadyRequest: {},
  ServerReadyResponse: { ready: 1 },
  ModelReadyRequest: { name: 1, version: 2 },
  ModelReadyResponse: { ready: 1 },
  ServerMetadataRequest: {},
  ServerMetadataResponse: { name: 1, version: 2, extensions: 3 },
  ModelMetadataRequest: { name: 1, version: 2 },
  ModelMetadataResponse: { name: 1, versions: 2, platform: 3, inputs: 4, outputs: 5 },
  'ModelMetadataResponse.TensorMetadata': { name: 1, datatype: 2, shape: 3 },
  ModelInferRequest: { model_name: 1, model_version: 2, id: 3, parameters: 4, inputs: 5, outputs: 6, raw_input_contents: 7 },
  'ModelInferRequest.InferInputTensor': { name: 1, datatype: 2, shape: 3, parameters: 4, contents: 5 },
  'ModelInferRequest.InferRequestedOutputTensor': { name: 1, parameters: 2 },
  ModelInferResponse: { model_name: 1, model_version: 2, id: 3, parameters: 4, outputs: 5, raw_output_contents: 6 },
  'ModelInferResponse.InferOutputTensor': { name: 1, datatype: 2, shape: 3, parameters: 4, contents: 5 },
  InferParameter: { bool_param: 1, int64_param: 2, string_param: 3, double_param: 4, uint64_param: 5 },
  InferTensorContents: {
    bool_contents: 1,
    int_contents: 2,
    int64_contents: 3,
    uint_contents: 4,
    uint64_contents: 5,
    fp32_contents: 6,
    fp64_contents: 7,
    bytes_contents: 8,
  },
  // Field 3 is Triton's load parameters (its config override).
  RepositoryModelLoadRequest: { model_name: 1, triton_model_name: 2, parameters: 3 },
  ModelRepositoryParameter: { bool_param: 1, int64_param: 2, string_param: 3, bytes_param: 4 },
  RepositoryModelLoadResponse: { model_name: 1, isLoaded: 2 },
  RepositoryModelUnloadRequest: { model_name: 1, triton_model_name: 2 },
  RepositoryModelUnloadResponse: { model_name: 1, isUnloaded: 2 },
  // Triton's, field for field (the fields kserve-ts fills).
  ModelConfigRequest: { name: 1, version: 2 },
  ModelConfigResponse: { config: 1 },
  ModelConfig: { name: 1, platform: 2, backend: 17, version_policy: 3, max_batch_size: 4, input: 5, output: 6, dynamic_batching: 11, instance_group: 7, parameters: 14 },
  ModelVersionPolicy: { latest: 1, all: 2, specific: 3 },
  'ModelVersionPolicy.Latest': { num_versions: 1 },
  'ModelVersionPolicy.Specific': { versions: 1 },
  ModelInput: { name: 1, data_type: 2, dims: 4 },
  ModelOutput: { name: 1, data_type: 2, dims: 3 },
  ModelDynamicBatching: { preferred_batch_size: 1, max_queue_delay_microseconds: 2 },
  ModelInstanceGroup: { name: 1, kind: 4, count: 2 },
  ModelParameter: { string_value: 1 },
  ModelStatisticsRequest: { name: 1, version: 2 },
  StatisticDuration: { count: 1, ns: 2 },
  InferStatistics: { success: 1, fail: 2, queue: 3, compute_input: 4, compute_infer: 5, compute_output: 6, cache_hit: 7, cache_miss: 8 },
  InferBatchStatistics: { batch_size: 1, compute_input: 2, compute_infer: 3, compute_output: 4 },
  ModelStatistics: { name: 1, version: 2, last_inference: 3, inference_count: 4, execution_count: 5, inference_stats: 6, batch_stats: 7 },
  ModelStatisticsResponse: { model_stats: 1 },
};

describe('grpc_predict_v2.proto', () => {
  it.each(Object.entries(EXPECTED))('inference.%s has the protocol field numbers', (message, expected) => {
    expect(fields(message)).toEqual(expected);
  });

  it('serves inference.GRPCInferenceService with the protocol methods, request and response types', () => {
    const service = definition['inference.GRPCInferenceService'] as Record<string, { path: string; requestStream: boolean; responseStream: boolean }>;
    const methods = [
      'ServerLive',
      'ServerReady',
      'ModelReady',
      'ServerMetadata',
      'ModelMetadata',
      'ModelInfer',
      'RepositoryModelLoad',
      'RepositoryModelUnload',
      'ModelConfig',
      'ModelStatistics',
    ];
    expect(Object.keys(service).sort()).toEqual([...methods].sort());
    for (const m of methods) {
      expect(service[m]).toMatchObject({ path: `/inference.GRPCInferenceService/${m}`, requestStream: false, responseStream: false });
    }
  });

  it('uses the protocol scalar types for tensor contents and shapes', () => {
    const contents = descriptor('InferTensorContents').field;
    expect(Object.fromEntries(contents.map((f) => [f.name, `${f.label} ${f.type}`]))).toEqual({
      bool_contents: 'LABEL_REPEATED TYPE_BOOL',
      int_contents: 'LABEL_REPEATED TYPE_INT32',
      int64_contents: 'LABEL_REPEATED TYPE_INT64',
      uint_contents: 'LABEL_REPEATED TYPE_UINT32',
      uint64_contents: 'LABEL_REPEATED TYPE_UINT64',
      fp32_contents: 'LABEL_REPEATED TYPE_FLOAT',
      fp64_contents: 'LABEL_REPEATED TYPE_DOUBLE',
      bytes_contents: 'LABEL_REPEATED TYPE_BYTES',
    });
    const input = descriptor('ModelInferRequest.InferInputTensor').field;
    expect(input.find((f) => f.name === 'shape')).toMatchObject({ label: 'LABEL_REPEATED', type: 'TYPE_INT64' });
  });
});
