import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseModelConfig, readModelConfig } from './config-pbtxt.js';

describe('parseModelConfig', () => {
  it('reads the supported Triton subset', () => {
    const config = parseModelConfig(`
      name: "resnet"
      platform: "onnxruntime_onnx"
      max_batch_size: 8
      input [ { name: "input", data_type: TYPE_FP32, dims: [ 3, 224, 224 ] } ]
      output [
        { name: "logits", data_type: TYPE_FP16, dims: [ 10 ] },
        { name: "label", data_type: TYPE_STRING, dims: [ 1 ] }
      ]
      dynamic_batching { preferred_batch_size: [ 4, 8 ] max_queue_delay_microseconds: 100 }
      parameters { key: "execution_providers" value: { string_value: "cuda,cpu" } }
      parameters { key: "intra_op_thread_count" value: { string_value: "4" } }
      instance_group [ { name: "a", count: 2, kind: KIND_GPU, gpus: [ 0, 1 ] }, { kind: KIND_CPU rate_limiter { priority: 1 } } ]
      version_policy: { latest: { num_versions: 1 } }
    `);
    expect(config).toEqual({
      name: 'resnet',
      backend: 'onnxruntime_onnx',
      maxBatchSize: 8,
      inputs: [{ name: 'input', datatype: 'FP32', shape: [3, 224, 224] }],
      outputs: [
        { name: 'logits', datatype: 'FP16', shape: [10] },
        { name: 'label', datatype: 'BYTES', shape: [1] },
      ],
      dynamicBatching: { preferredBatchSizes: [4, 8], maxQueueDelayMicroseconds: 100 },
      parameters: new Map([
        ['execution_providers', 'cuda,cpu'],
        ['intra_op_thread_count', '4'],
      ]),
      versionPolicy: { kind: 'latest', numVersions: 1 },
      versionLabels: new Map(),
      instanceGroups: [
        { name: 'a', count: 2, kind: 'gpu', gpus: [0, 1] },
        { name: undefined, count: 1, kind: 'cpu', gpus: [] },
      ],
      warmup: [],
      ignoredFields: ['instance_group.rate_limiter'],
    });
  });

  it('defaults: no batching, inputs and outputs taken from the model', () => {
    expect(parseModelConfig('')).toEqual({
      name: undefined,
      backend: undefined,
      maxBatchSize: 0,
      inputs: undefined,
      outputs: undefined,
      dynamicBatching: undefined,
      instanceGroups: [],
      warmup: [],
      parameters: new Map(),
      versionPolicy: undefined,
      versionLabels: new Map(),
      ignoredFields: [],
    });
  });

  it.each([
    ['version_policy { all {} }', { kind: 'all' }],
    ['version_policy: { latest: { num_versions: 3 } }', { kind: 'latest', numVersions: 3 }],
    ['version_policy { latest {} }', { kind: 'latest', numVersions: 1 }],
    ['version_policy { specific { versions: [ 3, 1, 3 ] } }', { kind: 'specific', versions: ['3', '1'] }],
    ['version_policy { specific { versions: 2 versions: 4 } }', { kind: 'specific', versions: ['2', '4'] }],
  ])('%s', (text, policy) => {
    expect(parseModelConfig(text).versionPolicy).toEqual(policy);
  });

  it('reads version_labels as TF Serving writes them, repeated or as a list', () => {
    const labels = new Map([
      ['stable', '1'],
      ['canary', '2'],
    ]);
    expect(parseModelConfig('version_labels { key: "stable" value: 1 }\nversion_labels { key: "canary" value: 2 }').versionLabels).toEqual(labels);
    expect(parseModelConfig('version_labels [ { key: "stable", value: 1 }, { key: "canary", value: 2 } ]').versionLabels).toEqual(labels);
  });

  it.each([
    ['KIND_AUTO', 'auto'],
    ['KIND_MODEL', 'auto'],
    ['KIND_CPU', 'cpu'],
    ['KIND_GPU', 'gpu'],
  ])('instance_group kind %s is %s', (kind, expected) => {
    expect(parseModelConfig(`instance_group { kind: ${kind} }`).instanceGroups).toEqual([{ name: undefined, count: 1, kind: expected, gpus: [] }]);
  });

  it("reads model_warmup samples with Triton's schema", () => {
    const config = parseModelConfig(`
      model_warmup [
        {
          name: "zeros"
          batch_size: 4
          inputs { key: "INPUT0" value: { data_type: TYPE_FP32 dims: [ 16 ] zero_data: true } }
          inputs { key: "INPUT1" value: { data_type: TYPE_INT64 dims: [ 2, 3 ] random_data: true } }
          count: 3
        },
        { name: "file" inputs [ { key: "x" value { data_type: TYPE_STRING dims: [ 1 ] input_data_file: "x.bin" } } ] }
      ]
    `);
    expect(config.warmup).toEqual([
      {
        name: 'zeros',
        batchSize: 4,
        inputs: [
          { name: 'INPUT0', datatype: 'FP32', dims: [16], data: { kind: 'zero' } },
          { name: 'INPUT1', datatype: 'INT64', dims: [2, 3], data: { kind: 'random' } },
        ],
        count: 3,
      },
      // Triton's defaults: batch_size 1, count 0 runs the sample once.
      { name: 'file', batchSize: 1, inputs: [{ name: 'x', datatype: 'BYTES', dims: [1], data: { kind: 'file', file: 'x.bin' } }], count: 1 },
    ]);
    expect(config.ignoredFields).toEqual([]);
  });

  it('backend wins over platform', () => {
    expect(parseModelConfig('platform: "onnxruntime_onnx" backend: "onnxruntime"').backend).toBe('onnxruntime');
  });

  it.each([
    ['TYPE_BOOL', 'BOOL'],
    ['TYPE_UINT8', 'UINT8'],
    ['TYPE_UINT16', 'UINT16'],
    ['TYPE_UINT32', 'UINT32'],
    ['TYPE_UINT64', 'UINT64'],
    ['TYPE_INT8', 'INT8'],
    ['TYPE_INT16', 'INT16'],
    ['TYPE_INT32', 'INT32'],
    ['TYPE_INT64', 'INT64'],
    ['TYPE_FP16', 'FP16'],
    ['TYPE_BF16', 'BF16'],
    ['TYPE_FP32', 'FP32'],
    ['TYPE_FP64', 'FP64'],
    ['TYPE_STRING', 'BYTES'],
  ])('%s is %s', (triton, v2) => {
    expect(parseModelConfig(`input { name: "x" data_type: ${triton} dims: [1] }`).inputs).toEqual([{ name: 'x', datatype: v2, shape: [1] }]);
  });

  it.each<[string, string, RegExp]>([
    ['a syntax error', 'input [ { name: "x" ', /^config\.pbtxt line \d+: /],
    ['a name that is not a string', 'name: 5', /config\.pbtxt: 'name' must be a string/],
    ['a fractional max_batch_size', 'max_batch_size: 1.5', /config\.pbtxt: 'max_batch_size' must be an integer/],
    ['a negative max_batch_size', 'max_batch_size: -1', /config\.pbtxt: max_batch_size must be >= 0/],
    ['an input without a name', 'input { data_type: TYPE_FP32 dims: [1] }', /config\.pbtxt: every input needs a name/],
    ['an unknown data_type', 'output { name: "y" data_type: TYPE_COMPLEX dims: [1] }', /config\.pbtxt: output 'y' has unknown data_type TYPE_COMPLEX/],
    ['a missing data_type', 'input { name: "x" dims: [1] }', /config\.pbtxt: input 'x' has unknown data_type undefined/],
    ['dims below -1', 'input { name: "x" data_type: TYPE_FP32 dims: [ -2 ] }', /config\.pbtxt: input 'x' has invalid dims/],
    ['a string dim', 'input { name: "x" data_type: TYPE_FP32 dims: [ "a" ] }', /config\.pbtxt: input 'x' has invalid dims/],
    ['input given as a scalar', 'input: 3', /config\.pbtxt: 'input' must be a message/],
    ['a parameter without string_value', 'parameters { key: "k" value: { int_value: 1 } }', /config\.pbtxt: parameters need 'key' and 'value \{ string_value: \.\.\. \}'/],
    ['a non-integer preferred_batch_size', 'dynamic_batching { preferred_batch_size: [ "four" ] }', /config\.pbtxt: 'preferred_batch_size' must hold positive integers/],
    ['a fractional max_queue_delay', 'dynamic_batching { max_queue_delay_microseconds: 0.5 }', /config\.pbtxt: 'max_queue_delay_microseconds' must be an integer/],
    ['an empty version_policy', 'version_policy {}', /config\.pbtxt: version_policy needs exactly one of latest, all, specific; got \[\]/],
    ['two policies', 'version_policy { all {} latest {} }', /version_policy needs exactly one of latest, all, specific; got \[all, latest\]/],
    ['an unknown policy', 'version_policy { newest {} }', /version_policy needs exactly one of latest, all, specific; got \[newest\]/],
    ['num_versions 0', 'version_policy { latest { num_versions: 0 } }', /version_policy latest num_versions must be a positive integer/],
    ['a specific policy without versions', 'version_policy { specific {} }', /version_policy specific needs at least one version/],
    ['a negative specific version', 'version_policy { specific { versions: [ -1 ] } }', /every version_policy specific version must be a non-negative integer version/],
    ['a policy given as a scalar', 'version_policy: 1', /'version_policy' must be a message/],
    ['a label without a key', 'version_labels { value: 1 }', /config\.pbtxt: version_labels need a 'key' string and a 'value' version/],
    ['a label without a version', 'version_labels { key: "stable" }', /config\.pbtxt: version label 'stable' must be a non-negative integer version/],
    ['a label naming a string', 'version_labels { key: "stable" value: "one" }', /version label 'stable' must be a non-negative integer version/],
    ['a numeric label', 'version_labels { key: "2" value: 1 }', /config\.pbtxt: version label '2' is a number; labels must not look like versions/],
    ['a label given twice', 'version_labels { key: "a" value: 1 } version_labels { key: "a" value: 2 }', /config\.pbtxt: version label 'a' is given twice/],
    ['an instance_group count of 0', 'instance_group { count: 0 }', /config\.pbtxt: instance_group 'count' must be >= 1 \(got 0\)/],
    [
      'an unknown instance_group kind',
      'instance_group { kind: KIND_TPU }',
      /config\.pbtxt: instance_group 'kind' must be one of KIND_AUTO, KIND_MODEL, KIND_CPU, KIND_GPU \(got KIND_TPU\)/,
    ],
    ['gpus on a KIND_CPU group', 'instance_group { kind: KIND_CPU gpus: [ 0 ] }', /config\.pbtxt: instance_group 'gpus' applies to KIND_GPU only \(this group is KIND_CPU\)/],
    ['a negative gpu', 'instance_group { kind: KIND_GPU gpus: [ -1 ] }', /config\.pbtxt: 'gpus' must hold integers >= 0/],
    [
      'a warm-up without a name',
      'model_warmup { inputs { key: "x" value: { data_type: TYPE_FP32 dims: [ 1 ] zero_data: true } } }',
      /config\.pbtxt: every model_warmup needs a name/,
    ],
    ['a warm-up without inputs', 'model_warmup { name: "w" }', /config\.pbtxt: model_warmup 'w' has no inputs/],
    [
      'a warm-up batch_size of 0',
      'model_warmup { name: "w" inputs { key: "x" value: { data_type: TYPE_FP32 dims: [ 1 ] zero_data: true } } batch_size: 0 }',
      /config\.pbtxt: model_warmup 'w': batch_size must be >= 1/,
    ],
    [
      'a negative warm-up count',
      'model_warmup { name: "w" inputs { key: "x" value: { data_type: TYPE_FP32 dims: [ 1 ] zero_data: true } } count: -1 }',
      /config\.pbtxt: model_warmup 'w': count must be >= 0/,
    ],
    [
      'a warm-up input without data',
      'model_warmup { name: "w" inputs { key: "x" value: { data_type: TYPE_FP32 dims: [ 1 ]  } }  }',
      /config\.pbtxt: model_warmup 'w' input 'x' needs exactly one of zero_data: true, random_data: true or input_data_file/,
    ],
    [
      'a warm-up input with two kinds of data',
      'model_warmup { name: "w" inputs { key: "x" value: { data_type: TYPE_FP32 dims: [ 1 ] zero_data: true random_data: true } }  }',
      /model_warmup 'w' input 'x' needs exactly one of/,
    ],
    [
      'an input_data_file outside warmup/',
      'model_warmup { name: "w" inputs { key: "x" value: { data_type: TYPE_FP32 dims: [ 1 ] input_data_file: "../config.pbtxt" } }  }',
      /config\.pbtxt: model_warmup 'w' input 'x': input_data_file '\.\.\/config\.pbtxt' must name a file in the warmup\/ folder/,
    ],
    [
      'a warm-up input of unknown type',
      'model_warmup { name: "w" inputs { key: "x" value: { data_type: TYPE_X dims: [ 1 ] zero_data: true } } }',
      /config\.pbtxt: model_warmup 'w' input 'x' has unknown data_type TYPE_X/,
    ],
    [
      'a warm-up input without key',
      'model_warmup { name: "w" inputs { value: { data_type: TYPE_FP32 zero_data: true } } }',
      /config\.pbtxt: model_warmup 'w': inputs need 'key' and 'value \{ \.\.\. \}'/,
    ],
  ])('rejects %s with a clear message', (_what, text, message) => {
    expect(() => parseModelConfig(text)).toThrow(message);
  });
});

describe('readModelConfig', () => {
  it('is undefined without a config.pbtxt, parsed with one', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kserve-ts-config-'));
    try {
      expect(await readModelConfig(dir)).toBeUndefined();
      writeFileSync(path.join(dir, 'config.pbtxt'), 'max_batch_size: 2\n');
      expect((await readModelConfig(dir))?.maxBatchSize).toBe(2);
      writeFileSync(path.join(dir, 'config.pbtxt'), 'max_batch_size: {\n');
      await expect(readModelConfig(dir)).rejects.toThrow(/config\.pbtxt line/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
