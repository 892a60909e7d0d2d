/** The gRPC codec on its own: parameters, zero-copy raw decoding, output selection. */
import { describe, expect, it } from 'vitest';
import type { Tensor } from '../tensor.js';
import { KServeError } from '../errors.js';
import { decodeGrpcInferRequest } from './infer-request.js';
import { encodeGrpcInferResponse } from './infer-response.js';
import { decodeGrpcParameters, encodeGrpcParameters } from './parameters.js';

describe('parameters', () => {
  it('decodes every InferParameter member, keeping 64-bit integers exact', () => {
    expect(
      decodeGrpcParameters(
        {
          b: { parameter_choice: 'bool_param', bool_param: true },
          i: { parameter_choice: 'int64_param', int64_param: '-42' },
          big: { parameter_choice: 'int64_param', int64_param: '-9223372036854775808' },
          s: { parameter_choice: 'string_param', string_param: 'text' },
          d: { parameter_choice: 'double_param', double_param: 0.5 },
          u: { parameter_choice: 'uint64_param', uint64_param: '18446744073709551615' },
        },
        'request',
      ),
    ).toEqual({ b: true, i: -42, big: -(2n ** 63n), s: 'text', d: 0.5, u: 2n ** 64n - 1n });
  });

  it('is undefined for an empty map and rejects a parameter with no value', () => {
    expect(decodeGrpcParameters({}, 'request')).toBeUndefined();
    expect(() => decodeGrpcParameters({ x: {} }, "input 'a'")).toThrow(/^input 'a': parameter 'x' has no value/);
  });

  it('encodes integers as int64 (uint64 past its range), other numbers as double', () => {
    expect(encodeGrpcParameters({ b: false, s: 'x', i: 7, d: 1.5, big: 2n ** 63n - 1n, huge: 2n ** 64n - 1n })).toEqual({
      b: { bool_param: false },
      s: { string_param: 'x' },
      i: { int64_param: 7 },
      d: { double_param: 1.5 },
      big: { int64_param: '9223372036854775807' },
      huge: { uint64_param: '18446744073709551615' },
    });
  });
});

describe('raw inputs', () => {
  const request = (raw: Buffer) => ({
    model_name: 'm',
    inputs: [{ name: 'x', datatype: 'FP32', shape: ['1', '4'] }],
    raw_input_contents: [raw],
  });

  it('takes a view on the received message when the data is aligned', () => {
    const message = Buffer.from(new ArrayBuffer(64));
    const raw = message.subarray(16, 32);
    new Float32Array(raw.buffer, raw.byteOffset, 4).set([1, 2, 3, 4]);
    const data = decodeGrpcInferRequest(request(raw)).request.inputs[0]?.data as Float32Array;
    expect(data.buffer).toBe(message.buffer);
    expect(Array.from(data)).toEqual([1, 2, 3, 4]);
  });

  it('copies once when the data is not aligned', () => {
    const message = Buffer.from(new ArrayBuffer(64));
    const raw = message.subarray(5, 21);
    Buffer.from(Float32Array.from([1, 2, 3, 4]).buffer).copy(raw);
    const decoded = decodeGrpcInferRequest(request(raw));
    const data = decoded.request.inputs[0]?.data as Float32Array;
    expect(data.buffer).not.toBe(message.buffer);
    expect(Array.from(data)).toEqual([1, 2, 3, 4]);
    expect(decoded.rawInputs).toBe(true);
  });

  it('decodes BF16 raw bits although no model here can take them', () => {
    const decoded = decodeGrpcInferRequest({
      inputs: [{ name: 'x', datatype: 'BF16', shape: ['2'] }],
      raw_input_contents: [Buffer.from(Uint16Array.from([0x3f80, 0xc000]).buffer)],
    });
    expect(Array.from(decoded.request.inputs[0]?.data as Uint16Array)).toEqual([0x3f80, 0xc000]);
  });

  it('ignores an empty contents message beside raw data', () => {
    const decoded = decodeGrpcInferRequest({
      inputs: [{ name: 'x', datatype: 'INT32', shape: ['1'], contents: { int_contents: [], fp32_contents: [] } }],
      raw_input_contents: [Buffer.from(Int32Array.from([-5]).buffer)],
    });
    expect(Array.from(decoded.request.inputs[0]?.data as Int32Array)).toEqual([-5]);
  });
});

describe('typed inputs and request fields', () => {
  it('maps an empty model_version and id to the defaults and keeps the requested outputs', () => {
    const decoded = decodeGrpcInferRequest({
      model_name: 'm',
      model_version: '',
      id: '',
      inputs: [{ name: 'x', datatype: 'INT64', shape: ['2'], contents: { int64_contents: ['9007199254740993', '-1'] } }],
      outputs: [{ name: 'b' }, { name: 'a', parameters: { k: { parameter_choice: 'string_param', string_param: 'v' } } }],
    });
    expect(decoded.modelVersion).toBeUndefined();
    expect(decoded.request.id).toBeUndefined();
    expect(Array.from(decoded.request.inputs[0]?.data as BigInt64Array)).toEqual([9007199254740993n, -1n]);
    expect(decoded.request.outputs).toEqual([
      { name: 'b', parameters: undefined },
      { name: 'a', parameters: { k: 'v' } },
    ]);
    expect(decoded.rawInputs).toBe(false);
  });

  it.each([
    [{ inputs: [{ name: '', datatype: 'FP32', shape: ['1'] }] }, "inputs[0]: 'name' must be a non-empty string"],
    [
      {
        inputs: [
          { name: 'a', datatype: 'FP32', shape: ['1'], contents: { fp32_contents: [1] } },
          { name: 'a', datatype: 'FP32', shape: ['1'], contents: { fp32_contents: [1] } },
        ],
      },
      "input 'a' appears more than once",
    ],
    [{ inputs: [{ name: 'a', datatype: 'FP32', shape: ['-1'] }] }, "input 'a': 'shape' must hold non-negative integers, got -1"],
    [{ inputs: [{ name: 'a', datatype: 'UINT16', shape: ['1'], contents: { uint_contents: [70000] } }] }, "input 'a': element 0 (70000) is out of range for UINT16"],
  ])('rejects %j', (msg, message) => {
    let err: unknown;
    try {
      decodeGrpcInferRequest(msg);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(KServeError);
    expect((err as KServeError).kind).toBe('InvalidInput');
    expect((err as KServeError).message).toBe(message);
  });
});

describe('responses', () => {
  const fp32: Tensor = { name: 'f', datatype: 'FP32', shape: [2], data: Float32Array.from([1.5, -2]) };
  const fp16: Tensor = { name: 'h', datatype: 'FP16', shape: [1], data: Uint16Array.from([0x3c00]) };
  const bytes: Tensor = { name: 's', datatype: 'BYTES', shape: [2], data: [Buffer.from('ab'), Buffer.from('')] };

  it('answers typed contents to a typed request', () => {
    const msg = encodeGrpcInferResponse({ id: 'r', modelName: 'm', modelVersion: '3', outputs: [fp32, bytes] }, false);
    expect(msg.raw_output_contents).toEqual([]);
    expect(msg.outputs.map((o) => o.contents)).toEqual([{ fp32_contents: Float32Array.from([1.5, -2]) }, { bytes_contents: [Buffer.from('ab'), Buffer.from('')] }]);
    expect([msg.id, msg.model_name, msg.model_version]).toEqual(['r', 'm', '3']);
  });

  it('answers raw outputs, all of them, when one output has no typed field', () => {
    const msg = encodeGrpcInferResponse({ modelName: 'm', outputs: [fp32, fp16] }, false);
    expect(msg.outputs.map((o) => o.contents)).toEqual([undefined, undefined]);
    expect(msg.raw_output_contents.map((b) => Buffer.from(b).toString('hex'))).toEqual(['0000c03f000000c0', '003c']);
  });

  it('answers raw outputs to a raw request, with BYTES length-prefixed', () => {
    const msg = encodeGrpcInferResponse({ modelName: 'm', outputs: [bytes] }, true);
    expect(Buffer.from(msg.raw_output_contents[0] as Uint8Array).toString('hex')).toBe('020000006162' + '00000000');
  });

  it('encodes response and output parameters', () => {
    const msg = encodeGrpcInferResponse({ modelName: 'm', parameters: { n: 1 }, outputs: [{ ...fp32, parameters: { unit: 'cm' } }] }, false);
    expect(msg.parameters).toEqual({ n: { int64_param: 1 } });
    expect(msg.outputs[0]?.parameters).toEqual({ unit: { string_param: 'cm' } });
  });
});
