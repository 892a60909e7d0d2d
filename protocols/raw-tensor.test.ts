import { describe, expect, it } from 'vitest';
import { type Datatype, datatypeInfo } from './datatypes.js';
import { decodeRawTensor, encodeRawTensor, rawByteLength } from './raw-tensor.js';
import { expectInvalidInput } from '../test/helpers/errors.js';

const info = (d: Datatype) => {
  const i = datatypeInfo(d);
  if (i === undefined) throw new Error(d);
  return i;
};
const utf8 = (s: string) => new TextEncoder().encode(s);

const invalid = expectInvalidInput;

/** `bytes` placed at `offset` inside a larger buffer, as a transport body would hold it. */
function at(offset: number, bytes: Uint8Array): Uint8Array {
  const buf = new Uint8Array(offset + bytes.byteLength + 3);
  buf.set(bytes, offset);
  return buf.subarray(offset, offset + bytes.byteLength);
}

describe('decodeRawTensor', () => {
  it.each<[Datatype, ArrayBufferView & ArrayLike<number | bigint>]>([
    ['BOOL', Uint8Array.of(1, 0, 1, 1)],
    ['UINT8', Uint8Array.of(0, 1, 254, 255)],
    ['INT8', Int8Array.of(-128, -1, 0, 127)],
    ['UINT16', Uint16Array.of(0, 1, 65534, 65535)],
    ['INT16', Int16Array.of(-32768, -1, 0, 32767)],
    ['FP16', Uint16Array.of(0x3c00, 0x7e00, 0xfc00, 0x0001)],
    ['BF16', Uint16Array.of(0x3f80, 0x7fc1, 0xff80, 0x0001)],
    ['UINT32', Uint32Array.of(0, 1, 2 ** 32 - 2, 2 ** 32 - 1)],
    ['INT32', Int32Array.of(-(2 ** 31), -1, 0, 2 ** 31 - 1)],
    ['FP32', Float32Array.of(0.5, -0, NaN, -Infinity)],
    ['UINT64', BigUint64Array.of(0n, 1n, 2n ** 63n, 2n ** 64n - 1n)],
    ['INT64', BigInt64Array.of(-(2n ** 63n), -1n, 0n, 2n ** 63n - 1n)],
    ['FP64', Float64Array.of(0.1, -0, NaN, Number.MIN_VALUE)],
  ])('%s: aligned bytes give a view, misaligned bytes a copy, the bits unchanged', (d, values) => {
    const raw = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
    const width = info(d).byteSize;
    const aligned = at(width * 2, raw);
    const view = decodeRawTensor('x', info(d), [2, 2], aligned) as ArrayBufferView;
    expect(view.buffer).toBe(aligned.buffer);
    expect(view.byteOffset).toBe(aligned.byteOffset);
    expect(Buffer.from(view.buffer, view.byteOffset, view.byteLength).equals(Buffer.from(raw))).toBe(true);

    if (width > 1) {
      const misaligned = at(width * 2 + 1, raw);
      const copy = decodeRawTensor('x', info(d), [2, 2], misaligned) as ArrayBufferView;
      expect(copy.buffer).not.toBe(misaligned.buffer);
      expect(copy.byteOffset % width).toBe(0);
      expect(Buffer.from(copy.buffer, copy.byteOffset, copy.byteLength).equals(Buffer.from(raw))).toBe(true);
    }
  });

  it('BF16 keeps the raw 16-bit patterns (NaN payloads included) in a Uint16Array', () => {
    const bits = Uint16Array.of(0x3f80, 0x7fc1, 0xffff, 0x8000);
    const out = decodeRawTensor('x', info('BF16'), [4], new Uint8Array(bits.buffer));
    expect(out).toBeInstanceOf(Uint16Array);
    expect(Array.from(out as Uint16Array)).toEqual([0x3f80, 0x7fc1, 0xffff, 0x8000]);
    expect(Buffer.from(encodeRawTensor(out)).equals(Buffer.from(bits.buffer))).toBe(true);
  });

  it('a byte count that does not match the shape is rejected naming the input', () => {
    invalid(() => decodeRawTensor('in0', info('FP32'), [2, 2], new Uint8Array(12)), /input 'in0': expected 16 bytes of FP32 data for shape \[2,2\] but got 12/);
    invalid(() => decodeRawTensor('in0', info('INT64'), [1], new Uint8Array(9)), /expected 8 bytes of INT64 data/);
  });

  it('BYTES elements are 4-byte little-endian lengths followed by the bytes, read as views', () => {
    const body = Buffer.concat([Buffer.from([3, 0, 0, 0]), Buffer.from('cat'), Buffer.from([0, 0, 0, 0]), Buffer.from([2, 0, 0, 0, 0xff, 0x00])]);
    const out = decodeRawTensor('s', info('BYTES'), [3], body) as Uint8Array[];
    expect(out.map((b) => Buffer.from(b).toString('hex'))).toEqual(['636174', '', 'ff00']);
    expect(out[0]?.buffer).toBe(body.buffer);
  });

  it('a BYTES length above 255 uses all four bytes', () => {
    const payload = Buffer.alloc(300, 0x61);
    const body = Buffer.concat([Buffer.from([44, 1, 0, 0]), payload]);
    const out = decodeRawTensor('s', info('BYTES'), [1], body) as Uint8Array[];
    expect(out[0]?.byteLength).toBe(300);
  });

  it.each<[string, number[], Uint8Array, RegExp]>([
    ['a truncated length prefix', [2], Buffer.from([2, 0, 0, 0, 0x61, 0x62, 1, 0]), /input 's': BYTES data ends after 1 of 2 elements \(truncated length prefix\)/],
    ['an element past the end', [1], Buffer.from([9, 0, 0, 0, 0x61]), /input 's': BYTES element 0 declares 9 bytes but only 1 remain/],
    ['a huge declared length', [1], Buffer.from([0xff, 0xff, 0xff, 0xff]), /BYTES element 0 declares 4294967295 bytes but only 0 remain/],
    ['trailing bytes', [1], Buffer.from([1, 0, 0, 0, 0x61, 0x62]), /input 's': 1 unexpected trailing bytes after 1 BYTES elements/],
    ['no data for the elements', [1], new Uint8Array(0), /input 's': shape declares 1 BYTES elements but 0 bytes hold at most 0/],
    // Refused before the element list is sized: 2^40 entries would be a RangeError.
    ['a huge declared count', [2 ** 20, 2 ** 20], Buffer.from([0, 0, 0, 0]), /shape declares 1099511627776 BYTES elements but 4 bytes hold at most 1/],
  ])('BYTES: rejects %s', (_what, shape, bytes, message) => {
    invalid(() => decodeRawTensor('s', info('BYTES'), shape, bytes), message);
  });
});

describe('encodeRawTensor', () => {
  it('fixed-size types are a view on the storage, no copy', () => {
    const data = Float32Array.of(1, 2, 3);
    const raw = encodeRawTensor(data);
    expect(raw.buffer).toBe(data.buffer);
    expect(rawByteLength(data)).toBe(12);
    const sub = new Int16Array(new ArrayBuffer(16), 4, 2);
    const rawSub = encodeRawTensor(sub);
    expect([rawSub.byteOffset, rawSub.byteLength]).toEqual([4, 4]);
  });

  it('BYTES elements are written with their little-endian lengths', () => {
    const data = [utf8('ab'), new Uint8Array(0), new Uint8Array(258).fill(7)];
    const raw = encodeRawTensor(data);
    expect(rawByteLength(data)).toBe(4 + 2 + 4 + 4 + 258);
    expect(raw.byteLength).toBe(rawByteLength(data));
    expect(Array.from(raw.subarray(0, 10))).toEqual([2, 0, 0, 0, 0x61, 0x62, 0, 0, 0, 0]);
    expect(Array.from(raw.subarray(10, 14))).toEqual([2, 1, 0, 0]);
    expect(decodeRawTensor('s', info('BYTES'), [3], raw)).toEqual(data);
  });
});
