/**
 * V2 REST response bytes, checked against the anchor's exact expectations
 * (python/kserve/test/test_server.py and test_infer_type.py at kserve v0.20): field order,
 * explicit nulls in pure JSON responses, the compact layout of binary responses, and the
 * Inference-Header-Content-Length value.
 */
import { describe, expect, it } from 'vitest';
import type { InferRequest, InferResponse, Tensor } from '../tensor.js';
import { encodeRestInferResponse } from './rest-response.js';

const FP32_VALUES = [6.8, 2.8, 4.8, 1.4, 6.0, 3.4, 4.5, 1.6];
const FP32_JSON = '[6.800000190734863,2.799999952316284,4.800000190734863,1.399999976158142,6.0,3.4000000953674316,4.5,1.600000023841858]';
/** The same values as FP16, as the anchor's FP16OutputModel returns them (`\xcdF\x9aA...`). */
const FP16_BITS = Uint16Array.of(0x46cd, 0x419a, 0x44cd, 0x3d9a, 0x4600, 0x42cd, 0x4480, 0x3e66);

const fp16Output: Tensor = { name: 'fp16_output', datatype: 'FP16', shape: [8], data: FP16_BITS };
const fp32Output: Tensor = { name: 'fp32_output', datatype: 'FP32', shape: [8], data: Float32Array.from(FP32_VALUES) };
const fp16Model = (outputs: Tensor[]): InferResponse => ({ id: '123', modelName: 'FP16OutputModel', outputs });

function split(body: Buffer, headerLength: number | undefined): { header: string; raw: Buffer } {
  expect(headerLength).toBeDefined();
  return { header: body.subarray(0, headerLength).toString('utf8'), raw: body.subarray(headerLength) };
}

describe('encodeRestInferResponse: anchor bytes', () => {
  it('test_fp16_output_as_binary_data: one binary output, one JSON output, header length 345', () => {
    const request: InferRequest = {
      inputs: [],
      outputs: [
        { name: 'fp16_output', parameters: { binary_data: true } },
        { name: 'fp32_output', parameters: { binary_data: false } },
      ],
    };
    const { body, headerLength } = encodeRestInferResponse(fp16Model([fp16Output, fp32Output]), request);
    const { header, raw } = split(body, headerLength);
    expect(header).toBe(
      `{"id":"123","model_name":"FP16OutputModel","model_version":null,"outputs":[{"name":"fp16_output","shape":[8],"datatype":"FP16","parameters":{"binary_data_size":16}},{"name":"fp32_output","shape":[8],"datatype":"FP32","data":${FP32_JSON}}]}`,
    );
    expect(headerLength).toBe(345);
    expect(raw.equals(Buffer.from('\xcdF\x9aA\xcdD\x9a=\x00F\xcdB\x80Df>', 'latin1'))).toBe(true);
  });

  it('test_all_output_as_binary_data: binary_data_output makes both binary, header length 256', () => {
    const request: InferRequest = { inputs: [], parameters: { binary_data_output: true } };
    const { body, headerLength } = encodeRestInferResponse(fp16Model([fp16Output, fp32Output]), request);
    const { header, raw } = split(body, headerLength);
    expect(header).toBe(
      '{"id":"123","model_name":"FP16OutputModel","model_version":null,"outputs":[{"name":"fp16_output","shape":[8],"datatype":"FP16","parameters":{"binary_data_size":16}},{"name":"fp32_output","shape":[8],"datatype":"FP32","parameters":{"binary_data_size":32}}]}',
    );
    expect(headerLength).toBe(256);
    expect(raw.equals(Buffer.from('\xcdF\x9aA\xcdD\x9a=\x00F\xcdB\x80Df>\x9a\x99\xd9@333@\x9a\x99\x99@33\xb3?\x00\x00\xc0@\x9a\x99Y@\x00\x00\x90@\xcd\xcc\xcc?', 'latin1'))).toBe(
      true,
    );
  });

  it('test_binary_data_parameter_precedence: per-output binary_data beats binary_data_output', () => {
    const request: InferRequest = {
      inputs: [],
      parameters: { binary_data_output: true },
      outputs: [
        { name: 'fp16_output', parameters: { binary_data: true } },
        { name: 'fp32_output', parameters: { binary_data: false } },
      ],
    };
    const { body, headerLength } = encodeRestInferResponse(fp16Model([fp16Output, fp32Output]), request);
    expect(headerLength).toBe(345);
    expect(split(body, headerLength).header).toContain(`{"name":"fp32_output","shape":[8],"datatype":"FP32","data":${FP32_JSON}}`);
  });

  it('test_requested_output: a pure JSON response carries explicit nulls in anchor field order', () => {
    const request: InferRequest = { inputs: [], outputs: [{ name: 'fp32_output', parameters: { binary_data: false } }] };
    const { body, headerLength } = encodeRestInferResponse(fp16Model([fp32Output]), request);
    expect(headerLength).toBeUndefined();
    expect(body.toString('utf8')).toBe(
      `{"model_name":"FP16OutputModel","model_version":null,"id":"123","parameters":null,"outputs":[{"name":"fp32_output","shape":[8],"datatype":"FP32","parameters":null,"data":${FP32_JSON}}]}`,
    );
  });

  it('test_fp16_input_as_binary_data: BYTES and FP32 outputs as JSON', () => {
    const strings = ['cat', 'dog', 'cat', 'dog', 'cat', 'dog', 'cat', 'dog'].map((s) => Buffer.from(s));
    // FP16 inputs widened to FP32 by the model.
    const widened = Float32Array.of(6.80078125, 2.80078125, 4.80078125, 1.400390625, 6.0, 3.400390625, 4.5, 1.599609375);
    const response: InferResponse = {
      id: '123',
      modelName: 'FP16InputModel',
      outputs: [
        { name: 'str_output', datatype: 'BYTES', shape: [8], data: strings },
        { name: 'fp32_output', datatype: 'FP32', shape: [8], data: widened },
      ],
    };
    expect(encodeRestInferResponse(response, { inputs: [] }).body.toString('utf8')).toBe(
      '{"model_name":"FP16InputModel","model_version":null,"id":"123","parameters":null,"outputs":[{"name":"str_output","shape":[8],"datatype":"BYTES","parameters":null,"data":["cat","dog","cat","dog","cat","dog","cat","dog"]},{"name":"fp32_output","shape":[8],"datatype":"FP32","parameters":null,"data":[6.80078125,2.80078125,4.80078125,1.400390625,6.0,3.400390625,4.5,1.599609375]}]}',
    );
  });

  const threeOutputs = (): InferResponse => ({
    id: '1',
    modelName: 'test_model',
    outputs: [
      { name: 'output1', datatype: 'FP16', shape: [1], data: Uint16Array.of(0x3c00) },
      { name: 'output2', datatype: 'INT32', shape: [1], data: Int32Array.of(1) },
      { name: 'output3', datatype: 'BYTES', shape: [1], data: [Buffer.from('test')] },
    ],
  });

  it('test_infer_response_to_rest_with_mixed_binary_data (header length 306)', () => {
    const request: InferRequest = {
      inputs: [],
      outputs: [
        { name: 'output1', parameters: { binary_data: true } },
        { name: 'output2', parameters: { binary_data: true } },
        { name: 'output3', parameters: { binary_data: false } },
      ],
    };
    const { body, headerLength } = encodeRestInferResponse(threeOutputs(), request);
    expect(
      body.equals(
        Buffer.concat([
          Buffer.from(
            '{"id":"1","model_name":"test_model","model_version":null,"outputs":[{"name":"output1","shape":[1],"datatype":"FP16","parameters":{"binary_data_size":2}},{"name":"output2","shape":[1],"datatype":"INT32","parameters":{"binary_data_size":4}},{"name":"output3","shape":[1],"datatype":"BYTES","data":["test"]}]}',
          ),
          Buffer.from([0x00, 0x3c, 0x01, 0x00, 0x00, 0x00]),
        ]),
      ),
    ).toBe(true);
    expect(headerLength).toBe(306);
  });

  it('test_infer_response_to_rest_with_binary_output_data_true: BYTES go binary with their lengths', () => {
    const response = threeOutputs();
    const outputs = [response.outputs[0], { name: 'output2', datatype: 'FP16', shape: [1], data: Uint16Array.of(0x3c00) }, response.outputs[2]];
    const { body, headerLength } = encodeRestInferResponse({ ...response, outputs: outputs as Tensor[] }, { inputs: [], parameters: { binary_data_output: true } });
    const { header, raw } = split(body, headerLength);
    expect(header).toBe(
      '{"id":"1","model_name":"test_model","model_version":null,"outputs":[{"name":"output1","shape":[1],"datatype":"FP16","parameters":{"binary_data_size":2}},{"name":"output2","shape":[1],"datatype":"FP16","parameters":{"binary_data_size":2}},{"name":"output3","shape":[1],"datatype":"BYTES","parameters":{"binary_data_size":8}}]}',
    );
    expect(headerLength).toBe(325);
    expect(raw.equals(Buffer.from('\x00<\x00<\x04\x00\x00\x00test', 'latin1'))).toBe(true);
  });

  it('test_infer_response_to_rest_with_binary_output_data_precedence', () => {
    const request: InferRequest = {
      inputs: [],
      parameters: { binary_data_output: true },
      outputs: [
        { name: 'output1', parameters: { binary_data: true } },
        { name: 'output2', parameters: { binary_data: false } },
        { name: 'output3', parameters: { binary_data: true } },
      ],
    };
    const { body, headerLength } = encodeRestInferResponse(threeOutputs(), request);
    const { header, raw } = split(body, headerLength);
    expect(header).toBe(
      '{"id":"1","model_name":"test_model","model_version":null,"outputs":[{"name":"output1","shape":[1],"datatype":"FP16","parameters":{"binary_data_size":2}},{"name":"output2","shape":[1],"datatype":"INT32","data":[1]},{"name":"output3","shape":[1],"datatype":"BYTES","parameters":{"binary_data_size":8}}]}',
    );
    expect(headerLength).toBe(301);
    expect(raw.equals(Buffer.from('\x00<\x04\x00\x00\x00test', 'latin1'))).toBe(true);
  });
});

describe('encodeRestInferResponse: layout details', () => {
  const out: Tensor = { name: 'o', datatype: 'INT32', shape: [2], data: Int32Array.of(1, 2) };

  it('a model version and parameters appear where the anchor puts them (JSON)', () => {
    const response: InferResponse = {
      id: 'a',
      modelName: 'm',
      modelVersion: '2',
      parameters: { k: 'v', n: 1, b: true },
      outputs: [{ ...out, parameters: { p: 5n } }],
    };
    expect(encodeRestInferResponse(response, { inputs: [] }).body.toString()).toBe(
      '{"model_name":"m","model_version":"2","id":"a","parameters":{"k":"v","n":1,"b":true},"outputs":[{"name":"o","shape":[2],"datatype":"INT32","parameters":{"p":5},"data":[1,2]}]}',
    );
  });

  it('binary layout: response parameters go last, output parameters merge with binary_data_size', () => {
    const response: InferResponse = {
      id: 'a',
      modelName: 'm',
      modelVersion: '1',
      parameters: { k: 'v' },
      outputs: [{ ...out, parameters: { p: 'x' } }],
    };
    const { body, headerLength } = encodeRestInferResponse(response, { inputs: [], parameters: { binary_data_output: true } });
    expect(split(body, headerLength).header).toBe(
      '{"id":"a","model_name":"m","model_version":"1","outputs":[{"name":"o","shape":[2],"datatype":"INT32","parameters":{"p":"x","binary_data_size":8}}],"parameters":{"k":"v"}}',
    );
  });

  it('names with characters that need escaping stay valid JSON', () => {
    const response: InferResponse = { id: 'q"1', modelName: 'm\\n', outputs: [{ ...out, name: 'o"ut' }] };
    const parsed = JSON.parse(encodeRestInferResponse(response, { inputs: [] }).body.toString()) as Record<string, unknown>;
    expect(parsed).toMatchObject({ id: 'q"1', model_name: 'm\\n', outputs: [{ name: 'o"ut' }] });
  });

  it('BF16 outputs keep their bits over binary and have no JSON form', () => {
    const bf16: Tensor = { name: 'b', datatype: 'BF16', shape: [3], data: Uint16Array.of(0x3f80, 0x7fc1, 0x8001) };
    const { body, headerLength } = encodeRestInferResponse({ modelName: 'm', outputs: [bf16] }, { inputs: [], parameters: { binary_data_output: true } });
    expect(Array.from(split(body, headerLength).raw)).toEqual([0x80, 0x3f, 0xc1, 0x7f, 0x01, 0x80]);
    expect(() => encodeRestInferResponse({ modelName: 'm', outputs: [bf16] }, { inputs: [] })).toThrow(/BF16, which has no JSON form/);
  });

  it('an output view on a larger buffer sends only its own bytes', () => {
    const backing = Int32Array.of(9, 1, 2, 9);
    const view: Tensor = { name: 'o', datatype: 'INT32', shape: [2], data: backing.subarray(1, 3) };
    const { body, headerLength } = encodeRestInferResponse({ modelName: 'm', outputs: [view] }, { inputs: [], parameters: { binary_data_output: true } });
    expect(Array.from(split(body, headerLength).raw)).toEqual([1, 0, 0, 0, 2, 0, 0, 0]);
    expect(encodeRestInferResponse({ modelName: 'm', outputs: [view] }, { inputs: [] }).body.toString()).toContain('"data":[1,2]');
  });
});
