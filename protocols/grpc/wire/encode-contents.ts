/**
 * InferTensorContents to the wire. Every numeric field is written packed; fp32 and fp64
 * elements held in a Float32Array / Float64Array are copied in bulk on little-endian
 * hosts (the wire order), element by element otherwise.
 */
import type { InferTensorContentsMessage, Int64 } from '../messages.js';
import { LITTLE_ENDIAN_HOST } from './host.js';
import type { SizeTable, WireWriter } from './writer.js';
import { delimitedSize, split, splitInt64, varint64Size, varintSize } from './writer.js';

type Int64List = ArrayLike<Int64> | BigInt64Array | BigUint64Array;

function int32Size(v: number): number {
  // Negative int32 values are sign-extended to ten bytes.
  return v < 0 ? 10 : varintSize(v);
}

function int64ListSize(values: Int64List): number {
  let n = 0;
  if (LITTLE_ENDIAN_HOST && (values instanceof BigInt64Array || values instanceof BigUint64Array)) {
    const halves = new Uint32Array(values.buffer, values.byteOffset, values.length * 2);
    for (let i = 0; i < halves.length; i += 2) n += varint64Size(halves[i] as number, halves[i + 1] as number);
    return n;
  }
  for (let i = 0; i < values.length; i++) {
    splitInt64(values[i] as Int64 | bigint);
    n += varint64Size(split.lo, split.hi);
  }
  return n;
}

function writeInt64List(w: WireWriter, values: Int64List): void {
  if (LITTLE_ENDIAN_HOST && (values instanceof BigInt64Array || values instanceof BigUint64Array)) {
    const halves = new Uint32Array(values.buffer, values.byteOffset, values.length * 2);
    for (let i = 0; i < halves.length; i += 2) w.varint64(halves[i] as number, halves[i + 1] as number);
    return;
  }
  for (let i = 0; i < values.length; i++) {
    splitInt64(values[i] as Int64 | bigint);
    w.varint64(split.lo, split.hi);
  }
}

function writeFixed(w: WireWriter, values: ArrayLike<number>, width: 4 | 8): void {
  const isTyped = width === 4 ? values instanceof Float32Array : values instanceof Float64Array;
  if (LITTLE_ENDIAN_HOST && isTyped) {
    const typed = values as Float32Array | Float64Array;
    w.bytes(new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength));
    return;
  }
  const b = w.buf;
  let p = w.pos;
  for (let i = 0; i < values.length; i++, p += width) {
    if (width === 4) b.writeFloatLE(values[i] as number, p);
    else b.writeDoubleLE(values[i] as number, p);
  }
  w.pos = p;
}

const len = (a: ArrayLike<unknown> | undefined | null): number => (a === undefined || a === null ? 0 : a.length);

function int32ListSize(v: ArrayLike<number>): number {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += int32Size(v[i] as number);
  return n;
}

function uint32ListSize(v: ArrayLike<number>): number {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += varintSize((v[i] as number) >>> 0);
  return n;
}

/** Records a packed run's length; returns the bytes of its field. */
function packed(t: SizeTable, n: number): number {
  t.lengths.push(n);
  return delimitedSize(n);
}

/** Size of the contents message; records the packed runs' lengths in `t`. */
export function contentsSize(c: InferTensorContentsMessage, t: SizeTable): number {
  let total = 0;
  if (len(c.bool_contents) > 0) total += packed(t, (c.bool_contents as boolean[]).length);
  if (len(c.int_contents) > 0) total += packed(t, int32ListSize(c.int_contents as ArrayLike<number>));
  if (len(c.int64_contents) > 0) total += packed(t, int64ListSize(c.int64_contents as Int64List));
  if (len(c.uint_contents) > 0) total += packed(t, uint32ListSize(c.uint_contents as ArrayLike<number>));
  if (len(c.uint64_contents) > 0) total += packed(t, int64ListSize(c.uint64_contents as Int64List));
  if (len(c.fp32_contents) > 0) total += packed(t, 4 * (c.fp32_contents as ArrayLike<number>).length);
  if (len(c.fp64_contents) > 0) total += packed(t, 8 * (c.fp64_contents as ArrayLike<number>).length);
  const bytes = c.bytes_contents;
  if (bytes !== undefined && bytes !== null) for (const b of bytes) total += delimitedSize(b.byteLength);
  return total;
}

/** A packed run's tag and the length the size pass recorded. */
function start(w: WireWriter, tag: number): void {
  w.varint(tag);
  w.varint(w.length());
}

export function writeContents(c: InferTensorContentsMessage, w: WireWriter): void {
  if (len(c.bool_contents) > 0) {
    start(w, 0x0a);
    for (const v of c.bool_contents as boolean[]) w.buf[w.pos++] = v ? 1 : 0;
  }
  if (len(c.int_contents) > 0) {
    start(w, 0x12);
    const v = c.int_contents as ArrayLike<number>;
    for (let i = 0; i < v.length; i++) {
      const x = v[i] as number;
      if (x < 0) w.varint64(x >>> 0, 0xffffffff);
      else w.varint(x);
    }
  }
  if (len(c.int64_contents) > 0) {
    start(w, 0x1a);
    writeInt64List(w, c.int64_contents as Int64List);
  }
  if (len(c.uint_contents) > 0) {
    start(w, 0x22);
    const v = c.uint_contents as ArrayLike<number>;
    for (let i = 0; i < v.length; i++) w.varint((v[i] as number) >>> 0);
  }
  if (len(c.uint64_contents) > 0) {
    start(w, 0x2a);
    writeInt64List(w, c.uint64_contents as Int64List);
  }
  if (len(c.fp32_contents) > 0) {
    start(w, 0x32);
    writeFixed(w, c.fp32_contents as ArrayLike<number>, 4);
  }
  if (len(c.fp64_contents) > 0) {
    start(w, 0x3a);
    writeFixed(w, c.fp64_contents as ArrayLike<number>, 8);
  }
  const bytes = c.bytes_contents;
  if (bytes === undefined || bytes === null) return;
  for (const b of bytes) {
    w.varint(0x42);
    w.varint(b.byteLength);
    w.bytes(b);
  }
}
