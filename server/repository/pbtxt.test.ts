import { describe, expect, it } from 'vitest';
import { type PbMessage, parsePbtxt } from './pbtxt.js';

/** Plain-object view of a parsed message, for readable comparisons. */
function plain(msg: PbMessage): Record<string, unknown[]> {
  return Object.fromEntries([...msg].map(([k, vs]) => [k, vs.map((v) => (v instanceof Map ? plain(v) : v))]));
}

describe('parsePbtxt', () => {
  it('reads a Triton config with every construct it uses', () => {
    const text = `
      # a comment
      name: "resnet"   # trailing comment
      platform: "onnxruntime_onnx"
      max_batch_size: 8
      input [
        { name: "input", data_type: TYPE_FP32, dims: [ 3, 224, 224 ] },
        { name: "mask" data_type: TYPE_BOOL dims: [ -1 ] }
      ]
      output { name: "output" data_type: TYPE_FP32 dims: 10 }
      output < name: "extra" data_type: TYPE_STRING dims: [ 1 ] >
      dynamic_batching: { preferred_batch_size: [ 4, 8 ]; max_queue_delay_microseconds: 100 }
      parameters { key: "k" value: { string_value: "v" } }
      optimization { execution_accelerators { gpu_execution_accelerator: [ { name: "tensorrt" } ] } }
    `;
    expect(plain(parsePbtxt(text))).toEqual({
      name: ['resnet'],
      platform: ['onnxruntime_onnx'],
      max_batch_size: [8],
      input: [
        { name: ['input'], data_type: ['TYPE_FP32'], dims: [3, 224, 224] },
        { name: ['mask'], data_type: ['TYPE_BOOL'], dims: [-1] },
      ],
      output: [
        { name: ['output'], data_type: ['TYPE_FP32'], dims: [10] },
        { name: ['extra'], data_type: ['TYPE_STRING'], dims: [1] },
      ],
      dynamic_batching: [{ preferred_batch_size: [4, 8], max_queue_delay_microseconds: [100] }],
      parameters: [{ key: ['k'], value: [{ string_value: ['v'] }] }],
      optimization: [{ execution_accelerators: [{ gpu_execution_accelerator: [{ name: ['tensorrt'] }] }] }],
    });
  });

  it.each<[string, string, unknown]>([
    ['an integer', 'a: 42', 42],
    ['a negative float', 'a: -2.5', -2.5],
    ['an exponent', 'a: 1e3', 1000],
    ['a hex integer', 'a: 0x10', 16],
    ['true', 'a: true', true],
    ['an enum', 'a: KIND_GPU', 'KIND_GPU'],
    ['a single-quoted string', "a: 'x y'", 'x y'],
    ['adjacent strings, concatenated', 'a: "ab" "cd"', 'abcd'],
    ['an escaped quote', 'a: "say \\"hi\\""', 'say "hi"'],
    ['escaped backslash and newline', 'a: "x\\\\y\\nz"', 'x\\y\nz'],
    ['octal and hex escapes', 'a: "\\101\\x42"', 'AB'],
    ['an empty string', 'a: ""', ''],
  ])('scalar: %s', (_what, text, value) => {
    expect(parsePbtxt(text).get('a')).toEqual([value]);
  });

  it('repeated fields accumulate, whether repeated or written as lists', () => {
    expect(parsePbtxt('d: 1 d: [2, 3] d: 4').get('d')).toEqual([1, 2, 3, 4]);
    expect(parsePbtxt('d: []').get('d')).toEqual([]);
  });

  it('an empty document is an empty message', () => {
    expect(parsePbtxt('  # nothing\n').size).toBe(0);
  });

  it.each<[string, string, RegExp]>([
    ['an unclosed message', 'a { b: 1', /^config\.pbtxt line 1: missing '}'$/],
    ['an unclosed angle message', 'a < b: 1', /missing '>'/],
    ['an unclosed list', 'a: [1, 2', /missing ']'/],
    ['a missing value', 'name:', /expected a value/],
    ['a stray closing brace', '}', /expected a field name/],
    ['a field name starting with a digit', '1a: 2', /expected a field name/],
    ['an unterminated string, with its line', 'a: 1\nb: "x\nc: 2', /^config\.pbtxt line 2: unterminated string$/],
    ['a mismatched closing bracket', 'a { b: 1 >', /config\.pbtxt line 1: /],
  ])('rejects %s with the line', (_what, text, message) => {
    expect(() => parsePbtxt(text)).toThrow(message);
  });
});
