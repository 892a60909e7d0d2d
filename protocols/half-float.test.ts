/** FP16 / BF16 bit conversions against known encodings (IEEE 754 binary16, bfloat16). */
import { describe, expect, it } from 'vitest';
import { fromBf16Bits, fromFp16Bits, toBf16Bits, toFp16Bits } from './half-float.js';

describe('FP16', () => {
  it.each([
    [0, 0x0000],
    [-0, 0x8000],
    [1, 0x3c00],
    [-2, 0xc000],
    [0.5, 0x3800],
    [65504, 0x7bff],
    [65520, 0x7c00], // rounds up to infinity
    [1e6, 0x7c00],
    [Number.POSITIVE_INFINITY, 0x7c00],
    [2 ** -24, 0x0001], // smallest subnormal
    [2 ** -25, 0x0000], // ties to even: rounds down to zero
    [6.8, 0x46cd], // numpy: np.float16(6.8).view(np.uint16) == 0x46cd
    [1 + 2 ** -11, 0x3c00], // halfway: ties to even
    [1 + 3 * 2 ** -11, 0x3c02],
  ])('%d -> %i', (value, bits) => {
    expect(toFp16Bits(value)).toBe(bits);
  });

  it('round-trips every finite half value exactly', () => {
    for (let h = 0; h < 0x10000; h++) {
      if ((h & 0x7c00) === 0x7c00) continue;
      expect(toFp16Bits(fromFp16Bits(h))).toBe(h);
    }
  });

  it('keeps NaN a NaN', () => {
    expect(Number.isNaN(fromFp16Bits(toFp16Bits(Number.NaN)))).toBe(true);
  });
});

describe('BF16', () => {
  it.each([
    [1, 0x3f80],
    [-2, 0xc000],
    [3.140625, 0x4049],
    [1 + 2 ** -8, 0x3f80], // halfway: ties to even
    [1 + 3 * 2 ** -8, 0x3f82],
  ])('%d -> %i', (value, bits) => {
    expect(toBf16Bits(value)).toBe(bits);
    expect(fromBf16Bits(bits)).toBe(Math.fround(fromBf16Bits(bits)));
  });

  it('keeps NaN a NaN', () => {
    expect(Number.isNaN(fromBf16Bits(toBf16Bits(Number.NaN)))).toBe(true);
  });
});
