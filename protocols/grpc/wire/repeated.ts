/**
 * Repeated scalar fields of InferTensorContents, decoded straight into typed arrays.
 *
 * proto3 parsers must accept a repeated scalar both packed (one length-delimited run) and
 * unpacked (one tag per element), even mixed in one message, concatenating in order. Each
 * packed run is sized from its byte length, which the reader has already checked against
 * the message, so nothing is allocated beyond what the bytes can hold.
 */
import { LITTLE_ENDIAN_HOST } from './host.js';
import { Wire, type WireReader } from './reader.js';

export type NumericArray = Float32Array | Float64Array | Int32Array | Uint32Array | BigInt64Array | BigUint64Array;

interface ElementKind<A extends NumericArray> {
  /** Wire type of one unpacked element. */
  readonly wire: Wire;
  readonly make: new (n: number) => A;
  /** Decodes a packed run of `n` bytes starting at the reader's position. */
  packed(r: WireReader, n: number): A;
  one(r: WireReader): A[number];
}

function fixedWidth<A extends Float32Array | Float64Array>(make: new (n: number) => A, width: 4 | 8, one: (r: WireReader) => number): ElementKind<A> {
  return {
    wire: width === 4 ? Wire.I32 : Wire.I64,
    make,
    packed(r, n) {
      if (n % width !== 0) r.fail(`packed run of ${n} bytes is not a whole number of ${width}-byte values`);
      const out = new make(n / width);
      const p = r.pos;
      if (LITTLE_ENDIAN_HOST) {
        new Uint8Array(out.buffer).set(r.buf.subarray(p, p + n));
        r.pos = p + n;
      } else {
        for (let i = 0; i < out.length; i++) out[i] = one(r);
      }
      return out;
    },
    one,
  };
}

/** Elements in a packed varint run: bytes that end a varint. The run must end on one. */
function varintCount(r: WireReader, n: number): number {
  const b = r.buf;
  const end = r.pos + n;
  let count = 0;
  for (let p = r.pos; p < end; p++) if ((b[p] as number) < 0x80) count++;
  if (n > 0 && (b[end - 1] as number) >= 0x80) r.fail('truncated varint in a packed run');
  return count;
}

function varint32<A extends Int32Array | Uint32Array>(make: new (n: number) => A): ElementKind<A> {
  return {
    wire: Wire.Varint,
    make,
    packed(r, n) {
      const out = new make(varintCount(r, n));
      const outer = r.enter(n);
      // Int32Array stores the low 32 bits as signed, Uint32Array as unsigned: both are
      // what proto's int32 / uint32 keep of a (possibly sign-extended) varint.
      for (let i = 0; i < out.length; i++) out[i] = r.varint32();
      r.leave(outer);
      return out;
    },
    one: (r) => r.varint32(),
  };
}

function varint64<A extends BigInt64Array | BigUint64Array>(make: new (n: number) => A, signed: boolean): ElementKind<A> {
  const one = (r: WireReader): bigint => {
    r.varint64();
    const v = (BigInt(r.hi) << 32n) | BigInt(r.lo);
    return signed ? BigInt.asIntN(64, v) : v;
  };
  return {
    wire: Wire.Varint,
    make,
    packed(r, n) {
      const out = new make(varintCount(r, n));
      const outer = r.enter(n);
      if (LITTLE_ENDIAN_HOST) {
        // Halves straight into the 64-bit slots: no bigint per element.
        const halves = new Uint32Array(out.buffer);
        for (let i = 0; i < out.length; i++) {
          r.varint64();
          halves[2 * i] = r.lo;
          halves[2 * i + 1] = r.hi;
        }
      } else {
        for (let i = 0; i < out.length; i++) out[i] = one(r);
      }
      r.leave(outer);
      return out;
    },
    one: one,
  };
}

export const FLOAT = fixedWidth(Float32Array, 4, (r) => r.float());
export const DOUBLE = fixedWidth(Float64Array, 8, (r) => r.double());
export const INT32 = varint32(Int32Array);
export const UINT32 = varint32(Uint32Array);
export const INT64 = varint64(BigInt64Array, true);
export const UINT64 = varint64(BigUint64Array, false);

/** The runs and loose elements of one repeated field, in arrival order. */
export class RepeatedNumbers<A extends NumericArray> {
  private runs: A[] = [];
  private loose: A[number][] = [];

  constructor(private readonly kind: ElementKind<A>) {}

  /** Reads one occurrence of the field, packed or not; false when the wire type is neither. */
  read(r: WireReader, wire: number): boolean {
    if (wire === Wire.Len) {
      const n = r.length();
      this.flush();
      this.runs.push(this.kind.packed(r, n));
      return true;
    }
    if (wire !== this.kind.wire) return false;
    this.loose.push(this.kind.one(r));
    return true;
  }

  private flush(): void {
    if (this.loose.length === 0) return;
    const run = new this.kind.make(this.loose.length);
    (run as { set(a: ArrayLike<unknown>): void }).set(this.loose);
    this.runs.push(run);
    this.loose = [];
  }

  /**
   * The field's elements; an empty plain array when it never occurred. The array owns its
   * buffer whole, so a backend may transfer it to its worker instead of copying.
   */
  finish(): A | never[] {
    this.flush();
    const runs = this.runs;
    if (runs.length === 0) return [];
    if (runs.length === 1) return runs[0] as A;
    let total = 0;
    for (const run of runs) total += run.length;
    const out = new this.kind.make(total);
    let at = 0;
    for (const run of runs) {
      (out as { set(a: ArrayLike<unknown>, at: number): void }).set(run, at);
      at += run.length;
    }
    return out;
  }
}
