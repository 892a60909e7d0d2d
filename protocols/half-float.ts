/**
 * Conversions between numbers and 16-bit float bit patterns (IEEE FP16 and bfloat16), for
 * wire formats that carry such tensors as plain JSON numbers (V1). Rounding is to nearest,
 * ties to even; overflow gives infinity, NaN stays NaN.
 */
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

export function toFp16Bits(value: number): number {
  f32[0] = value;
  const x = u32[0] as number;
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant !== 0 ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let half = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    if (rem > halfway || (rem === halfway && (half & 1) === 1)) half++;
    return sign | half;
  }
  let half = sign | (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  // A carry out of the mantissa correctly bumps the exponent (up to infinity).
  if (rem > 0x1000 || (rem === 0x1000 && (half & 1) === 1)) half++;
  return half;
}

export function fromFp16Bits(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const e = (h >>> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return sign * m * 2 ** -24;
  if (e === 0x1f) return m !== 0 ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * (1 + m / 1024) * 2 ** (e - 15);
}

export function toBf16Bits(value: number): number {
  f32[0] = value;
  const x = u32[0] as number;
  if ((x & 0x7f800000) === 0x7f800000 && (x & 0x7fffff) !== 0) return (x >>> 16) | 0x40;
  const rounded = x + 0x7fff + ((x >>> 16) & 1);
  return (rounded >>> 16) & 0xffff;
}

export function fromBf16Bits(b: number): number {
  u32[0] = (b & 0xffff) << 16;
  return f32[0] as number;
}

/** Half-precision storage (Uint16Array bits) from float32 values, per datatype. */
export function halfFromFloats(datatype: 'FP16' | 'BF16', values: Float32Array): Uint16Array {
  const conv = datatype === 'FP16' ? toFp16Bits : toBf16Bits;
  const out = new Uint16Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = conv(values[i] as number);
  return out;
}

/** Float32 values from half-precision storage, per datatype. */
export function floatsFromHalf(datatype: 'FP16' | 'BF16', bits: Uint16Array): Float32Array {
  const conv = datatype === 'FP16' ? fromFp16Bits : fromBf16Bits;
  const out = new Float32Array(bits.length);
  for (let i = 0; i < bits.length; i++) out[i] = conv(bits[i] as number);
  return out;
}
