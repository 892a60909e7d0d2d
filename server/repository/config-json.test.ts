/**
 * Triton's JSON form of a model configuration reads as the same configuration as its
 * config.pbtxt text, field for field (one reader behind both), and is refused where the
 * text would be, with the reader's reason.
 */
import { describe, expect, it } from 'vitest';
import { parseModelConfig } from './config-pbtxt.js';
import { parseModelConfigJson } from './config-json.js';

const CASES: ReadonlyArray<readonly [string, object, string]> = [
  ['scalars and enums', { name: 'm', backend: 'onnxruntime', max_batch_size: 8 }, 'name: "m" backend: "onnxruntime" max_batch_size: 8'],
  [
    'tensors, with int64 dims as protobuf writes them (strings)',
    { input: [{ name: 'INPUT0', data_type: 'TYPE_FP32', dims: ['-1', '16'] }], output: [{ name: 'OUTPUT0', data_type: 'TYPE_INT64', dims: [4] }] },
    'input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ -1, 16 ] } ] output { name: "OUTPUT0" data_type: TYPE_INT64 dims: 4 }',
  ],
  [
    'dynamic batching, lowerCamelCase names',
    { maxBatchSize: 4, dynamicBatching: { preferredBatchSize: [2, 4], maxQueueDelayMicroseconds: '100' } },
    'max_batch_size: 4 dynamic_batching { preferred_batch_size: [ 2, 4 ] max_queue_delay_microseconds: 100 }',
  ],
  [
    'instance groups',
    {
      instance_group: [
        { name: 'g', count: 2, kind: 'KIND_CPU' },
        { count: 1, kind: 'KIND_GPU', gpus: [0, 1] },
      ],
    },
    'instance_group [ { name: "g" count: 2 kind: KIND_CPU }, { count: 1 kind: KIND_GPU gpus: [ 0, 1 ] } ]',
  ],
  [
    'parameters, a protobuf map',
    { parameters: { intra_op_thread_count: { string_value: '1' }, execution_providers: { string_value: 'cpu' } } },
    'parameters { key: "intra_op_thread_count" value { string_value: "1" } } parameters { key: "execution_providers" value { string_value: "cpu" } }',
  ],
  [
    'version policy and labels (a map of int64)',
    { version_policy: { specific: { versions: ['1', 3] } }, version_labels: { stable: 1, canary: '3' } },
    'version_policy { specific { versions: [ 1, 3 ] } } version_labels { key: "stable" value: 1 } version_labels { key: "canary" value: 3 }',
  ],
  [
    'warm-up, whose inputs are a map',
    { model_warmup: [{ name: 'w', batch_size: 2, count: 3, inputs: { INPUT0: { data_type: 'TYPE_FP32', dims: ['4'], zero_data: true } } }] },
    'model_warmup { name: "w" batch_size: 2 count: 3 inputs { key: "INPUT0" value { data_type: TYPE_FP32 dims: [ 4 ] zero_data: true } } }',
  ],
  [
    'null leaves a field unset; unknown fields are listed as ignored',
    { max_batch_size: null, optimization: { priority: 'PRIORITY_MAX' } },
    'optimization { priority: PRIORITY_MAX }',
  ],
  [
    'the document GET /v2/models/{m}/config answers',
    {
      name: 'm',
      platform: 'onnxruntime_onnx',
      backend: 'onnxruntime',
      version_policy: { all: {} },
      max_batch_size: 0,
      input: [{ name: 'INPUT0', data_type: 'TYPE_FP32', dims: [-1, -1] }],
      output: [{ name: 'OUTPUT0', data_type: 'TYPE_FP32', dims: [-1, -1] }],
      instance_group: [{ name: 'm_0', kind: 'KIND_CPU', count: 1 }],
      parameters: {},
    },
    `name: "m" platform: "onnxruntime_onnx" backend: "onnxruntime" version_policy { all {} } max_batch_size: 0
     input { name: "INPUT0" data_type: TYPE_FP32 dims: [ -1, -1 ] } output { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ -1, -1 ] }
     instance_group { name: "m_0" kind: KIND_CPU count: 1 }`,
  ],
];

describe("Triton's JSON model configuration", () => {
  it.each(CASES)('%s: reads as its config.pbtxt text does', (_, doc, pbtxt) => {
    const fromJson = parseModelConfigJson(JSON.stringify(doc));
    expect(fromJson).toEqual(parseModelConfig(pbtxt));
  });

  it("reads the document Triton's own server answers, every field it fills included", () => {
    const triton = {
      name: 'm',
      platform: 'onnxruntime_onnx',
      backend: 'onnxruntime',
      runtime: '',
      version_policy: { latest: { num_versions: 1 } },
      max_batch_size: 8,
      input: [{ name: 'INPUT0', data_type: 'TYPE_FP32', format: 'FORMAT_NONE', dims: [16], is_shape_tensor: false, allow_ragged_batch: false, optional: false }],
      output: [{ name: 'OUTPUT0', data_type: 'TYPE_FP32', dims: [16], label_filename: '', is_shape_tensor: false }],
      batch_input: [],
      batch_output: [],
      optimization: {
        priority: 'PRIORITY_DEFAULT',
        input_pinned_memory: { enable: true },
        output_pinned_memory: { enable: true },
        gather_kernel_buffer_threshold: 0,
        eager_batching: false,
      },
      dynamic_batching: {
        preferred_batch_size: [4, 8],
        max_queue_delay_microseconds: 100,
        preserve_ordering: false,
        priority_levels: 0,
        default_priority_level: 0,
        priority_queue_policy: {},
      },
      instance_group: [{ name: 'm_0', kind: 'KIND_CPU', count: 2, gpus: [], secondary_devices: [], profile: [], passive: false, host_policy: '' }],
      default_model_filename: 'model.onnx',
      cc_model_filenames: {},
      metric_tags: {},
      parameters: {},
      model_warmup: [],
    };
    const config = parseModelConfigJson(JSON.stringify(triton));
    expect(config).toMatchObject({
      maxBatchSize: 8,
      inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [16] }],
      outputs: [{ name: 'OUTPUT0', datatype: 'FP32', shape: [16] }],
      dynamicBatching: { preferredBatchSizes: [4, 8], maxQueueDelayMicroseconds: 100 },
      instanceGroups: [{ name: 'm_0', count: 2, kind: 'cpu', gpus: [] }],
      versionPolicy: { kind: 'latest', numVersions: 1 },
      warmup: [],
    });
    expect([...config.ignoredFields].sort()).toEqual(
      [
        'runtime',
        'batch_input',
        'batch_output',
        'optimization',
        'default_model_filename',
        'cc_model_filenames',
        'metric_tags',
        'instance_group.secondary_devices',
        'instance_group.profile',
        'instance_group.passive',
        'instance_group.host_policy',
      ].sort(),
    );
  });

  it('reports the fields it will ignore, as for config.pbtxt', () => {
    expect(parseModelConfigJson('{"optimization": {"priority": "PRIORITY_MAX"}, "sequence_batching": {}}').ignoredFields).toEqual(['optimization', 'sequence_batching']);
  });

  it.each([
    ['{nope', /^config is not JSON: /],
    ['[1, 2]', /^config must be a JSON object/],
    ['"max_batch_size: 8"', /^config must be a JSON object/],
    ['{"max_batch_size": -1}', /max_batch_size must be >= 0/],
    ['{"max_batch_size": "8"}', /'max_batch_size' must be an integer/],
    ['{"input": [{"name": "x", "data_type": "TYPE_NOPE", "dims": [1]}]}', /input 'x' has unknown data_type TYPE_NOPE/],
    ['{"instance_group": [{"count": 0}]}', /instance_group 'count' must be >= 1/],
    ['{"input": [[1]]}', /^config: 'input' holds a list of lists/],
    ['{"version_labels": {"1": 1}}', /version label '1' is a number/],
  ])('%s is refused with the reason', (text, reason) => {
    expect(() => parseModelConfigJson(text)).toThrow(reason);
  });
});
