/**
 * Large V2 JSON bodies take the split path (json-split.ts): the same tensors as JSON.parse,
 * and for every bad body the same error and message as parsing the whole text.
 */
import { describe, expect, it } from 'vitest';
import { KServeError } from '../errors.js';
import { MIN_SPLIT_BODY } from '../json/json-split.js';
import { decodeRestInferRequest } from './rest-request.js';

const N = 3 * 64 * 64; // 12,288 elements, ≈ 230 KB of JSON: above MIN_SPLIT_BODY
const values = Array.from({ length: N }, (_, i) => Math.fround(((i * 7919) % 255) / 255) * (i % 3 === 0 ? -1 : 1) || 0);
const nested = (v: unknown[]) => [0, 1, 2].map((c) => Array.from({ length: 64 }, (_, y) => v.slice((c * 64 + y) * 64, (c * 64 + y + 1) * 64)));
const body = (text: string) => Buffer.from(text);
const input = (data: unknown, datatype = 'FP32', shape: number[] = [1, 3, 64, 64]) => ({ name: 'x', shape, datatype, data });

function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(KServeError);
    return `${(e as KServeError).kind}: ${(e as KServeError).message}`;
  }
  throw new Error('did not throw');
}

describe('decodeRestInferRequest: large JSON tensors', () => {
  it('the bodies here are large enough to be split', () => {
    expect(JSON.stringify(input(values)).length).toBeGreaterThan(MIN_SPLIT_BODY);
  });

  it.each([
    ['flat FP32', 'FP32', values, Float32Array],
    ['nested FP32', 'FP32', nested(values), Float32Array],
    ['flat FP64', 'FP64', values, Float64Array],
    ['nested FP64', 'FP64', nested(values), Float64Array],
  ] as const)('%s decodes as JSON.parse + the typed array would', (_w, datatype, data, Ctor) => {
    const doc = { id: 'r', inputs: [input(data, datatype)], outputs: [{ name: 'y' }] };
    const req = decodeRestInferRequest(body(JSON.stringify(doc)), undefined);
    expect(req.id).toBe('r');
    expect(req.outputs).toEqual([{ name: 'y', parameters: undefined }]);
    const t = req.inputs[0];
    expect(t?.data).toBeInstanceOf(Ctor);
    expect(Array.from(t?.data as Float32Array)).toEqual(Array.from(Ctor.from(values)));
    expect(t?.shape).toEqual([1, 3, 64, 64]);
  });

  it('FP64 data printed with 17 digits decodes exactly (through the general path)', () => {
    const doubles = Array.from({ length: N }, (_, i) => Math.sin(i) * 1e3);
    const req = decodeRestInferRequest(body(JSON.stringify({ inputs: [input(doubles, 'FP64')] })), undefined);
    expect(Array.from(req.inputs[0]?.data as Float64Array)).toEqual(doubles);
  });

  it('several inputs, integer types and arrays elsewhere in the body', () => {
    const ints = Array.from({ length: N }, (_, i) => i - 5000);
    const doc = {
      parameters: { n: 1 },
      inputs: [input(values), { ...input(ints, 'INT32'), name: 'i' }, { name: 'b', shape: [2], datatype: 'BYTES', data: ['a', 'b'] }],
    };
    const req = decodeRestInferRequest(body(JSON.stringify(doc)), undefined);
    expect(req.parameters).toEqual({ n: 1 });
    expect(Array.from(req.inputs[1]?.data as Int32Array)).toEqual(ints);
    expect(req.inputs[2]?.data).toEqual([new TextEncoder().encode('a'), new TextEncoder().encode('b')]);
  });

  it('a body holding the placeholder escape \\u0000 in a string decodes like any other', () => {
    const doc = { id: 'a\u0000b', inputs: [input(values)], parameters: { '\u0000': 0 } };
    const req = decodeRestInferRequest(body(JSON.stringify(doc)), undefined);
    expect(req.id).toBe('a\u0000b');
    expect(req.parameters).toEqual({ '\u0000': 0 });
    expect(Array.from(req.inputs[0]?.data as Float32Array)).toEqual(values);
  });

  const text = JSON.stringify({ inputs: [input(values)] });
  const at = text.indexOf('"data":[') + 8;
  const edit = (i: number, s: string) => text.slice(0, at + i) + s + text.slice(at + i);
  const syntax = (t: string) => {
    try {
      JSON.parse(t);
    } catch (e) {
      return `InvalidInput: Unrecognized request format: ${(e as Error).message}`;
    }
    throw new Error('valid JSON');
  };
  it.each([
    ['a trailing comma in the data', edit(text.indexOf(']', at) - at, ',')],
    ['a double comma', edit(text.indexOf(',', at + 100) - at, ',')],
    ['a malformed number', edit(0, '01')],
    ['a bare minus', edit(0, '-,')],
    ['a cut body', text.slice(0, text.length - 10)],
  ])("%s: the whole text's syntax error", (_w, t) => {
    expect(messageOf(() => decodeRestInferRequest(body(t), undefined))).toBe(syntax(t));
  });

  it.each([
    ['too few elements', { inputs: [input(values.slice(1))] }, /^InvalidInput: input 'x': shape \[1,3,64,64\] has 12288 elements but data has 12287$/],
    ['too many elements', { inputs: [input([...values, 1])] }, /has 12288 elements but data has 12289$/],
    [
      'a literal among the numbers',
      { inputs: [input([...values.slice(0, 100), true, ...values.slice(101)])] },
      /^InvalidInput: input 'x': element 100 is boolean true, which is not a valid FP32 value$/,
    ],
    ['a fraction in INT32 data', { inputs: [input(values, 'INT32')] }, /^InvalidInput: input 'x': element 1 is number .*, which is not a valid INT32 value$/],
    [
      'a large array as a parameter',
      { parameters: { big: values }, inputs: [input(values)] },
      /^InvalidInput: request: parameter 'big' must be a string, number or boolean, not an array$/,
    ],
    [
      'a large array as a shape',
      {
        inputs: [
          input(
            values,
            'FP32',
            values.map(() => 1),
          ),
        ],
      },
      /^InvalidInput: input 'x': shape has 12288 dimensions/,
    ],
    ['FP16 via JSON', { inputs: [input(values, 'FP16')] }, /sending FP16 data via JSON is not supported/],
    ['a shape past the element limit', { inputs: [input(values, 'FP32', [1 << 20, 1 << 20])] }, /^PayloadTooLarge: .*--max_tensor_elements/],
  ])('%s: the same error as a small body', (_w, doc, message) => {
    expect(messageOf(() => decodeRestInferRequest(body(JSON.stringify(doc)), undefined))).toMatch(message);
  });

  it('an error in an earlier input does not hide a syntax error in a later one (JSON.parse comes first)', () => {
    const t = JSON.stringify({ inputs: [input([1], 'NOPE', [1]), input(values)] });
    const bad = t.slice(0, t.lastIndexOf(']]')) + ',]]' + t.slice(t.lastIndexOf(']]') + 2);
    expect(messageOf(() => decodeRestInferRequest(body(bad), undefined))).toBe(syntax(bad));
    expect(messageOf(() => decodeRestInferRequest(body(t), undefined))).toMatch(/NOPE/);
  });

  it('the binary extension after a large JSON part: the JSON part is split, the binary part untouched', () => {
    const raw = new Float32Array([1, 2, 3, 4]);
    const head = Buffer.from(JSON.stringify({ inputs: [input(values), { name: 'b', shape: [4], datatype: 'FP32', parameters: { binary_data_size: 16 } }] }));
    const req = decodeRestInferRequest(Buffer.concat([head, Buffer.from(raw.buffer)]), head.byteLength);
    expect(Array.from(req.inputs[0]?.data as Float32Array)).toEqual(values);
    expect(Array.from(req.inputs[1]?.data as Float32Array)).toEqual([1, 2, 3, 4]);
  });
});
