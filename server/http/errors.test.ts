/**
 * Every client-visible error class over real HTTP: the status code, an `{"error": msg}` body
 * whose message says what was wrong (naming the input where there is one), and never a stack
 * trace. One table per request shape.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEADER_LENGTH, binaryBody, bytesOf, bytesTensor, expectError, get, post } from '../../test/helpers/http.js';
import { type TestServer, makeRepository, startServer } from '../../test/helpers/server.js';

let t: TestServer;
let small: TestServer;
let repo: ReturnType<typeof makeRepository>;
beforeAll(async () => {
  repo = makeRepository({
    fp32: 'identity_fp32',
    u8: 'identity_uint8',
    i32: 'identity_int32',
    i64: 'identity_int64',
    bytes: 'identity_bytes',
    static: 'static_fp32_2x3',
    add_sub: 'add_sub',
    add_free_dims: 'add_free_dims',
  });
  [t, small] = await Promise.all([
    startServer(['--model_repository', repo.dir]),
    startServer(['--model_name', 'fp32', '--model_dir', repo.dir + '/fp32', '--rest_max_body_bytes', '1024']),
  ]);
});
afterAll(async () => {
  await Promise.all([t.close(), small.close()]);
  repo.cleanup();
});

const url = (model: string) => `${t.url}/v2/models/${model}/infer`;
const input = (over: Record<string, unknown> = {}) => ({ name: 'INPUT0', shape: [1, 2], datatype: 'FP32', data: [1, 2], ...over });
const ones16 = Array(16).fill(1);

describe('V2 JSON request errors', () => {
  it.each<[string, string, string | object, number, RegExp]>([
    ['malformed JSON', 'fp32', '{"inputs": [', 400, /^Unrecognized request format: /],
    ['an empty body', 'fp32', '', 400, /^Unrecognized request format: /],
    ['a body that is not an object', 'fp32', '[1, 2]', 400, /^Unrecognized request format: the request must be a JSON object/],
    ['no inputs', 'fp32', {}, 400, /^Expected "inputs" to be a list$/],
    ['inputs not a list', 'fp32', { inputs: { INPUT0: [1] } }, 400, /^Expected "inputs" to be a list$/],
    ['an input without a name', 'fp32', { inputs: [{ shape: [1], datatype: 'FP32', data: [1] }] }, 400, /inputs\[0\]: 'name'/],
    ['an input without data', 'fp32', { inputs: [{ name: 'INPUT0', shape: [1, 1], datatype: 'FP32' }] }, 400, /^'data' field is missing for input 'INPUT0'$/],
    ['an unknown datatype', 'fp32', { inputs: [input({ datatype: 'FLOAT' })] }, 400, /input 'INPUT0': invalid datatype "FLOAT"/],
    ['a negative shape dimension', 'fp32', { inputs: [input({ shape: [-1, 2] })] }, 400, /input 'INPUT0': 'shape' must hold non-negative integers/],
    ['a shape that is not an array', 'fp32', { inputs: [input({ shape: 2 })] }, 400, /input 'INPUT0': 'shape' must be an array/],
    ['too few elements for the shape', 'fp32', { inputs: [input({ shape: [2, 2], data: [1, 2, 3] })] }, 400, /input 'INPUT0': shape \[2,2\] has 4 elements but data has 3/],
    [
      'too many elements for the shape',
      'fp32',
      { inputs: [input({ shape: [2, 2], data: [[1, 2], [3, 4], [5]] })] },
      400,
      /input 'INPUT0': shape \[2,2\] has 4 elements but data has 5/,
    ],
    ['a string element in FP32 data', 'fp32', { inputs: [input({ data: [1, 'a'] })] }, 400, /input 'INPUT0': element 1 is string "a", which is not a valid FP32 value/],
    ['a null element', 'fp32', { inputs: [input({ data: [null, 1] })] }, 400, /input 'INPUT0': element 0 is null, which is not a valid FP32 value/],
    ['a bool element in FP32 data', 'fp32', { inputs: [input({ data: [1, true] })] }, 400, /element 1 is boolean true, which is not a valid FP32 value/],
    ['a number element in BYTES data', 'bytes', { inputs: [input({ datatype: 'BYTES', data: ['a', 7] })] }, 400, /element 1 is number 7, which is not a valid BYTES value/],
    ['300 for UINT8', 'u8', { inputs: [input({ datatype: 'UINT8', data: [1, 300] })] }, 400, /input 'INPUT0': element 1 is number 300, which is not a valid UINT8 value/],
    ['-1 for UINT8', 'u8', { inputs: [input({ datatype: 'UINT8', data: [-1, 0] })] }, 400, /element 0 is number -1, which is not a valid UINT8 value/],
    ['2^31 for INT32', 'i32', { inputs: [input({ datatype: 'INT32', data: [2147483648, 0] })] }, 400, /element 0 is number 2147483648, which is not a valid INT32 value/],
    ['a fraction for INT32', 'i32', { inputs: [input({ datatype: 'INT32', data: [1.5, 0] })] }, 400, /element 0 is number 1.5, which is not a valid INT32 value/],
    ['a fraction for INT64', 'i64', { inputs: [input({ datatype: 'INT64', data: [0, 2.5] })] }, 400, /element 1 is number 2.5, which is not a valid INT64 value/],
    // JSON numbers are doubles: beyond 2^53 the value the client meant is already lost.
    ['an INT64 beyond 2^53', 'i64', '{"inputs":[{"name":"INPUT0","shape":[1,1],"datatype":"INT64","data":[9007199254740993]}]}', 400, /element 0 .*INT64.*binary/],
    ["a datatype other than the model input's", 'fp32', { inputs: [input({ datatype: 'INT32' })] }, 400, /input 'INPUT0': datatype INT32 does not match the model's FP32/],
    [
      "a shape other than a static model input's",
      'static',
      { inputs: [input({ shape: [3, 2], data: [1, 2, 3, 4, 5, 6] })] },
      400,
      /input 'INPUT0': shape \[3,2\] does not match the model's \[2,3\]/,
    ],
    [
      "a rank other than the model input's",
      'static',
      { inputs: [input({ shape: [6], data: [1, 2, 3, 4, 5, 6] })] },
      400,
      /input 'INPUT0': shape \[6\] does not match the model's \[2,3\]/,
    ],
    [
      "a rank other than a dynamic model input's",
      'fp32',
      { inputs: [input({ shape: [2], data: [1, 2] })] },
      400,
      /input 'INPUT0': shape \[2\] does not match the model's \[-1,-1\]/,
    ],
    [
      'a wrong fixed dimension',
      'add_sub',
      { inputs: [input({ shape: [1, 2] }), input({ name: 'INPUT1', shape: [1, 16], data: ones16 })] },
      400,
      /input 'INPUT0': shape \[1,2\] does not match the model's \[-1,16\]/,
    ],
    ['an unknown input', 'fp32', { inputs: [input({ name: 'NOPE' })] }, 400, /Unexpected input 'NOPE' for model fp32; expected inputs: INPUT0/],
    ['a missing input', 'add_sub', { inputs: [input({ shape: [1, 16], data: ones16 })] }, 400, /model add_sub requires input 'INPUT1'/],
    ['the same input twice', 'fp32', { inputs: [input(), input()] }, 400, /input 'INPUT0' appears more than once/],
    ['an unknown requested output', 'fp32', { inputs: [input()], outputs: [{ name: 'NOPE' }] }, 400, /Unexpected inference output 'NOPE' for model fp32/],
    [
      'an output requested twice',
      'add_sub',
      {
        inputs: [input({ shape: [1, 16], data: ones16 }), input({ name: 'INPUT1', shape: [1, 16], data: ones16 })],
        outputs: [{ name: 'OUTPUT0' }, { name: 'OUTPUT1' }, { name: 'OUTPUT0' }],
      },
      400,
      /output 'OUTPUT0' is requested more than once/,
    ],
    ['a requested output without a name', 'fp32', { inputs: [input()], outputs: [{}] }, 400, /outputs\[0\]: 'name' must be a string/],
    ['nested request parameters', 'fp32', { inputs: [input()], parameters: { a: { b: 1 } } }, 400, /request: parameter 'a' must be a string, number or boolean/],
    ['array input parameters', 'fp32', { inputs: [input({ parameters: { a: [1] } })] }, 400, /input 'INPUT0': parameter 'a' must be a string, number or boolean, not an array/],
    ['an id that is not a string', 'fp32', { id: 7, inputs: [input()] }, 400, /'id' must be a string/],
    [
      'binary_data_size without a binary part',
      'fp32',
      { inputs: [input({ data: undefined, parameters: { binary_data_size: 8 } })] },
      400,
      /input 'INPUT0' has binary_data_size but the request has no binary part/,
    ],
  ])('%s', async (_what, model, body, status, message) => {
    expectError(await post(url(model), body, { 'content-type': 'application/json' }), status, message);
  });

  it('no client error takes a model down: each model still serves afterwards', async () => {
    for (const [model, datatype, data] of [
      ['fp32', 'FP32', [1, 2]],
      ['add_sub', 'FP32', ones16],
      ['i64', 'INT64', [1, 2]],
      ['static', 'FP32', [1, 2, 3, 4, 5, 6]],
    ] as const) {
      const shape = model === 'static' ? [2, 3] : [1, data.length];
      const inputs = [{ name: 'INPUT0', shape, datatype, data }];
      if (model === 'add_sub') inputs.push({ name: 'INPUT1', shape, datatype, data });
      const r = await post(url(model), { inputs });
      expect(r.status, `${model}: ${r.text}`).toBe(200);
    }
  });

  it('an unknown model is 404 with the anchor message', async () => {
    expectError(await post(url('nope'), { inputs: [input()] }), 404, /^Model with name nope does not exist\.$/);
  });

  it('an error the runtime raises is a 500 with its message and no stack', async () => {
    // Batch sizes 2 and 3 pass validation (both are -1, and their dims are named differently) but cannot be added.
    const msg = expectError(
      await post(url('add_free_dims'), {
        inputs: [
          { name: 'INPUT0', shape: [2, 16], datatype: 'FP32', data: Array(32).fill(1) },
          { name: 'INPUT1', shape: [3, 16], datatype: 'FP32', data: Array(48).fill(1) },
        ],
      }),
      500,
    );
    expect(msg.length).toBeLessThan(2000);
  });
});

describe('V2 binary extension errors', () => {
  const f32 = (n: number) => bytesOf(new Float32Array(n).fill(1));
  const send = (header: object, raws: Uint8Array[], headerValue?: (len: number, total: number) => string) => {
    const { body, headerLength } = binaryBody(header, raws);
    const value = headerValue === undefined ? String(headerLength) : headerValue(headerLength, body.byteLength);
    return post(url('fp32'), body, { [HEADER_LENGTH]: value, 'content-type': 'application/octet-stream' });
  };
  const binInput = (size: number, over: Record<string, unknown> = {}) => ({
    name: 'INPUT0',
    shape: [1, 4],
    datatype: 'FP32',
    parameters: { binary_data_size: size },
    ...over,
  });

  it.each<[string, object, Uint8Array[], ((len: number, total: number) => string) | undefined, RegExp]>([
    [
      'binary_data_size past the end of the body (truncated)',
      { inputs: [binInput(16)] },
      [f32(2)],
      undefined,
      /input 'INPUT0': binary_data_size 16 runs past the end of the body \(8 bytes left\)/,
    ],
    [
      'a header length past the body',
      { inputs: [binInput(16)] },
      [f32(4)],
      (_l, total) => String(total + 1),
      /inference-header-content-length header is \d+ but the request body has only \d+ bytes/,
    ],
    ['a non-integer header length', { inputs: [binInput(16)] }, [f32(4)], () => 'abc', /inference-header-content-length header must be a non-negative integer, got 'abc'/],
    ['a fractional header length', { inputs: [binInput(16)] }, [f32(4)], (l) => `${l}.5`, /header must be a non-negative integer/],
    ['a negative header length', { inputs: [binInput(16)] }, [f32(4)], () => '-3', /header must be a non-negative integer/],
    ['a header length cutting the JSON short', { inputs: [binInput(16)] }, [f32(4)], (l) => String(l - 3), /^Unrecognized request format: /],
    ['extra trailing binary bytes', { inputs: [binInput(16)] }, [f32(5)], undefined, /request has 4 bytes of binary data not claimed by any input's binary_data_size/],
    ['binary_data_size not matching the shape', { inputs: [binInput(12)] }, [f32(3)], undefined, /input 'INPUT0': expected 16 bytes of FP32 data for shape \[1,4\] but got 12/],
    ['a non-integer binary_data_size', { inputs: [binInput(1.5)] }, [f32(4)], undefined, /input 'INPUT0': 'binary_data_size' must be a non-negative integer/],
    ['both data and binary_data_size', { inputs: [binInput(16, { data: [1, 2, 3, 4] })] }, [f32(4)], undefined, /input 'INPUT0' has both 'data' and 'binary_data_size'/],
  ])('%s', async (_what, header, raws, headerValue, message) => {
    expectError(await send(header, raws, headerValue), 400, message);
  });

  it.each<[string, Uint8Array, RegExp]>([
    ['a BYTES length prefix past the end', Buffer.from([5, 0, 0, 0, 0x61, 0x62, 0x63, 0x64]), /input 'INPUT0': BYTES element 0 declares 5 bytes but only 4 remain/],
    ['a truncated BYTES length prefix', Buffer.concat([bytesTensor(['ab']), Buffer.from([1, 0])]), /input 'INPUT0': BYTES data ends after 1 of 2 elements/],
    ['trailing bytes after the BYTES elements', Buffer.concat([bytesTensor(['a', 'b']), Buffer.from([9])]), /input 'INPUT0': 1 unexpected trailing bytes after 2 BYTES elements/],
  ])('%s', async (_what, raw, message) => {
    const { body, headerLength } = binaryBody({ inputs: [{ name: 'INPUT0', shape: [1, 2], datatype: 'BYTES', parameters: { binary_data_size: raw.byteLength } }] }, [raw]);
    const r = await post(url('bytes'), body, { [HEADER_LENGTH]: String(headerLength) });
    expectError(r, 400, message);
  });
});

describe('body size limit', () => {
  it('a body over --rest_max_body_bytes is 413 with {"error":...}', async () => {
    const body = JSON.stringify({ inputs: [{ name: 'INPUT0', shape: [1, 400], datatype: 'FP32', data: Array(400).fill(1.5) }] });
    expect(Buffer.byteLength(body)).toBeGreaterThan(1024);
    expectError(await post(`${small.url}/v2/models/fp32/infer`, body, { 'content-type': 'application/json' }), 413, /larger than the limit of 1024 bytes/);
    expectError(await post(`${small.url}/v1/models/fp32:predict`, body), 413);
  });

  it('a body under the limit is served', async () => {
    const r = await post(`${small.url}/v2/models/fp32/infer`, { inputs: [input()] });
    expect(r.status, r.text).toBe(200);
  });
});

describe('V1 errors', () => {
  it.each<[string, string, string | object, number, RegExp]>([
    ['malformed JSON', 'fp32', '{"instances": [1,', 400, /^Unrecognized request format: /],
    ['neither instances nor inputs', 'fp32', { rows: [] }, 400, /Expected "instances" or "inputs"/],
    ['inputs that are neither list nor object', 'fp32', { inputs: 'x' }, 400, /Expected "inputs" to be a list/],
    ['no instances', 'fp32', { instances: [] }, 400, /no instances for input 'INPUT0'/],
    ['a wrong element type', 'fp32', { instances: [[1, 'x']] }, 400, /input 'INPUT0': element 1 is string "x"/],
    ['plain rows for a model with several inputs', 'add_sub', { instances: [ones16] }, 400, /model has 2 inputs \(INPUT0, INPUT1\)/],
    ['an instance missing an input', 'add_sub', { instances: [{ INPUT0: ones16 }] }, 400, /instance 0 has no value for input 'INPUT1'/],
    ['an unknown columnar input', 'add_sub', { inputs: { NOPE: [ones16] } }, 400, /Unexpected input 'NOPE'/],
    ['an unknown model', 'nope', { instances: [[1]] }, 404, /^Model with name nope does not exist\.$/],
  ])('%s', async (_what, model, body, status, message) => {
    expectError(await post(`${t.url}/v1/models/${model}:predict`, body, { 'content-type': 'application/json' }), status, message);
  });

  it('GET of an unknown V1 model is 404', async () => {
    expectError(await get(`${t.url}/v1/models/nope`), 404, /^Model with name nope does not exist\.$/);
  });
});
