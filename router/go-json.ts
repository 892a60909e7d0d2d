/**
 * Go's encoding/json as KServe's router uses it, so the answers the router builds are
 * byte-identical to KServe's:
 * - `goJsonSyntaxError`: json.Unmarshal's syntax check (its scanner) with Go's messages
 *   ("invalid character 'x' looking for beginning of value", "unexpected end of JSON
 *   input", ...), which KServe's router puts in an error answer's `cause`;
 * - `unmarshalObject`: json.Unmarshal into map[string]interface{} (ensemble answers);
 * - `marshalGo`: json.Marshal of what Unmarshal produced: object keys in sorted byte
 *   order, HTML characters and U+2028/U+2029 escaped, float64s as Go formats them.
 */

export type GoValue = null | boolean | number | string | GoValue[] | { [key: string]: GoValue };

const PRINTABLE_LATIN1 = (c: number): boolean => (c >= 0x20 && c < 0x7f) || (c >= 0xa1 && c !== 0xad);

/** Go's quoteChar: the byte as a quoted character for scanner messages. */
function quoteChar(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return "'\"'";
  // strconv.Quote(string(rune(c))) without its double quotes
  const named: Record<number, string> = { 7: '\\a', 8: '\\b', 12: '\\f', 10: '\\n', 13: '\\r', 9: '\\t', 11: '\\v', 0x5c: '\\\\' };
  const esc = named[c];
  if (esc !== undefined) return `'${esc}'`;
  if (PRINTABLE_LATIN1(c)) return `'${String.fromCharCode(c)}'`;
  if (c < 0x20 || c === 0x7f) return `'\\x${c.toString(16).padStart(2, '0')}'`;
  return `'\\u${c.toString(16).padStart(4, '0')}'`;
}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

const MAX_NESTING = 10000;

/** json.Unmarshal's syntax error message for `data`, or undefined when it is valid JSON. */
export function goJsonSyntaxError(data: Uint8Array): string | undefined {
  const stack: ('obj-key' | 'obj-value' | 'arr')[] = [];
  let i = 0;
  const n = data.length;
  const fail = (c: number, context: string): string => `invalid character ${quoteChar(c)} ${context}`;
  const EOF = 'unexpected end of JSON input';

  // Each state consumes from i; returns an error message or undefined to continue.
  const value = (): string | undefined => {
    while (i < n && isSpace(data[i]!)) i++;
    if (i >= n) return EOF;
    const c = data[i]!;
    if (c === 0x7b /* { */) {
      i++;
      if (stack.length >= MAX_NESTING) return 'exceeded max depth';
      while (i < n && isSpace(data[i]!)) i++;
      if (i >= n) return EOF;
      if (data[i] === 0x7d) {
        i++;
        return undefined;
      }
      stack.push('obj-key');
      return objectMembers();
    }
    if (c === 0x5b /* [ */) {
      i++;
      if (stack.length >= MAX_NESTING) return 'exceeded max depth';
      while (i < n && isSpace(data[i]!)) i++;
      if (i >= n) return EOF;
      if (data[i] === 0x5d) {
        i++;
        return undefined;
      }
      stack.push('arr');
      return arrayElements();
    }
    if (c === 0x22) {
      i++;
      return string();
    }
    if (c === 0x2d || isDigit(c)) return number();
    const lit = c === 0x74 ? 'true' : c === 0x66 ? 'false' : c === 0x6e ? 'null' : undefined;
    if (lit !== undefined) {
      for (let k = 1; k < lit.length; k++) {
        // At the end Go's scanner is fed a space, so a cut literal fails on ' '.
        const got = i + k < n ? data[i + k]! : 0x20;
        if (got !== lit.charCodeAt(k)) return fail(got, `in literal ${lit} (expecting '${lit[k]}')`);
      }
      i += lit.length;
      return undefined;
    }
    return fail(c, 'looking for beginning of value');
  };

  const string = (): string | undefined => {
    for (; i < n; i++) {
      const c = data[i]!;
      if (c === 0x22) {
        i++;
        return undefined;
      }
      if (c === 0x5c) {
        i++;
        const e = i < n ? data[i]! : 0x20;
        if (e === 0x75 /* u */) {
          for (let k = 0; k < 4; k++) {
            i++;
            const h = i < n ? data[i]! : 0x20;
            if (!isHex(h)) return fail(h, 'in \\u hexadecimal character escape');
          }
        } else if (!'bfnrt\\/"'.includes(String.fromCharCode(e))) {
          return fail(e, 'in string escape code');
        }
      } else if (c < 0x20) {
        return fail(c, 'in string literal');
      }
    }
    return EOF;
  };

  // A number cut by the end fails on the space Go's scanner is fed there.
  const at = (k: number): number => (k < n ? data[k]! : 0x20);
  const number = (): string | undefined => {
    if (data[i] === 0x2d) {
      i++;
      if (!isDigit(at(i))) return fail(at(i), 'in numeric literal');
    }
    if (data[i] === 0x30) i++;
    else while (i < n && isDigit(data[i]!)) i++;
    if (i < n && data[i] === 0x2e) {
      i++;
      if (!isDigit(at(i))) return fail(at(i), 'after decimal point in numeric literal');
      while (i < n && isDigit(data[i]!)) i++;
    }
    if (i < n && (data[i] === 0x65 || data[i] === 0x45)) {
      i++;
      if (i < n && (data[i] === 0x2b || data[i] === 0x2d)) i++;
      if (!isDigit(at(i))) return fail(at(i), 'in exponent of numeric literal');
      while (i < n && isDigit(data[i]!)) i++;
    }
    return undefined;
  };

  // After a value inside an object or array: the separator, the closer or the next member.
  const objectMembers = (): string | undefined => {
    for (;;) {
      while (i < n && isSpace(data[i]!)) i++;
      if (i >= n) return EOF;
      if (data[i] !== 0x22) return fail(data[i]!, 'looking for beginning of object key string');
      i++;
      const e1 = string();
      if (e1 !== undefined) return e1;
      while (i < n && isSpace(data[i]!)) i++;
      if (i >= n) return EOF;
      if (data[i] !== 0x3a) return fail(data[i]!, 'after object key');
      i++;
      const e2 = value();
      if (e2 !== undefined) return e2;
      while (i < n && isSpace(data[i]!)) i++;
      if (i >= n) return EOF;
      if (data[i] === 0x2c) {
        i++;
        continue;
      }
      if (data[i] === 0x7d) {
        i++;
        stack.pop();
        return undefined;
      }
      return fail(data[i]!, 'after object key:value pair');
    }
  };

  const arrayElements = (): string | undefined => {
    for (;;) {
      const e = value();
      if (e !== undefined) return e;
      while (i < n && isSpace(data[i]!)) i++;
      if (i >= n) return EOF;
      if (data[i] === 0x2c) {
        i++;
        continue;
      }
      if (data[i] === 0x5d) {
        i++;
        stack.pop();
        return undefined;
      }
      return fail(data[i]!, 'after array element');
    }
  };

  const err = value();
  if (err !== undefined) return err;
  while (i < n && isSpace(data[i]!)) i++;
  if (i < n) return fail(data[i]!, 'after top-level value');
  return undefined;
}

function goTypeOf(v: GoValue): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  return 'object';
}

/** The first number in (valid) JSON text that a float64 cannot hold, as written. */
function firstOverflow(text: string): string | undefined {
  const token = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
  for (let m = token.exec(text); m !== null; m = token.exec(text)) {
    if (m[0][0] !== '"' && !Number.isFinite(Number(m[0]))) return m[0];
  }
  return undefined;
}

export type Unmarshalled = { ok: true; value: { [key: string]: GoValue } | null } | { ok: false; error: string };

/** json.Unmarshal(data, &map[string]interface{}): the object, null for JSON null, or Go's error. */
export function unmarshalObject(data: Uint8Array): Unmarshalled {
  const syntax = goJsonSyntaxError(data);
  if (syntax !== undefined) return { ok: false, error: syntax };
  const text = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8');
  const value = JSON.parse(text) as GoValue;
  if (value === null) return { ok: true, value: null };
  if (typeof value !== 'object' || Array.isArray(value)) return { ok: false, error: `json: cannot unmarshal ${goTypeOf(value)} into Go value of type map[string]interface {}` };
  // A number float64 cannot hold (JSON.parse made it Infinity): Go names it as written.
  const overflow = firstOverflow(text);
  if (overflow !== undefined) return { ok: false, error: `json: cannot unmarshal number ${overflow} into Go value of type float64` };
  return { ok: true, value };
}

/** Code point order, which is the byte order of the UTF-8 strings Go sorts. */
function compareUtf8(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let k = 0; k < n; k++) {
    const x = a.codePointAt(k)!;
    const y = b.codePointAt(k)!;
    if (x !== y) return x < y ? -1 : 1;
    if (x > 0xffff) k++;
  }
  return a.length - b.length;
}

const HEX = '0123456789abcdef';

/** A Go json.Marshal string (HTML characters and U+2028/U+2029 escaped). */
export function goString(s: string): string {
  let out = '"';
  let start = 0;
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k);
    let esc: string | undefined;
    if (c < 0x20) {
      esc = c === 0x08 ? '\\b' : c === 0x0c ? '\\f' : c === 0x0a ? '\\n' : c === 0x0d ? '\\r' : c === 0x09 ? '\\t' : `\\u00${HEX[c >> 4]}${HEX[c & 15]}`;
    } else if (c === 0x22) esc = '\\"';
    else if (c === 0x5c) esc = '\\\\';
    else if (c === 0x3c) esc = '\\u003c';
    else if (c === 0x3e) esc = '\\u003e';
    else if (c === 0x26) esc = '\\u0026';
    else if (c === 0x2028) esc = '\\u2028';
    else if (c === 0x2029) esc = '\\u2029';
    else if (c >= 0xd800 && c <= 0xdfff) {
      // A pair is one character; a lone surrogate is what Go decoded as U+FFFD.
      const next = s.charCodeAt(k + 1);
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        k++;
        continue;
      }
      esc = '\ufffd';
    }
    if (esc !== undefined) {
      out += s.slice(start, k) + esc;
      start = k + 1;
    }
  }
  return `${out + s.slice(start)}"`;
}

/** json.Marshal of a value json.Unmarshal produced. */
export function marshalGo(v: GoValue): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v);
  if (typeof v === 'string') return goString(v);
  if (Array.isArray(v)) return `[${v.map(marshalGo).join(',')}]`;
  const keys = Object.keys(v).sort(compareUtf8);
  return `{${keys.map((k) => `${goString(k)}:${marshalGo(v[k]!)}`).join(',')}}`;
}
