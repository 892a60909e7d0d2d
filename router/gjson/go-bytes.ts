/**
 * Go's string semantics for the gjson port: a Go string is bytes, so the port works on
 * "byte strings" (one JS char per byte, latin1), which makes every index, length and
 * comparison (`<` on strings is bytewise in Go, and per code unit here) the same as Go's.
 * Plus the few strconv / unicode/utf8 functions gjson, match and pretty call.
 */

/** UTF-8 text → byte string. */
export function toBytes(text: string): string {
  return Buffer.from(text, 'utf8').toString('latin1');
}

/** Raw bytes → byte string. */
export function bytesOf(buf: Uint8Array): string {
  return Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength).toString('latin1');
}

/** Byte string → UTF-8 text (invalid sequences become U+FFFD, as a Go string printed). */
export function fromBytes(bytes: string): string {
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

export const RUNE_ERROR = 0xfffd;

/** utf8.DecodeRuneInString: [rune, size]; an invalid or short sequence is [RuneError, 1]; empty is [RuneError, 0]. */
export function decodeRune(s: string, at = 0): [number, number] {
  const n = s.length - at;
  if (n <= 0) return [RUNE_ERROR, 0];
  const c0 = s.charCodeAt(at);
  if (c0 < 0x80) return [c0, 1];
  const cont = (k: number): number => {
    const c = s.charCodeAt(at + k);
    return k < n && (c & 0xc0) === 0x80 ? c & 0x3f : -1;
  };
  if (c0 >= 0xc2 && c0 <= 0xdf) {
    const c1 = cont(1);
    return c1 < 0 ? [RUNE_ERROR, 1] : [((c0 & 0x1f) << 6) | c1, 2];
  }
  if (c0 >= 0xe0 && c0 <= 0xef) {
    const b1 = s.charCodeAt(at + 1);
    if (n < 2 || (c0 === 0xe0 && b1 < 0xa0) || (c0 === 0xed && b1 > 0x9f)) return [RUNE_ERROR, 1];
    const c1 = cont(1);
    const c2 = cont(2);
    if (c1 < 0 || c2 < 0) return [RUNE_ERROR, 1];
    return [((c0 & 0x0f) << 12) | (c1 << 6) | c2, 3];
  }
  if (c0 >= 0xf0 && c0 <= 0xf4) {
    const b1 = s.charCodeAt(at + 1);
    if (n < 2 || (c0 === 0xf0 && b1 < 0x90) || (c0 === 0xf4 && b1 > 0x8f)) return [RUNE_ERROR, 1];
    const c1 = cont(1);
    const c2 = cont(2);
    const c3 = cont(3);
    if (c1 < 0 || c2 < 0 || c3 < 0) return [RUNE_ERROR, 1];
    return [((c0 & 0x07) << 18) | (c1 << 12) | (c2 << 6) | c3, 4];
  }
  return [RUNE_ERROR, 1];
}

/** utf8.DecodeLastRuneInString. */
export function decodeLastRune(s: string): [number, number] {
  const end = s.length;
  if (end === 0) return [RUNE_ERROR, 0];
  if (s.charCodeAt(end - 1) < 0x80) return [s.charCodeAt(end - 1), 1];
  // Back up to a start byte, at most 4 bytes, as Go does.
  const lim = Math.max(0, end - 4);
  let start = end - 1;
  for (; start >= lim; start--) if ((s.charCodeAt(start) & 0xc0) !== 0x80) break;
  if (start < 0) start = 0;
  const [r, size] = decodeRune(s, start);
  if (start + size !== end) return [RUNE_ERROR, 1];
  return [r, size];
}

/** utf8.EncodeRune into a byte string (surrogates and out-of-range runes become U+FFFD). */
export function encodeRune(r: number): string {
  if (r < 0 || r > 0x10ffff || (r >= 0xd800 && r <= 0xdfff)) r = RUNE_ERROR;
  if (r < 0x80) return String.fromCharCode(r);
  if (r < 0x800) return String.fromCharCode(0xc0 | (r >> 6), 0x80 | (r & 0x3f));
  if (r < 0x10000) return String.fromCharCode(0xe0 | (r >> 12), 0x80 | ((r >> 6) & 0x3f), 0x80 | (r & 0x3f));
  return String.fromCharCode(0xf0 | (r >> 18), 0x80 | ((r >> 12) & 0x3f), 0x80 | ((r >> 6) & 0x3f), 0x80 | (r & 0x3f));
}

const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const HEX = /^([+-]?)0[xX]((?:[0-9a-fA-F]+\.?[0-9a-fA-F]*)|(?:\.[0-9a-fA-F]+))[pP]([+-]?\d+)$/;

function commonPrefixIgnoreCase(s: string, prefix: string): number {
  let n = 0;
  while (n < s.length && n < prefix.length && s[n]!.toLowerCase() === prefix[n]) n++;
  return n;
}

/**
 * strconv.ParseFloat(s, 64)'s value as gjson reads it (the error ignored): decimal and
 * hexadecimal floats, "inf"/"infinity" with a sign and "nan"; out of range gives ±Inf; a
 * syntax error gives 0.
 */
export function parseGoFloat(s: string): number {
  if (DECIMAL.test(s)) return Number(s);
  const hex = HEX.exec(s);
  if (hex !== null) {
    const [, sign, mant, exp] = hex as unknown as [string, string, string, string];
    const dot = mant.indexOf('.');
    const digits = mant.replace('.', '');
    const fracDigits = dot < 0 ? 0 : mant.length - dot - 1;
    let m = 0;
    for (const d of digits) m = m * 16 + parseInt(d, 16);
    const v = m * 2 ** (Number(exp) - 4 * fracDigits);
    return sign === '-' ? -v : v;
  }
  let body = s;
  let sign = 1;
  if (body[0] === '+' || body[0] === '-') {
    if (body[0] === '-') sign = -1;
    body = body.slice(1);
    const n = commonPrefixIgnoreCase(body, 'infinity');
    if ((n === 3 || n === 8) && body.length === n) return sign * Infinity;
    return 0;
  }
  const n = commonPrefixIgnoreCase(body, 'infinity');
  if ((n === 3 || n === 8) && body.length === n) return Infinity;
  if (body.length === 3 && commonPrefixIgnoreCase(body, 'nan') === 3) return NaN;
  return 0;
}

/** strconv.ParseFloat's error-free case (for modifiers that test it). */
export function isGoFloat(s: string): boolean {
  return DECIMAL.test(s) || HEX.test(s) || /^[+-]?(inf|infinity)$/i.test(s) || /^nan$/i.test(s);
}

/** strconv.ParseBool: [value, ok]. */
export function parseGoBool(s: string): [boolean, boolean] {
  switch (s) {
    case '1':
    case 't':
    case 'T':
    case 'TRUE':
    case 'true':
    case 'True':
      return [true, true];
    case '0':
    case 'f':
    case 'F':
    case 'FALSE':
    case 'false':
    case 'False':
      return [false, true];
    default:
      return [false, false];
  }
}

/** strings.ToLower for the ASCII letters (what the callers compare with ASCII words). */
export function asciiLower(s: string): string {
  return s.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));
}

/** strconv.FormatFloat(f, 'f', -1, 64): the shortest round-trip digits, never an exponent. */
export function formatGoFloatF(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (f === Infinity) return '+Inf';
  if (f === -Infinity) return '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const [mant, expText] = Math.abs(f).toExponential().split('e') as [string, string];
  const digits = mant.replace('.', '');
  const exp = Number(expText);
  let out: string;
  if (exp >= digits.length - 1) out = digits + '0'.repeat(exp - digits.length + 1);
  else if (exp >= 0) out = `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
  else out = `0.${'0'.repeat(-exp - 1)}${digits}`;
  return f < 0 ? `-${out}` : out;
}
