import { describe, expect, it } from 'vitest';
import { type Datatype, datatypeInfo } from '../datatypes.js';
import { decodeJsonData, encodeJsonData, encodeJsonNested } from './json-data.js';
import { expectInvalidInput } from '../../test/helpers/errors.js';

const info = (d: Datatype) => {
  const i = datatypeInfo(d);
  if (i === undefined) throw new Error(d);
  return i;
};
const decode = (d: Datatype, shape: number[], data: unknown) => decodeJsonData('x', info(d), shape, data);
const utf8 = (s: string) => new TextEncoder().encode(s);

const invalid = expectInvalidInput;

describe('decodeJsonData', () => {
  it.each<[Datatype, unknown[], ArrayLike<unknown>, new (n: number) => ArrayLike<unknown>]>([
    ['BOOL', [true, false, 1, 0], [1, 0, 1, 0], Uint8Array],
    ['UINT8', [0, 255, 7, 8], [0, 255, 7, 8], Uint8Array],
    ['UINT16', [0, 65535, 7, 8], [0, 65535, 7, 8], Uint16Array],
    ['UINT32', [0, 4294967295, 7, 8], [0, 4294967295, 7, 8], Uint32Array],
    ['UINT64', [0, 2 ** 53 - 1, 7, 8], [0n, 2n ** 53n - 1n, 7n, 8n], BigUint64Array],
    ['INT8', [-128, 127, 7, 8], [-128, 127, 7, 8], Int8Array],
    ['INT16', [-32768, 32767, 7, 8], [-32768, 32767, 7, 8], Int16Array],
    ['INT32', [-2147483648, 2147483647, 7, 8], [-2147483648, 2147483647, 7, 8], Int32Array],
    ['INT64', [-(2 ** 53 - 1), 2 ** 53 - 1, 7, 8], [-(2n ** 53n - 1n), 2n ** 53n - 1n, 7n, 8n], BigInt64Array],
    ['FP32', [0.5, -1.5, 1e30, 0.1], [0.5, -1.5, Math.fround(1e30), Math.fround(0.1)], Float32Array],
    ['FP64', [0.5, -1.5, 1e300, 0.1], [0.5, -1.5, 1e300, 0.1], Float64Array],
  ])('%s: nested and flat data decode into the same typed array', (d, values, expected, Ctor) => {
    const nested = decode(d, [2, 2], [values.slice(0, 2), values.slice(2)]);
    const flat = decode(d, [2, 2], values);
    const deep = decode(d, [1, 2, 2], [[values.slice(0, 2), values.slice(2)]]);
    for (const out of [nested, flat, deep]) {
      expect(out).toBeInstanceOf(Ctor);
      expect(Array.from(out as ArrayLike<unknown>)).toEqual(Array.from(expected));
    }
  });

  it('BYTES decodes strings to UTF-8 buffers, one per element', () => {
    const out = decode('BYTES', [3], ['a', 'dög', '']);
    expect(Array.isArray(out)).toBe(true);
    expect(out).toEqual([utf8('a'), utf8('dög'), utf8('')]);
  });

  it('a scalar shape takes a bare value', () => {
    expect(Array.from(decode('INT32', [], 5) as Int32Array)).toEqual([5]);
    expect(Array.from(decode('INT32', [], [5]) as Int32Array)).toEqual([5]);
  });

  it('an empty shape dimension takes empty data', () => {
    expect((decode('FP32', [0, 4], []) as Float32Array).length).toBe(0);
  });

  it.each<[string, Datatype, number[], unknown, RegExp]>([
    ['too few elements', 'INT32', [2, 2], [1, 2, 3], /input 'x': shape \[2,2\] has 4 elements but data has 3/],
    ['too many elements', 'INT32', [2], [[1, 2], [3]], /shape \[2\] has 2 elements but data has 3/],
    ['a string in numbers', 'FP32', [2], [1, 'a'], /input 'x': element 1 is string "a", which is not a valid FP32 value/],
    ['a long string is cut in the message', 'FP32', [1], ['a'.repeat(100)], /string "a{32}\.\.\."/],
    ['null', 'FP64', [1], [null], /element 0 is null/],
    ['an object', 'INT8', [1], [{}], /element 0 is object, which is not a valid INT8 value/],
    ['out of range UINT8', 'UINT8', [1], [256], /element 0 is number 256, which is not a valid UINT8 value/],
    ['negative UINT16', 'UINT16', [1], [-1], /not a valid UINT16 value/],
    ['out of range INT16', 'INT16', [1], [40000], /not a valid INT16 value/],
    ['a fraction for INT32', 'INT32', [1], [0.5], /element 0 is number 0.5, which is not a valid INT32 value/],
    ['negative UINT64', 'UINT64', [1], [-1], /not a valid UINT64 value/],
    ['an INT64 beyond 2^53', 'INT64', [1], [2 ** 60], /element 0 is number 1152921504606847000, which is not a valid INT64 value; JSON numbers beyond 2\^53 lose precision/],
    ['a UINT64 beyond 2^53', 'UINT64', [1], [2 ** 53 + 2], /not a valid UINT64 value; .*binary data extension/],
    ['a number for BYTES', 'BYTES', [1], [1], /element 0 is number 1, which is not a valid BYTES value/],
    ['2 for BOOL', 'BOOL', [1], [2], /element 0 is number 2, which is not a valid BOOL value/],
    ['a string for BOOL', 'BOOL', [1], ['true'], /not a valid BOOL value/],
    ['FP16 has no JSON form', 'FP16', [1], [1], /input 'x': sending FP16 data via JSON is not supported/],
    ['BF16 has no JSON form', 'BF16', [1], [1], /input 'x': sending BF16 data via JSON is not supported/],
  ])('rejects %s', (_what, d, shape, data, message) => {
    invalid(() => decode(d, shape, data), message);
  });
});

describe('encodeJsonData', () => {
  it.each<[Datatype, ArrayLike<number | bigint> | Uint8Array[], string]>([
    ['BOOL', Uint8Array.of(1, 0, 1), '[true,false,true]'],
    ['UINT8', Uint8Array.of(0, 255), '[0,255]'],
    ['INT16', Int16Array.of(-32768, 5), '[-32768,5]'],
    ['UINT32', Uint32Array.of(4294967295), '[4294967295]'],
    ['INT64', BigInt64Array.of(-(2n ** 63n), 2n ** 63n - 1n), '[-9223372036854775808,9223372036854775807]'],
    ['UINT64', BigUint64Array.of(2n ** 64n - 1n), '[18446744073709551615]'],
    // FP32 values print as the doubles they widen to, integral floats keep ".0" (orjson).
    ['FP32', Float32Array.of(6.8, 6, 0.5, -2), '[6.800000190734863,6.0,0.5,-2.0]'],
    ['FP64', Float64Array.of(0.1, 100, -0.25, 1e21), '[0.1,100.0,-0.25,1e+21]'],
    ['FP32', Float32Array.of(NaN, Infinity, -Infinity, 1), '[null,null,null,1.0]'],
    ['FP64', Float64Array.of(NaN), '[null]'],
    ['BYTES', [utf8('cat'), utf8('dög'), utf8('"q"')], '["cat","dög","\\"q\\""]'],
    ['INT32', new Int32Array(0), '[]'],
  ])('%s %s', (d, data, expected) => {
    const text = encodeJsonData('y', d, data as never);
    expect(text).toBe(expected);
    expect(() => JSON.parse(text) as unknown).not.toThrow();
  });

  it('matches the anchor bytes for FP32 outputs (test_fp16_output_as_binary_data)', () => {
    const data = Float32Array.of(6.8, 2.8, 4.8, 1.4, 6.0, 3.4, 4.5, 1.6);
    expect(encodeJsonData('fp32_output', 'FP32', data)).toBe(
      '[6.800000190734863,2.799999952316284,4.800000190734863,1.399999976158142,6.0,3.4000000953674316,4.5,1.600000023841858]',
    );
  });

  it.each<Datatype>(['FP16', 'BF16'])('%s output has no JSON form: 400 asking for binary_data', (d) => {
    invalid(() => encodeJsonData('out', d, Uint16Array.of(0x3c00)), /output 'out' is \w+16, which has no JSON form; request it with binary_data: true/);
  });

  it('BYTES that are not UTF-8 cannot go to JSON: 400 asking for binary_data', () => {
    invalid(() => encodeJsonData('out', 'BYTES', [Uint8Array.of(0xff, 0xfe)]), /output 'out' holds bytes that are not valid UTF-8; request it with binary_data: true/);
  });
});

describe('encodeJsonNested', () => {
  it('follows the shape', () => {
    expect(encodeJsonNested('y', 'INT32', [2, 3], Int32Array.of(1, 2, 3, 4, 5, 6))).toBe('[[1,2,3],[4,5,6]]');
    expect(encodeJsonNested('y', 'INT32', [3, 1, 2], Int32Array.of(1, 2, 3, 4, 5, 6))).toBe('[[[1,2]],[[3,4]],[[5,6]]]');
    expect(encodeJsonNested('y', 'FP32', [1, 2], Float32Array.of(1, NaN))).toBe('[[1.0,null]]');
    expect(encodeJsonNested('y', 'BOOL', [2, 1], Uint8Array.of(0, 1))).toBe('[[false],[true]]');
    expect(encodeJsonNested('y', 'BYTES', [1, 2], [utf8('a'), utf8('b')])).toBe('[["a","b"]]');
  });

  it('a scalar shape gives a bare value, an empty dimension an empty list', () => {
    expect(encodeJsonNested('y', 'FP64', [], Float64Array.of(2.5))).toBe('2.5');
    expect(encodeJsonNested('y', 'INT8', [0], new Int8Array(0))).toBe('[]');
  });

  it('round-trips through decodeJsonData', () => {
    const data = Float64Array.from({ length: 24 }, (_, i) => i / 4 - 3);
    const shape = [2, 3, 4];
    const text = encodeJsonNested('y', 'FP64', shape, data);
    expect(decode('FP64', shape, JSON.parse(text))).toEqual(data);
  });
});
