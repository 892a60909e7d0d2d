import { describe, expect, it } from 'vitest';
import { parseShape } from '../input-header.js';
import { decodeRestInferRequest, parseHeaderLength, parseJson } from './rest-request.js';
import { expectInvalidInput } from '../../test/helpers/errors.js';

const json = (doc: unknown) => Buffer.from(JSON.stringify(doc));

/** A binary-extension body at a given offset inside a larger buffer, as a transport may hand it over. */
function binary(header: object, raws: Uint8Array[], offset = 0): { body: Uint8Array; headerLength: number } {
  const head = Buffer.from(JSON.stringify(header));
  const total = Buffer.concat([Buffer.alloc(offset), head, ...raws]);
  return { body: new Uint8Array(total.buffer, total.byteOffset + offset, total.byteLength - offset), headerLength: head.byteLength };
}

const invalid = expectInvalidInput;

describe('decodeRestInferRequest: JSON', () => {
  it('decodes id, parameters, typed inputs and requested outputs', () => {
    const req = decodeRestInferRequest(
      json({
        id: 'r1',
        model_name: 'ignored',
        parameters: { binary_data_output: true, s: 'x', n: 1.5 },
        inputs: [
          { name: 'a', shape: [1, 2], datatype: 'INT32', data: [[1, 2]], parameters: { content_type: 'np' } },
          { name: 'b', shape: [2], datatype: 'BYTES', data: ['x', 'y'] },
        ],
        outputs: [{ name: 'o2', parameters: { binary_data: true } }, { name: 'o1' }],
      }),
      undefined,
    );
    expect(req.id).toBe('r1');
    expect(req.parameters).toEqual({ binary_data_output: true, s: 'x', n: 1.5 });
    expect(req.inputs[0]).toEqual({ name: 'a', datatype: 'INT32', shape: [1, 2], data: Int32Array.of(1, 2), parameters: { content_type: 'np' } });
    expect(req.inputs[1]?.data).toEqual([Buffer.from('x'), Buffer.from('y')].map((b) => new Uint8Array(b)));
    expect(req.outputs).toEqual([
      { name: 'o2', parameters: { binary_data: true } },
      { name: 'o1', parameters: undefined },
    ]);
  });

  it('null id, parameters and outputs are the same as absent ones', () => {
    const req = decodeRestInferRequest(json({ id: null, parameters: null, outputs: null, inputs: [] }), undefined);
    expect(req).toEqual({ id: undefined, parameters: undefined, inputs: [], outputs: undefined });
  });

  it.each<[string, unknown, RegExp]>([
    ['a datatype that is not a string', { inputs: [{ name: 'a', shape: [1], datatype: 3, data: [1] }] }, /input 'a': invalid datatype 3/],
    ['a fractional dimension', { inputs: [{ name: 'a', shape: [1.5], datatype: 'FP32', data: [1] }] }, /input 'a': 'shape' must hold non-negative integers, got 1.5/],
    ['an empty input name', { inputs: [{ name: '', shape: [1], datatype: 'FP32', data: [1] }] }, /inputs\[0\]: 'name' must be a non-empty string/],
    ['outputs that are not a list', { inputs: [], outputs: { name: 'o' } }, /'outputs' must be an array/],
    ['parameters that are a list', { inputs: [], parameters: [1] }, /request: 'parameters' must be an object/],
    ['a null parameter value', { inputs: [], parameters: { a: null } }, /request: parameter 'a' must be a string, number or boolean, not null/],
  ])('rejects %s', (_what, doc, message) => {
    invalid(() => decodeRestInferRequest(json(doc), undefined), message);
  });
});

describe('decodeRestInferRequest: binary data extension', () => {
  const f32 = Float32Array.of(1.5, -2, 3.25, 4);
  const i64 = BigInt64Array.of(-(2n ** 63n), 2n ** 63n - 1n);

  it('aligned binary inputs are zero-copy views on the body', () => {
    // Pad the header so the raw data lands on an 8-byte boundary.
    let header = { inputs: [{ name: 'a', shape: [2, 2], datatype: 'FP32', parameters: { binary_data_size: 16 } }], id: '' };
    while (Buffer.byteLength(JSON.stringify(header)) % 8 !== 0) header = { ...header, id: `${header.id}x` };
    const { body, headerLength } = binary(header, [new Uint8Array(f32.buffer)], 8);
    const req = decodeRestInferRequest(body, headerLength);
    const data = req.inputs[0]?.data as Float32Array;
    expect(data).toEqual(f32);
    expect(data.buffer).toBe(body.buffer);
  });

  it('misaligned binary inputs are copied once and keep their values', () => {
    let header = { inputs: [{ name: 'a', shape: [2], datatype: 'INT64', parameters: { binary_data_size: 16 } }], id: '' };
    while (Buffer.byteLength(JSON.stringify(header)) % 8 !== 3) header = { ...header, id: `${header.id}x` };
    const { body, headerLength } = binary(header, [new Uint8Array(i64.buffer)]);
    const data = decodeRestInferRequest(body, headerLength).inputs[0]?.data as BigInt64Array;
    expect(data).toEqual(i64);
    expect(data.byteOffset % 8).toBe(0);
  });

  it('binary and JSON inputs mix; binary_data_size is consumed, other input parameters kept', () => {
    const { body, headerLength } = binary(
      {
        inputs: [
          { name: 'a', shape: [4], datatype: 'FP32', parameters: { binary_data_size: 16, tag: 'keep' } },
          { name: 'j', shape: [1], datatype: 'BOOL', data: [true] },
          { name: 'b', shape: [2], datatype: 'BYTES', parameters: { binary_data_size: 10 } },
        ],
      },
      [new Uint8Array(f32.buffer), Buffer.from([1, 0, 0, 0, 0x61, 1, 0, 0, 0, 0x62])],
    );
    const req = decodeRestInferRequest(body, headerLength);
    expect(req.inputs.map((t) => [t.name, t.parameters])).toEqual([
      ['a', { tag: 'keep' }],
      ['j', undefined],
      ['b', undefined],
    ]);
    expect(req.inputs[0]?.data).toEqual(f32);
    expect(req.inputs[1]?.data).toEqual(Uint8Array.of(1));
    expect((req.inputs[2]?.data as Uint8Array[]).map((b) => Buffer.from(b).toString())).toEqual(['a', 'b']);
  });

  it.each(['FP16', 'BF16'])('%s inputs keep their exact bits (NaN payloads, signed zero, subnormals)', (datatype) => {
    const bits = Uint16Array.of(0x7e01, 0x8000, 0x0001, 0xffff);
    const { body, headerLength } = binary({ inputs: [{ name: 'h', shape: [4], datatype, parameters: { binary_data_size: 8 } }] }, [new Uint8Array(bits.buffer)]);
    const t = decodeRestInferRequest(body, headerLength).inputs[0];
    expect(t?.datatype).toBe(datatype);
    expect(t?.data).toBeInstanceOf(Uint16Array);
    expect(Array.from(t?.data as Uint16Array)).toEqual([0x7e01, 0x8000, 0x0001, 0xffff]);
  });

  it('a header length equal to the body is a JSON-only request', () => {
    const body = json({ inputs: [{ name: 'a', shape: [1], datatype: 'FP64', data: [0.25] }] });
    expect(decodeRestInferRequest(body, body.byteLength).inputs[0]?.data).toEqual(Float64Array.of(0.25));
  });

  it.each<[string, object, Uint8Array[], RegExp]>([
    [
      'a short body',
      { inputs: [{ name: 'a', shape: [4], datatype: 'FP32', parameters: { binary_data_size: 16 } }] },
      [new Uint8Array(8)],
      /input 'a': binary_data_size 16 runs past the end of the body \(8 bytes left\)/,
    ],
    [
      'the second input past the end',
      {
        inputs: [
          { name: 'a', shape: [1], datatype: 'FP32', parameters: { binary_data_size: 4 } },
          { name: 'b', shape: [1], datatype: 'FP32', parameters: { binary_data_size: 4 } },
        ],
      },
      [new Uint8Array(6)],
      /input 'b': binary_data_size 4 runs past the end of the body \(2 bytes left\)/,
    ],
    [
      'unclaimed trailing bytes',
      { inputs: [{ name: 'a', shape: [1], datatype: 'FP32', parameters: { binary_data_size: 4 } }] },
      [new Uint8Array(7)],
      /request has 3 bytes of binary data not claimed/,
    ],
    [
      'binary bytes with only JSON inputs',
      { inputs: [{ name: 'a', shape: [1], datatype: 'FP32', data: [1] }] },
      [new Uint8Array(4)],
      /request has 4 bytes of binary data not claimed/,
    ],
    [
      'a negative binary_data_size',
      { inputs: [{ name: 'a', shape: [1], datatype: 'FP32', parameters: { binary_data_size: -4 } }] },
      [],
      /'binary_data_size' must be a non-negative integer/,
    ],
    [
      'a string binary_data_size',
      { inputs: [{ name: 'a', shape: [1], datatype: 'FP32', parameters: { binary_data_size: '4' } }] },
      [new Uint8Array(4)],
      /'binary_data_size' must be a non-negative integer/,
    ],
    [
      'a size that does not fit the shape',
      { inputs: [{ name: 'a', shape: [2], datatype: 'FP64', parameters: { binary_data_size: 8 } }] },
      [new Uint8Array(8)],
      /input 'a': expected 16 bytes of FP64 data for shape \[2\] but got 8/,
    ],
  ])('rejects %s', (_what, header, raws, message) => {
    const { body, headerLength } = binary(header, raws);
    invalid(() => decodeRestInferRequest(body, headerLength), message);
  });

  it('rejects binary_data_size without a binary part', () => {
    invalid(
      () => decodeRestInferRequest(json({ inputs: [{ name: 'a', shape: [1], datatype: 'FP32', parameters: { binary_data_size: 4 } }] }), undefined),
      /input 'a' has binary_data_size but the request has no binary part \(missing inference-header-content-length header\)/,
    );
  });
});

describe('parseHeaderLength', () => {
  it.each<[string | string[] | undefined, number, number | undefined]>([
    [undefined, 10, undefined],
    ['0', 10, 0],
    ['10', 10, 10],
    [' 7 ', 10, 7],
    [['5', '6'], 10, 5],
  ])('%j of a %d-byte body is %j', (header, bodyLength, expected) => {
    expect(parseHeaderLength(header, bodyLength)).toBe(expected);
  });

  it.each<[string, number, RegExp]>([
    ['11', 10, /inference-header-content-length header is 11 but the request body has only 10 bytes/],
    ['abc', 10, /inference-header-content-length header must be a non-negative integer, got 'abc'/],
    ['-1', 10, /must be a non-negative integer, got '-1'/],
    ['1.5', 10, /must be a non-negative integer/],
    ['', 10, /must be a non-negative integer, got ''/],
    ['0x10', 100, /must be a non-negative integer/],
  ])('rejects %j', (header, bodyLength, message) => {
    invalid(() => parseHeaderLength(header, bodyLength), message);
  });
});

describe('parseJson and parseShape', () => {
  it('malformed JSON is the anchor 400 "Unrecognized request format"', () => {
    invalid(() => parseJson('{"a":'), /^Unrecognized request format: /);
    expect(parseJson('{"a":1}')).toEqual({ a: 1 });
  });

  it('shapes are non-negative safe integers', () => {
    expect(parseShape([0, 3, 2], 'x')).toEqual([0, 3, 2]);
    expect(parseShape([], 'x')).toEqual([]);
    invalid(() => parseShape([2 ** 53], 'x'), /x: 'shape' must hold non-negative integers/);
    invalid(() => parseShape(['2'], 'x'), /got "2"/);
    invalid(() => parseShape(null, 'x'), /x: 'shape' must be an array of integers/);
  });
});
