/** TF Serving's V1 dialect, table-driven, without a server; and the per-platform registry. */
import { describe, expect, it } from 'vitest';
import type { InferResponse, Tensor } from '../tensor.js';
import type { V1Model } from './dialect.js';
import { kserveDialect, v1DialectFor } from './dialects.js';
import { tfServingDialect } from './tf-serving.js';

const model: V1Model = {
  name: 'm',
  version: '3',
  platform: 'tensorflow_savedmodel',
  inputs: [{ name: 'x', datatype: 'FP32', shape: [-1, 2] }],
  outputs: [{ name: 'y', datatype: 'FP32', shape: [-1, 2] }],
  signatures: [
    { name: 'serving_default', inputs: [{ name: 'x', datatype: 'FP32', shape: [-1, 2] }], outputs: [{ name: 'y', datatype: 'FP32', shape: [-1, 2] }] },
    {
      name: 'pair',
      inputs: [
        { name: 'a', datatype: 'INT64', shape: [-1] },
        { name: 's', datatype: 'BYTES', shape: [-1], tfDtype: 'DT_STRING', tensorName: 'pair_s:0' },
      ],
      outputs: [{ name: 'z', datatype: 'INT64', shape: [-1] }],
    },
  ],
};

const response = (outputs: Tensor[]): InferResponse => ({ modelName: 'm', outputs });

describe("TF Serving's V1 dialect", () => {
  it.each([
    [
      'row, one input',
      {
        instances: [
          [1, 2],
          [3, 4],
        ],
      },
      [{ name: 'x', shape: [2, 2], data: [1, 2, 3, 4] }],
      'row',
    ],
    ['row, keyed', { instances: [{ x: [1, 2] }] }, [{ name: 'x', shape: [1, 2], data: [1, 2] }], 'row'],
    ['columnar, bare value', { inputs: [[1, 2]] }, [{ name: 'x', shape: [1, 2], data: [1, 2] }], 'columnar'],
    ['columnar, keyed', { inputs: { x: [[1, 2]] } }, [{ name: 'x', shape: [1, 2], data: [1, 2] }], 'columnar'],
  ])('decodes %s', (_, doc, tensors, format) => {
    const d = tfServingDialect.decode(doc, model);
    expect(d.format).toBe(format);
    expect(d.request.parameters).toBeUndefined();
    expect(d.request.inputs.map((t) => ({ name: t.name, shape: t.shape, data: Array.from(t.data as Float32Array) }))).toEqual(tensors);
  });

  it('decodes a named signature with b64 and text strings, and passes its name on', () => {
    const d = tfServingDialect.decode(
      {
        signature_name: 'pair',
        instances: [
          { a: 1, s: { b64: 'AAE=' } },
          { a: 2, s: 'hi' },
        ],
      },
      model,
    );
    expect(d.request.parameters).toEqual({ signature_name: 'pair' });
    const [a, s] = d.request.inputs;
    expect(a).toMatchObject({ name: 'a', datatype: 'INT64', shape: [2] });
    expect(Array.from(a?.data as BigInt64Array)).toEqual([1n, 2n]);
    expect((s?.data as Uint8Array[]).map((b) => Array.from(b))).toEqual([
      [0, 1],
      [104, 105],
    ]);
  });

  it.each([
    [{ signature_name: 'nope', instances: [[1, 2]] }, /Serving signature name: "nope" not found in signature def/],
    [{ instances: [[1, 2]], inputs: [[1, 2]] }, /Only one of "instances" or "inputs"/],
    [{}, /Missing "instances" or "inputs"/],
    [{ instances: [] }, /"instances" is empty/],
    [{ instances: [{ y: [1, 2] }] }, /input 'y' is not in signature 'serving_default'/],
    [{ signature_name: 'pair', instances: [1] }, /has 2 inputs/],
    [{ signature_name: 'pair', inputs: { a: [1], s: [{ b64: '***' }] } }, /not valid base64/],
    [{ signature_name: 'pair', inputs: { a: [1], s: [3] } }, /expected a string or \{"b64": \.\.\.\}/],
    [[1, 2], /must be a JSON object/],
  ])('rejects %j with a 400', (doc, message) => {
    expect(() => tfServingDialect.decode(doc, model)).toThrow(message);
    try {
      tfServingDialect.decode(doc, model);
    } catch (e) {
      expect((e as { httpStatus: number }).httpStatus).toBe(400);
    }
  });

  const y: Tensor = { name: 'y', datatype: 'FP32', shape: [2, 2], data: Float32Array.of(1, 2.5, 3, 4) };
  const n: Tensor = { name: 'n', datatype: 'INT64', shape: [2], data: BigInt64Array.of(7n, 8n) };
  const text: Tensor = { name: 'text', datatype: 'BYTES', shape: [2], data: [Buffer.from('hi'), Uint8Array.of(0xff)] };
  const raw: Tensor = { name: 'raw_bytes', datatype: 'BYTES', shape: [1], data: [Buffer.from('hi')] };
  it.each([
    ['row', [y], '{"predictions":[[1.0,2.5],[3.0,4.0]]}'],
    ['row', [y, n], '{"predictions":[{"y":[1.0,2.5],"n":7},{"y":[3.0,4.0],"n":8}]}'],
    ['columnar', [y], '{"outputs":[[1.0,2.5],[3.0,4.0]]}'],
    ['columnar', [y, n], '{"outputs":{"y":[[1.0,2.5],[3.0,4.0]],"n":[7,8]}}'],
    ['row', [text], '{"predictions":["hi",{"b64":"/w=="}]}'],
    ['columnar', [raw], '{"outputs":[{"b64":"aGk="}]}'],
  ])('encodes %s outputs %#', (format, outputs, body) => {
    expect(tfServingDialect.encode(response(outputs), { request: { inputs: [] }, format })).toBe(body);
  });

  it('refuses row format when outputs do not share a batch dimension', () => {
    const scalar: Tensor = { name: 's', datatype: 'FP32', shape: [], data: Float32Array.of(1) };
    expect(() => tfServingDialect.encode(response([y, scalar]), { request: { inputs: [] }, format: 'row' })).toThrow(/columnar format/);
  });

  it('metadata lists every signature def', () => {
    expect(tfServingDialect.metadata?.(model)).toEqual({
      model_spec: { name: 'm', signature_name: '', version: '3' },
      metadata: {
        signature_def: {
          signature_def: {
            serving_default: {
              inputs: {
                x: {
                  dtype: 'DT_FLOAT',
                  tensor_shape: {
                    dim: [
                      { size: '-1', name: '' },
                      { size: '2', name: '' },
                    ],
                    unknown_rank: false,
                  },
                  name: 'x:0',
                },
              },
              outputs: {
                y: {
                  dtype: 'DT_FLOAT',
                  tensor_shape: {
                    dim: [
                      { size: '-1', name: '' },
                      { size: '2', name: '' },
                    ],
                    unknown_rank: false,
                  },
                  name: 'y:0',
                },
              },
              method_name: 'tensorflow/serving/predict',
            },
            pair: expect.objectContaining({
              inputs: {
                a: { dtype: 'DT_INT64', tensor_shape: { dim: [{ size: '-1', name: '' }], unknown_rank: false }, name: 'a:0' },
                s: { dtype: 'DT_STRING', tensor_shape: { dim: [{ size: '-1', name: '' }], unknown_rank: false }, name: 'pair_s:0' },
              },
            }),
          },
        },
      },
    });
  });
});

describe('V1 dialect registry', () => {
  it.each([
    ['tensorflow_savedmodel', 'tf-serving'],
    ['tensorflow_tfjs', 'tf-serving'],
    ['onnxruntime_onnx', 'kserve'],
    ['constructor', 'kserve'],
  ])('%s -> %s', (platform, name) => {
    expect(v1DialectFor(platform).name).toBe(name);
  });
  it('the kserve dialect has no metadata route', () => {
    expect(kserveDialect.metadata).toBeUndefined();
  });
});
