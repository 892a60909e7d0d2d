import { describe, expect, it } from 'vitest';
import { KServeError } from '../errors.js';
import type { TensorSpec } from '../tensor.js';
import { decodeV1Request, encodeV1Response } from './codec.js';

const one: TensorSpec[] = [{ name: 'x', datatype: 'FP32', shape: [-1, 2] }];
const two: TensorSpec[] = [
  { name: 'a', datatype: 'INT64', shape: [-1, 2] },
  { name: 'b', datatype: 'BOOL', shape: [-1] },
];

describe('decodeV1Request', () => {
  it('stacks instances along the batch dimension of a single input', () => {
    const req = decodeV1Request(
      {
        instances: [
          [1, 2],
          [3, 4],
          [5, 6],
        ],
      },
      one,
    );
    expect(req.inputs).toEqual([{ name: 'x', datatype: 'FP32', shape: [3, 2], data: Float32Array.of(1, 2, 3, 4, 5, 6) }]);
  });

  it('takes `inputs` as a list the same way', () => {
    expect(decodeV1Request({ inputs: [[1, 2]] }, one).inputs[0]?.shape).toEqual([1, 2]);
  });

  it('row objects keyed by input name feed several inputs, in model order', () => {
    const req = decodeV1Request(
      {
        instances: [
          { b: true, a: [1, 2] },
          { a: [3, 4], b: false },
        ],
      },
      two,
    );
    expect(req.inputs).toEqual([
      { name: 'a', datatype: 'INT64', shape: [2, 2], data: BigInt64Array.of(1n, 2n, 3n, 4n) },
      { name: 'b', datatype: 'BOOL', shape: [2], data: Uint8Array.of(1, 0) },
    ]);
  });

  it('columnar `inputs` object gives whole tensors by name', () => {
    const req = decodeV1Request({ inputs: { b: [true], a: [[5, 6]] } }, two);
    expect(req.inputs.map((t) => [t.name, t.shape])).toEqual([
      ['b', [1]],
      ['a', [1, 2]],
    ]);
  });

  it.each<[string, unknown, TensorSpec[], RegExp]>([
    ['a body that is not an object', [1], one, /Unrecognized request format: the request must be a JSON object/],
    ['no instances or inputs', { data: [] }, one, /Expected "instances" or "inputs" in the request body/],
    ['instances that are not a list', { instances: {} }, one, /Expected "instances" to be a list/],
    ['no instances', { instances: [] }, one, /no instances for input 'x'/],
    ['ragged instances', { instances: [[1, 2], [3]] }, one, /input 'x': shape \[2,2\] has 4 elements but data has 3/],
    ['plain rows for several inputs', { instances: [[1, 2]] }, two, /model has 2 inputs \(a, b\); send each instance as an object keyed by input name/],
    ['a row missing an input', { instances: [{ a: [1, 2] }] }, two, /instance 0 has no value for input 'b'/],
    ['an unknown columnar input', { inputs: { c: [1] } }, two, /Unexpected input 'c'; expected inputs: a, b/],
  ])('rejects %s', (_what, doc, inputs, message) => {
    let caught: unknown;
    try {
      decodeV1Request(doc, inputs);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(KServeError);
    expect((caught as KServeError).httpStatus).toBe(400);
    expect((caught as KServeError).message).toMatch(message);
  });
});

describe('encodeV1Response', () => {
  it('returns the first output as nested lists', () => {
    const body = encodeV1Response({
      modelName: 'm',
      outputs: [
        { name: 'p', datatype: 'INT64', shape: [2, 2], data: BigInt64Array.of(1n, 2n, 3n, 4n) },
        { name: 'q', datatype: 'FP32', shape: [1], data: Float32Array.of(9) },
      ],
    });
    expect(body).toBe('{"predictions":[[1,2],[3,4]]}');
  });

  it('a model without outputs predicts an empty list', () => {
    expect(encodeV1Response({ modelName: 'm', outputs: [] })).toBe('{"predictions":[]}');
  });
});
