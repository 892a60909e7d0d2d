/**
 * Protobuf wire-format writing for the hand-written ModelInfer codec, in two passes: a
 * size pass records the length of every nested message, packed run and string in a
 * SizeTable (in visiting order), then the write pass visits the same fields in the same
 * order, takes those lengths back and writes into one Buffer of exactly the total size.
 */
import type { Int64 } from '../messages.js';

export class SizeTable {
  readonly lengths: number[] = [];

  /** A slot for a length known only after its contents are sized. */
  reserve(): number {
    return this.lengths.push(0) - 1;
  }

  /** Records a string's UTF-8 length and returns it. */
  string(s: string): number {
    const n = s.length <= SHORT_STRING ? utf8Length(s) : Buffer.byteLength(s, 'utf8');
    this.lengths.push(n);
    return n;
  }
}

/**
 * Names, datatypes and ids are short: below this length a JavaScript loop measures and
 * writes UTF-8 faster than a call into Buffer's native code (which wins on long strings).
 */
const SHORT_STRING = 64;

/** UTF-8 length of `s`, a lone surrogate counting as U+FFFD (3 bytes), as Buffer writes it. */
function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** Writes `s` as UTF-8 at `p` (the bytes utf8Length counted); returns the end. */
function writeUtf8(b: Buffer, p: number, s: string): number {
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c < 0x80) {
      b[p++] = c;
    } else if (c < 0x800) {
      b[p++] = 0xc0 | (c >> 6);
      b[p++] = 0x80 | (c & 0x3f);
    } else {
      if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
        c = 0x10000 + ((c - 0xd800) << 10) + (s.charCodeAt(++i) - 0xdc00);
        b[p++] = 0xf0 | (c >> 18);
        b[p++] = 0x80 | ((c >> 12) & 0x3f);
      } else {
        if (c >= 0xd800 && c < 0xe000) c = 0xfffd;
        b[p++] = 0xe0 | (c >> 12);
      }
      b[p++] = 0x80 | ((c >> 6) & 0x3f);
      b[p++] = 0x80 | (c & 0x3f);
    }
  }
  return p;
}

/** Bytes of a varint holding an unsigned 32-bit value. */
export function varintSize(n: number): number {
  return n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : n < 0x10000000 ? 4 : 5;
}

/** Bytes of a varint holding the unsigned 64-bit value hi:lo. */
export function varint64Size(lo: number, hi: number): number {
  if (hi === 0) return varintSize(lo);
  return Math.ceil((64 - Math.clz32(hi)) / 7);
}

/** Bytes of a length-delimited field: tag, length, contents (every tag here is one byte). */
export function delimitedSize(n: number): number {
  return 1 + varintSize(n) + n;
}

/** A 64-bit integer split into unsigned halves (two's complement for negatives). */
export const split = { lo: 0, hi: 0 };

const TWO_32 = 4294967296;

export function splitInt64(v: Int64 | bigint): void {
  if (typeof v === 'number') {
    const a = Math.trunc(Math.abs(v));
    let lo = (a % TWO_32) >>> 0;
    let hi = Math.floor(a / TWO_32) >>> 0;
    if (v < 0 && a !== 0) {
      lo = (~lo + 1) >>> 0;
      hi = (~hi + (lo === 0 ? 1 : 0)) >>> 0;
    }
    split.lo = lo;
    split.hi = hi;
    return;
  }
  const b = BigInt.asUintN(64, BigInt(v));
  split.lo = Number(b & 0xffffffffn);
  split.hi = Number(b >> 32n);
}

export class WireWriter {
  pos = 0;
  private next = 0;
  readonly buf: Buffer;

  constructor(
    size: number,
    private readonly sizes: SizeTable,
  ) {
    this.buf = Buffer.allocUnsafe(size);
  }

  /** The next length the size pass recorded. */
  length(): number {
    return this.sizes.lengths[this.next++] as number;
  }

  /** A varint of an unsigned 32-bit value (tags, lengths, uint32). */
  varint(n: number): void {
    const b = this.buf;
    let p = this.pos;
    while (n >= 0x80) {
      b[p++] = (n & 0x7f) | 0x80;
      n >>>= 7;
    }
    b[p++] = n;
    this.pos = p;
  }

  varint64(lo: number, hi: number): void {
    if (hi === 0) {
      this.varint(lo);
      return;
    }
    const b = this.buf;
    let p = this.pos;
    // 28 bits of lo in four bytes, then the rest of lo with the start of hi.
    for (let i = 0; i < 4; i++) {
      b[p++] = (lo & 0x7f) | 0x80;
      lo >>>= 7;
    }
    let rest = ((hi & 0x7) << 4) | lo;
    hi >>>= 3;
    while (hi !== 0) {
      b[p++] = (rest & 0x7f) | 0x80;
      rest = hi & 0x7f;
      hi >>>= 7;
    }
    b[p++] = rest;
    this.pos = p;
  }

  /** A length-prefixed string whose length the size pass recorded. */
  string(s: string): void {
    const n = this.length();
    this.varint(n);
    if (s.length <= SHORT_STRING) writeUtf8(this.buf, this.pos, s);
    else this.buf.write(s, this.pos, n, 'utf8');
    this.pos += n;
  }

  /** Raw bytes, copied once. */
  bytes(src: Uint8Array): void {
    this.buf.set(src, this.pos);
    this.pos += src.byteLength;
  }

  /** The buffer, once the write pass has filled it exactly. */
  finish(): Buffer {
    if (this.pos !== this.buf.byteLength || this.next !== this.sizes.lengths.length) {
      throw new Error(`wire writer: wrote ${this.pos} of ${this.buf.byteLength} bytes`);
    }
    return this.buf;
  }
}
