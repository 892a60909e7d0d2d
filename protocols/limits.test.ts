/**
 * Validate before allocate: a small request that declares a huge tensor, a huge count or a
 * deep nesting is refused with a catalogue error naming the input, on every codec, before
 * anything is sized by the declared number (previously RangeError → 500 / INTERNAL).
 */
import { describe, expect, it } from 'vitest';
import { KServeError } from './errors.js';
import { decodeGrpcInferRequest } from './grpc/infer-request.js';
import { DEFAULT_DECODE_LIMITS, MAX_RANK, checkedElementCount } from './limits.js';
import type { TensorSpec } from './tensor.js';
import { decodeV1Request } from './v1/codec.js';
import { tfServingDialect } from './v1/tf-serving.js';
import { decodeRestInferRequest } from './v2/rest-request.js';

function kindOf(fn: () => unknown): { kind: string; message: string } {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(KServeError);
    return { kind: (e as KServeError).kind, message: (e as KServeError).message };
  }
  throw new Error('expected the decode to fail');
}

const json = (doc: unknown, binary?: Buffer) => {
  const head = Buffer.from(JSON.stringify(doc));
  return binary === undefined ? () => decodeRestInferRequest(head, undefined) : () => decodeRestInferRequest(Buffer.concat([head, binary]), head.byteLength);
};
const huge = [2 ** 26, 2 ** 26, 2 ** 26];
const deep = (n: number): unknown => JSON.parse(`${'['.repeat(n)}1${']'.repeat(n)}`);
const spec = (datatype: TensorSpec['datatype']): TensorSpec[] => [{ name: 'x', datatype, shape: [-1, -1] }];
const model = (datatype: TensorSpec['datatype']) => ({
  name: 'm',
  version: undefined,
  platform: 'tensorflow_savedmodel',
  inputs: spec(datatype),
  outputs: spec(datatype),
  signatures: undefined,
});

describe('every codec checks declared sizes before it allocates', () => {
  it.each<[string, () => unknown, string, RegExp]>([
    [
      'V2 JSON: a huge shape with one element',
      json({ inputs: [{ name: 'x', datatype: 'FP32', shape: huge, data: [1] }] }),
      'PayloadTooLarge',
      /input 'x': shape \[67108864,67108864,67108864\] has more than 2\^53 elements/,
    ],
    [
      'V2 JSON: a shape within the limit, data far shorter',
      json({ inputs: [{ name: 'x', datatype: 'FP64', shape: [2 ** 27], data: [[1]] }] }),
      'InvalidInput',
      /input 'x': shape \[134217728\] has 134217728 elements but data has 1/,
    ],
    [
      'V2 JSON: BYTES with a huge shape',
      json({ inputs: [{ name: 'x', datatype: 'BYTES', shape: [2 ** 27], data: ['a'] }] }),
      'InvalidInput',
      /has 134217728 elements but data has 1/,
    ],
    [
      'V2 JSON: a shape of 100,000 dimensions',
      json({ inputs: [{ name: 'x', datatype: 'FP32', shape: new Array(100_000).fill(1), data: [1] }] }),
      'InvalidInput',
      /input 'x': shape has 100000 dimensions; at most 64/,
    ],
    ['V2 JSON: too many inputs', json({ inputs: new Array(2000).fill({}) }), 'PayloadTooLarge', /request has 2000 inputs; at most 1024/],
    ['V2 JSON: too many outputs', json({ inputs: [], outputs: new Array(2000).fill({ name: 'y' }) }), 'PayloadTooLarge', /request has 2000 outputs; at most 1024/],
    [
      'V2 binary: BYTES count beyond the bytes',
      json({ inputs: [{ name: 'x', datatype: 'BYTES', shape: [2 ** 28], parameters: { binary_data_size: 8 } }] }, Buffer.alloc(8)),
      'InvalidInput',
      /input 'x': shape declares 268435456 BYTES elements but 8 bytes hold at most 2/,
    ],
    [
      'V2 binary: FP32 shape beyond the bytes',
      json({ inputs: [{ name: 'x', datatype: 'FP32', shape: [2 ** 28], parameters: { binary_data_size: 8 } }] }, Buffer.alloc(8)),
      'InvalidInput',
      /expected 1073741824 bytes of FP32 data .* but got 8/,
    ],
    [
      'gRPC raw: BYTES count beyond the bytes',
      () => decodeGrpcInferRequest({ inputs: [{ name: 'x', datatype: 'BYTES', shape: ['268435456'] }], raw_input_contents: [Buffer.alloc(4)] }),
      'InvalidInput',
      /shape declares 268435456 BYTES elements but 4 bytes/,
    ],
    [
      'gRPC raw: overflowing dims',
      () => decodeGrpcInferRequest({ inputs: [{ name: 'x', datatype: 'INT8', shape: ['9007199254740991', '9007199254740991'] }], raw_input_contents: [Buffer.alloc(4)] }),
      'PayloadTooLarge',
      /has more than 2\^53 elements/,
    ],
    [
      'gRPC typed: huge shape, one value',
      () => decodeGrpcInferRequest({ inputs: [{ name: 'x', datatype: 'FP32', shape: ['134217728'], contents: { fp32_contents: [1] } }] }),
      'InvalidInput',
      /has 134217728 elements but fp32_contents has 1/,
    ],
    ['gRPC: too many inputs', () => decodeGrpcInferRequest({ inputs: new Array(1025).fill({}) }), 'PayloadTooLarge', /1025 inputs/],
    [
      'V1: ragged instances claiming a huge product',
      () => decodeV1Request({ instances: [new Array(4096).fill(1), ...new Array(4095).fill([])] }, spec('FP64')),
      'InvalidInput',
      /shape \[4096,4096\] has 16777216 elements but data has 4096/,
    ],
    ['V1: instances nested a million levels', () => decodeV1Request({ instances: [deep(1_000_000)] }, spec('FP32')), 'InvalidInput', /dimensions; at most 64/],
    ['TF Serving: strings nested a million levels', () => tfServingDialect.decode({ instances: deep(1_000_000) }, model('BYTES')), 'InvalidInput', /dimensions; at most 64/],
    [
      'TF Serving: a huge columnar product of strings',
      () => tfServingDialect.decode({ inputs: [new Array(4096).fill('a'), ...new Array(4095).fill([])] }, model('BYTES')),
      'InvalidInput',
      /has 16777216 elements but data has 4096/,
    ],
  ])('%s', (_case, decode, kind, message) => {
    const err = kindOf(decode);
    expect(err.kind).toBe(kind);
    expect(err.message).toMatch(message);
  });

  it('JSON data nested deeper than any tensor is a 400 naming the input, not a stack overflow', () => {
    const body = `{"inputs":[{"name":"x","datatype":"FP32","shape":[1],"data":${'['.repeat(1_000_000)}1${']'.repeat(1_000_000)}}]}`;
    const err = kindOf(() => decodeRestInferRequest(Buffer.from(body), undefined));
    expect(err).toEqual({ kind: 'InvalidInput', message: `input 'x': 'data' is nested more than ${MAX_RANK} levels deep` });
  });

  it('products of dims are overflow-safe: zero anywhere is zero elements, anything past 2^53 is refused', () => {
    expect(checkedElementCount([2 ** 53 - 1, 2 ** 53 - 1, 0], 'x', 10)).toBe(0);
    expect(
      checkedElementCount(
        new Array(64)
          .fill(2 ** 52)
          .concat([])
          .slice(0, 63)
          .concat([0]),
        'x',
        10,
      ),
    ).toBe(0);
    expect(() => checkedElementCount([2 ** 27, 2 ** 27], 'x', DEFAULT_DECODE_LIMITS.maxTensorElements)).toThrow(/more than 2\^53|18014398509481984/);
    expect(checkedElementCount([3, 4], 'x', 12)).toBe(12);
  });

  it('configured limits are honoured', () => {
    const limits = { maxTensorElements: 10, maxInputs: 1, maxOutputs: 0 };
    const body = Buffer.from(JSON.stringify({ inputs: [{ name: 'x', datatype: 'FP32', shape: [11], data: new Array(11).fill(0) }] }));
    expect(kindOf(() => decodeRestInferRequest(body, undefined, limits)).kind).toBe('PayloadTooLarge');
    const ok = Buffer.from(JSON.stringify({ inputs: [{ name: 'x', datatype: 'FP32', shape: [10], data: new Array(10).fill(0) }] }));
    expect(decodeRestInferRequest(ok, undefined, limits).inputs[0]?.shape).toEqual([10]);
    const two = { maxTensorElements: 10, maxInputs: 2, maxOutputs: 0 };
    const pair = Buffer.from(JSON.stringify({ inputs: ['a', 'b'].map((name) => ({ name, datatype: 'FP32', shape: [6], data: new Array(6).fill(0) })) }));
    expect(kindOf(() => decodeRestInferRequest(pair, undefined, two))).toEqual({
      kind: 'PayloadTooLarge',
      message: "input 'b': the request's inputs declare more than 10 elements together (limit --max_tensor_elements)",
    });
  });
});
