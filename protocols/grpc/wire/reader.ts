/**
 * Protobuf wire-format reading for the hand-written ModelInfer codec: tags, varints,
 * fixed-width scalars and length-delimited spans over one received Buffer.
 *
 * Every length a message declares is checked against the bytes actually left before it is
 * used, so a hostile message can neither read past its end nor make the decoder allocate
 * more than the message holds. Failures throw WireFormatError, which the server turns into
 * INVALID_ARGUMENT (server/grpc/undecodable.ts).
 */

export class WireFormatError extends Error {
  override readonly name = 'WireFormatError';
}

/** Wire types (the low three bits of a tag). */
export const Wire = {
  Varint: 0,
  I64: 1,
  Len: 2,
  StartGroup: 3,
  EndGroup: 4,
  I32: 5,
} as const;
export type Wire = (typeof Wire)[keyof typeof Wire];

/** Names and datatypes are short; a JavaScript loop decodes short ASCII faster than Buffer's native call. */
const SHORT_ASCII = 24;

function shortString(b: Buffer, start: number, end: number): string {
  let s = '';
  for (let p = start; p < end; p++) {
    const c = b[p] as number;
    if (c >= 0x80) return b.toString('utf8', start, end);
    s += String.fromCharCode(c);
  }
  return s;
}

/** Unknown groups nest; deeper than this is an attack, not a message. */
const MAX_GROUP_DEPTH = 32;

/**
 * A cursor over `buf` bounded by `end`. Nested messages are read by narrowing `end` to the
 * nested span (`enter`/`leave`) instead of allocating a reader per message.
 */
export class WireReader {
  pos = 0;
  end: number;
  /** The last 64-bit varint read by `varint64`, as unsigned 32-bit halves. */
  lo = 0;
  hi = 0;

  constructor(readonly buf: Buffer) {
    this.end = buf.byteLength;
  }

  fail(what: string): never {
    throw new WireFormatError(`${what} at byte ${this.pos}`);
  }

  /** Field number × 8 + wire type; rejects field 0 and the wire types 6 and 7. */
  tag(): number {
    const t = this.varint32();
    if (t >>> 3 === 0) this.fail('field number 0');
    if ((t & 7) > 5) this.fail(`wire type ${t & 7}`);
    return t;
  }

  /** A varint's low 32 bits, unsigned (what int32, uint32, enum and length fields keep). */
  varint32(): number {
    const p = this.pos;
    if (p < this.end) {
      const c = this.buf[p] as number;
      if (c < 0x80) {
        this.pos = p + 1;
        return c;
      }
    }
    this.varint64();
    return this.lo;
  }

  /** A varint of up to 10 bytes into `lo` / `hi`. */
  varint64(): void {
    const b = this.buf;
    const end = this.end;
    let p = this.pos;
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < 10; i++) {
      if (p >= end) this.fail('truncated varint');
      const c = b[p++] as number;
      if (i < 4) lo |= (c & 0x7f) << (7 * i);
      else if (i === 4) {
        lo |= (c & 0x0f) << 28;
        hi |= (c & 0x7f) >> 4;
      } else hi |= (c & 0x7f) << (7 * i - 32);
      if (c < 0x80) {
        this.pos = p;
        this.lo = lo >>> 0;
        this.hi = hi >>> 0;
        return;
      }
    }
    this.fail('varint longer than 10 bytes');
  }

  /** A length prefix, checked against the bytes left in the current span. */
  length(): number {
    const start = this.pos;
    let n: number;
    const c = start < this.end ? (this.buf[start] as number) : 0x80;
    if (c < 0x80) {
      this.pos = start + 1;
      n = c;
    } else {
      this.varint64();
      if (this.hi !== 0) this.fail('length overflows 32 bits');
      n = this.lo;
    }
    if (n > this.end - this.pos) {
      this.pos = start;
      this.fail(`length ${n} past the end of the message`);
    }
    return n;
  }

  /** Narrows the span to the next `n` bytes (a checked `length()`); returns the outer end. */
  enter(n: number): number {
    const outer = this.end;
    this.end = this.pos + n;
    return outer;
  }

  /** Restores the span after a nested message, which must have been read to its end. */
  leave(outer: number): void {
    if (this.pos !== this.end) this.fail('nested message not read to its end');
    this.end = outer;
  }

  need(n: number): void {
    if (n > this.end - this.pos) this.fail(`${n}-byte value past the end of the message`);
  }

  float(): number {
    this.need(4);
    const v = this.buf.readFloatLE(this.pos);
    this.pos += 4;
    return v;
  }

  double(): number {
    this.need(8);
    const v = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return v;
  }

  /** A length-delimited string (invalid UTF-8 becomes U+FFFD, as protobufjs does). */
  string(): string {
    const n = this.length();
    const p = this.pos;
    this.pos = p + n;
    return n <= SHORT_ASCII ? shortString(this.buf, p, p + n) : this.buf.toString('utf8', p, p + n);
  }

  /** A length-delimited bytes field as a view on the received message (no copy). */
  bytes(): Buffer {
    const n = this.length();
    const p = this.pos;
    this.pos = p + n;
    return this.buf.subarray(p, p + n);
  }

  /** Skips a field of an unknown number (or a known one where proto3 allows skipping). */
  skip(wire: number): void {
    let depth = 0;
    for (;;) {
      switch (wire) {
        case Wire.Varint:
          this.varint64();
          break;
        case Wire.I64:
          this.need(8);
          this.pos += 8;
          break;
        case Wire.Len: {
          const n = this.length();
          this.pos += n;
          break;
        }
        case Wire.I32:
          this.need(4);
          this.pos += 4;
          break;
        case Wire.StartGroup:
          if (++depth > MAX_GROUP_DEPTH) this.fail('groups nested too deeply');
          break;
        case Wire.EndGroup:
          if (depth === 0) this.fail('end of a group that was not started');
          depth--;
          break;
        default:
          this.fail(`wire type ${wire}`);
      }
      if (depth === 0) return;
      if (this.pos >= this.end) this.fail('truncated group');
      wire = this.tag() & 7;
    }
  }

  /** A known field arrived with another wire type than its declaration. */
  wrongType(field: number, wire: number): never {
    this.fail(`field ${field} has wire type ${wire}`);
  }
}

/** An unsigned 64-bit value from its halves, exactly, as a decimal string. */
export function uint64String(lo: number, hi: number): string {
  return hi < 0x200000 ? String(hi * 4294967296 + lo) : ((BigInt(hi) << 32n) | BigInt(lo)).toString();
}

/** A signed (two's complement) 64-bit value from its halves, exactly, as a decimal string. */
export function int64String(lo: number, hi: number): string {
  if (hi < 0x200000) return String(hi * 4294967296 + lo);
  return BigInt.asIntN(64, (BigInt(hi) << 32n) | BigInt(lo)).toString();
}
