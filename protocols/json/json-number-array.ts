/**
 * A JSON array of numbers (nested to any depth) left as bytes of the request body, so a
 * large tensor's `data` is converted once, straight into the typed array of its datatype,
 * instead of becoming a JavaScript array of 150,000 heap numbers first.
 *
 * The region's grammar was checked when it was found (json-split.ts): it is a valid JSON
 * array whose leaves are all numbers, `leaves` of them, nested at most `depth` deep.
 * Every conversion gives exactly the value JSON.parse gives for the token (then stored as
 * the typed array stores a double): a token is either converted exactly (Clinger's fast
 * path) or, for FP32, approximated within a few ulps and kept only when no float32
 * rounding boundary lies within that error; anything else is converted by Number().
 */
const POW10 = new Float64Array(23).map((_, i) => 10 ** i);

// The low 29 bits of a double's mantissa are what rounding to float32 discards; a value
// whose discarded bits are this close to the halfway pattern might round either way.
const F32_DISCARDED = 0x1fffffff;
const F32_HALFWAY = 0x10000000;
const F32_MARGIN = 64;
const F32_SAFE_MIN = 2 ** -125;
const F32_SAFE_MAX = 2 ** 127;
const bits = new Float64Array(1);
const words = new Uint32Array(bits.buffer);
const LOW = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 0 : 1;

/** Near a float32 rounding boundary (or outside the normal float32 range): not decidable from an approximation. */
function f32Undecided(a: number): boolean {
  if (a < F32_SAFE_MIN || a > F32_SAFE_MAX) return true;
  bits[0] = a;
  const d = ((words[LOW] as number) & F32_DISCARDED) - F32_HALFWAY;
  return d <= F32_MARGIN && d >= -F32_MARGIN;
}

/** Tokens converted by Number() before the general path is cheaper: 16, and one in 64. */
const SLOW_ALLOWED = 16;

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

/** Four ASCII digits read as a little-endian word are all digits. */
const fourDigits = (w: number) => ((w & 0xf0f0f0f0) | (((w + 0x06060606) & 0xf0f0f0f0) >>> 4)) === 0x33333333;

/** The value of four ASCII digits read as a little-endian word (first digit lowest). */
function four(w: number): number {
  const d = (w - 0x30303030) >>> 0;
  const pairs = ((d * 10 + (d >>> 8)) & 0x00ff00ff) >>> 0;
  return (pairs & 0xffff) * 100 + (pairs >>> 16);
}

/** End of the run of digits from `i`, four bytes at a time while four are left. */
function digitsEnd(b: Uint8Array, dv: DataView, i: number, end: number): number {
  while (i + 4 <= end && fourDigits(dv.getUint32(i, true))) i += 4;
  while (i < end && isDigit(b[i] as number)) i++;
  return i;
}
const isWs = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

export class JsonNumberArray {
  /**
   * `bytes[start, end)` is the text of a JSON array, `[` to its matching `]`, with no
   * string inside (json-split.ts): anything else in it is found by `decodeFloats`.
   */
  constructor(
    readonly bytes: Uint8Array,
    readonly start: number,
    readonly end: number,
  ) {}

  /** An upper bound on the leaves (every leaf takes a digit and a separator). */
  get maxLeaves(): number {
    return (this.end - this.start) >> 1;
  }

  /**
   * The array as JSON.parse gives it; throws JSON.parse's SyntaxError when the region is
   * not valid JSON (the caller then parses the whole body for the whole body's message).
   */
  materialize(): unknown {
    return JSON.parse(this.#text(this.start, this.end));
  }

  #text(from: number, to: number): string {
    return Buffer.from(this.bytes.buffer, this.bytes.byteOffset + from, to - from).toString('latin1');
  }

  /**
   * Converts the leaves, in document (row-major) order, into `out`; `f32` when `out`
   * stores float32 (each double is rounded once more as the array stores it). Returns
   * false, with `out` partly written, unless the region is a valid JSON array of numbers
   * nested at most `maxDepth` deep with exactly `out.length` leaves, or when too many
   * tokens need Number(): the caller then takes the general path, which gives every
   * error its message.
   */
  decodeFloats(out: Float32Array | Float64Array, f32: boolean, maxDepth: number): boolean {
    const b = this.bytes;
    const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
    const end = this.end;
    const n = out.length;
    let idx = 0;
    let slow = 0;
    let depth = 0;
    // After `[`: a value or `]`; after `,`: a value; after a value: `,` or `]`.
    let afterValue = false;
    let afterComma = false;
    let i = this.start;
    while (i < end) {
      let c = b[i] as number;
      if (c === 0x2c) {
        if (!afterValue) return false;
        afterValue = false;
        afterComma = true;
        i++;
        continue;
      }
      if (c === 0x5b) {
        if (afterValue || ++depth > maxDepth) return false;
        afterComma = false;
        i++;
        continue;
      }
      if (c === 0x5d) {
        if (afterComma) return false;
        afterValue = true;
        depth--;
        i++;
        continue;
      }
      if (isWs(c)) {
        i++;
        continue;
      }
      if (afterValue || idx === n) return false;
      const tokenStart = i;
      const neg = c === 0x2d;
      if (neg) c = b[++i] as number;
      // Digits in two runs, integer part [intStart, intEnd) and fraction [fracStart, fracEnd);
      // the first 9 significant ones go to `hi`, the next 9 to `lo` (int32 arithmetic), any
      // further ones only move the exponent (and make the value inexact unless 0).
      const intStart = i;
      if (c === 0x30) ++i;
      else if (isDigit(c)) i = digitsEnd(b, dv, i + 1, end);
      else return false;
      const intEnd = i;
      let fracStart = i;
      if (b[i] === 0x2e) {
        fracStart = ++i;
        if (!isDigit(b[i] as number)) return false;
        i = digitsEnd(b, dv, i + 1, end);
      }
      const fracEnd = i;
      c = b[i] as number;
      // The first 8 significant digits go to `hi`, the next 8 to `lo`, four at a time where
      // four are left; further ones only move the exponent (inexact unless 0).
      let hi = 0;
      let lo = 0;
      let nd = 0;
      let exp = 0;
      let dropped = false;
      let q = intStart;
      let qe = intEnd;
      if (b[q] === 0x30) {
        // "0.000ddd": significant digits start after the fraction's zeros.
        q = fracStart;
        while (q < fracEnd && b[q] === 0x30) q++;
        exp = fracStart - q;
        qe = fracEnd;
      }
      for (let run = q === intStart ? 0 : 1; run < 2; run++) {
        const from = q;
        while (nd <= 4 && q + 4 <= qe) {
          hi = hi * 10000 + four(dv.getUint32(q, true));
          q += 4;
          nd += 4;
        }
        for (; nd < 8 && q < qe; q++, nd++) hi = hi * 10 + ((b[q] as number) - 0x30);
        while (nd <= 12 && q + 4 <= qe) {
          lo = lo * 10000 + four(dv.getUint32(q, true));
          q += 4;
          nd += 4;
        }
        for (; nd < 16 && q < qe; q++, nd++) lo = lo * 10 + ((b[q] as number) - 0x30);
        if (run === 0) exp += qe - q;
        else exp -= q - from;
        for (; q < qe; q++) if (b[q] !== 0x30) dropped = true;
        q = fracStart;
        qe = fracEnd;
      }
      if (c === 0x65 || c === 0x45) {
        c = b[++i] as number;
        let eneg = false;
        if (c === 0x2d || c === 0x2b) {
          eneg = c === 0x2d;
          c = b[++i] as number;
        }
        if (!isDigit(c)) return false;
        let e = 0;
        do {
          if (e < 1e8) e = e * 10 + (c - 0x30);
          c = b[++i] as number;
        } while (isDigit(c));
        // Past any double's range, whatever the digits: Number() decides (0 or Infinity).
        exp = e >= 1e8 ? 1e9 : exp + (eneg ? -e : e);
      }
      const kept = nd;
      let v: number;
      if (nd === 0) v = 0;
      else if (kept <= 15 && !dropped && exp >= -22 && exp <= 22) {
        // Clinger: the digits (< 10^15) and the power of ten are exact, one rounding.
        const digits = kept <= 8 ? hi : hi * (POW10[kept - 8] as number) + lo;
        v = exp < 0 ? digits / (POW10[-exp] as number) : digits * (POW10[exp] as number);
      } else if (f32 && exp >= -22 && exp <= 22) {
        // Three roundings (×, +, ×/÷) and the dropped digits (< 10^-15 relative): under 13 ulps
        // from the correctly rounded double, which rounds to the same float32 unless a
        // halfway point is that close.
        const digits = hi * (POW10[kept - 8] as number) + lo;
        v = exp < 0 ? digits / (POW10[-exp] as number) : digits * (POW10[exp] as number);
        if (f32Undecided(v)) v = Number(this.#text(neg ? tokenStart + 1 : tokenStart, i));
      } else {
        // A string per token costs more than JSON.parse does: many such tokens (FP64 data
        // printed with 17 digits) go to the general path instead.
        if (++slow > SLOW_ALLOWED + (idx >> 6)) return false;
        v = Number(this.#text(neg ? tokenStart + 1 : tokenStart, i));
      }
      out[idx++] = neg ? -v : v;
      afterValue = true;
      afterComma = false;
    }
    return depth === 0 && idx === n;
  }
}
