/**
 * The byte-level float decoding against JSON.parse + the typed array's own conversion, on
 * millions of tokens: every element must be bit-identical (Object.is, so -0 counts).
 */
import { describe, expect, it } from 'vitest';
import { JsonNumberArray } from './json-number-array.js';
import { MAX_RANK } from '../limits.js';

/** A deterministic generator (xorshift128+), so a failure is reproducible. */
function rng(seed: number) {
  let a = seed >>> 0 || 1;
  let b = 0x9e3779b9;
  return () => {
    let t = a ^ (a << 11);
    a = b;
    b = b ^ (b >>> 19) ^ (t ^ (t >>> 8));
    t = b >>> 0;
    return t / 2 ** 32;
  };
}

const bits64 = new Float64Array(1);
const words = new Uint32Array(bits64.buffer);
const bits32 = new Float32Array(1);
const word32 = new Uint32Array(bits32.buffer);

/** Decodes `tokens` both ways and returns the first index that differs (-1: none). */
function firstDifference(tokens: string[], f32: boolean): { index: number; token?: string; got?: number; want?: number } {
  const text = `[${tokens.join(',')}]`;
  const bytes = Buffer.from(text, 'latin1');
  const want = f32 ? Float32Array.from(JSON.parse(text) as number[]) : Float64Array.from(JSON.parse(text) as number[]);
  const got = f32 ? new Float32Array(tokens.length) : new Float64Array(tokens.length);
  const ok = new JsonNumberArray(bytes, 0, bytes.byteLength).decodeFloats(got, f32, MAX_RANK);
  if (!ok) {
    // FP64 gives up on many Number() tokens (the general path takes them): check them one by one.
    for (let i = 0; i < tokens.length; i++) {
      const one = Buffer.from(`[${tokens[i]}]`, 'latin1');
      const g = f32 ? new Float32Array(1) : new Float64Array(1);
      expect(new JsonNumberArray(one, 0, one.byteLength).decodeFloats(g, f32, MAX_RANK)).toBe(true);
      got[i] = g[0] as number;
    }
  }
  for (let i = 0; i < tokens.length; i++) {
    if (!Object.is(got[i], want[i])) return { index: i, token: tokens[i], got: got[i], want: want[i] };
  }
  return { index: -1 };
}

const CHUNK = 50_000;

function check(make: (r: () => number) => string, total: number, seed: number): void {
  const r = rng(seed);
  for (let done = 0; done < total; done += CHUNK) {
    const tokens = Array.from({ length: CHUNK }, () => make(r));
    for (const f32 of [true, false]) expect(firstDifference(tokens, f32)).toEqual({ index: -1 });
  }
}

const sign = (r: () => number) => (r() < 0.5 ? '-' : '');

describe('JsonNumberArray.decodeFloats: bit-identical to JSON.parse', () => {
  it('random doubles of every exponent, shortest form (JSON.stringify)', () => {
    check(
      (r) => {
        words[0] = (r() * 2 ** 32) >>> 0;
        words[1] = (r() * 2 ** 32) >>> 0;
        const v = bits64[0] as number;
        return Number.isFinite(v) ? JSON.stringify(v) : '0';
      },
      500_000,
      1,
    );
  });

  it('random float32 values printed as doubles (what clients send for FP32 tensors)', () => {
    check(
      (r) => {
        word32[0] = (r() * 2 ** 32) >>> 0;
        const v = bits32[0] as number;
        return Number.isFinite(v) ? JSON.stringify(v) : '1';
      },
      500_000,
      2,
    );
  });

  it('values in [0, 1) and [-1000, 1000) with 1 to 21 significant digits, with and without exponents', () => {
    check(
      (r) => {
        const digits = 1 + Math.floor(r() * 21);
        const v = (r() - 0.5) * (r() < 0.5 ? 2 : 2000);
        const s = v.toPrecision(digits);
        return r() < 0.3 ? v.toExponential(Math.min(digits, 20) - 1).replace('e+', r() < 0.5 ? 'e' : 'E+') : s;
      },
      400_000,
      3,
    );
  });

  it('float32 halfway points and their neighbours, printed exactly and perturbed in the last digits', () => {
    check(
      (r) => {
        word32[0] = ((r() * 0x7f000000) >>> 0) & 0x7fffffff;
        const lo = bits32[0] as number;
        word32[0] += 1;
        const hi = bits32[0] as number;
        const mid = (lo + hi) / 2; // exact in a double
        const digits = 17 + Math.floor(r() * 4);
        let s = mid.toPrecision(digits);
        if (r() < 0.5) {
          // Nudge the last significant digit: just above or below the halfway point.
          const m = /^(-?[\d.]+?)(\d)(e.*)?$/.exec(s);
          if (m) s = `${m[1]}${Math.max(0, Math.min(9, Number(m[2]) + (r() < 0.5 ? -1 : 1)))}${m[3] ?? ''}`;
        }
        return sign(r) + s.replace('e+', 'e');
      },
      300_000,
      4,
    );
  });

  it('long digit strings, huge and tiny exponents, integers past 2^53, subnormals and edge cases', () => {
    const fixed = [
      '0',
      '-0',
      '0.0',
      '-0.0',
      '0e5',
      '0E-5',
      '0.000',
      '1',
      '-1',
      '1e22',
      '1e23',
      '1e-22',
      '1e-23',
      '9007199254740993',
      '18446744073709551616',
      '123456789012345678901234567890',
      '0.1',
      '0.30000000000000004',
      '1e308',
      '1.7976931348623157e308',
      '1.7976931348623159e308',
      '2e308',
      '1e400',
      '-1e400',
      '5e-324',
      '2.4703282292062328e-324',
      '2.4703282292062327e-324',
      '1e-400',
      '3.4028234663852886e38',
      '3.4028235677973366e38',
      '3.402823567797337e38',
      '1.1754943508222875e-38',
      '1.401298464324817e-45',
      '7.006492321624085e-46',
      '7.006492321624087e-46',
      '1e0000000000000000000001',
      '1e-99999999999',
      '1e99999999999',
      '0.000000000000000000000000000001',
      '100000000000000000000000000000e-30',
      '1.00000000000000011102230246251565404236316680908203125',
      '1.00000000000000011102230246251565404236316680908203124',
      '1.00000005960464477539062499999',
      '1.000000059604644775390625',
      '1.00000005960464477539062500001',
    ];
    check(
      (r) => {
        if (r() < 0.3) return fixed[Math.floor(r() * fixed.length)] as string;
        const intDigits = Math.floor(r() * 25);
        const fracDigits = Math.floor(r() * 25);
        const digit = () => String(Math.floor(r() * 10));
        let s = intDigits === 0 ? '0' : String(1 + Math.floor(r() * 9)) + Array.from({ length: intDigits - 1 }, digit).join('');
        if (fracDigits > 0 || intDigits === 0) s += `.${Array.from({ length: Math.max(1, fracDigits) }, digit).join('')}`;
        if (r() < 0.5) s += `e${r() < 0.5 ? '-' : r() < 0.5 ? '+' : ''}${Math.floor(r() * 330)}`;
        return sign(r) + s;
      },
      400_000,
      5,
    );
  });
});

describe('JsonNumberArray.decodeFloats: what it leaves to the general path', () => {
  const decode = (text: string, n: number) => {
    const bytes = Buffer.from(text, 'latin1');
    return new JsonNumberArray(bytes, 0, bytes.byteLength).decodeFloats(new Float32Array(n), true, MAX_RANK);
  };

  it('nested arrays decode in row-major order', () => {
    const bytes = Buffer.from('[[1, 2.5],\n\t[ -3e1 ,4]]');
    const out = new Float32Array(4);
    expect(new JsonNumberArray(bytes, 0, bytes.byteLength).decodeFloats(out, true, MAX_RANK)).toBe(true);
    expect(Array.from(out)).toEqual([1, 2.5, -30, 4]);
  });

  it.each([
    ['a count other than the shape', '[1,2,3]', 2],
    ['fewer leaves', '[1]', 2],
    ['trailing comma', '[1,2,]', 2],
    ['leading comma', '[,1,2]', 2],
    ['missing comma', '[1 2]', 2],
    ['arrays without comma', '[[1][2]]', 2],
    ['leading zero', '[01,2]', 2],
    ['plus sign', '[+1,2]', 2],
    ['bare dot', '[.5,2]', 2],
    ['dot without digits', '[1.,2]', 2],
    ['exponent without digits', '[1e,2]', 2],
    ['exponent sign without digits', '[1e+,2]', 2],
    ['minus alone', '[-,2]', 2],
    ['a literal', '[true,2]', 2],
    ['null', '[null,2]', 2],
    ['an object', '[{},2]', 2],
    ['NaN', '[NaN,2]', 2],
    ['Infinity', '[Infinity,2]', 2],
    ['hex', '[0x1,2]', 2],
  ])('%s: refused', (_what, text, n) => {
    expect(decode(text, n)).toBe(false);
  });

  it('nesting deeper than the limit is refused', () => {
    const deep = `${'['.repeat(MAX_RANK + 1)}1${']'.repeat(MAX_RANK + 1)}`;
    expect(decode(deep, 1)).toBe(false);
    const ok = `${'['.repeat(MAX_RANK)}1${']'.repeat(MAX_RANK)}`;
    expect(decode(ok, 1)).toBe(true);
  });

  it('materialize gives what JSON.parse gives, and its SyntaxError', () => {
    const bytes = Buffer.from('[[1, true], [null, "x"]]');
    expect(new JsonNumberArray(bytes, 0, bytes.byteLength).materialize()).toEqual([
      [1, true],
      [null, 'x'],
    ]);
    const bad = Buffer.from('[1,,2]');
    expect(() => new JsonNumberArray(bad, 0, bad.byteLength).materialize()).toThrow(SyntaxError);
  });
});
