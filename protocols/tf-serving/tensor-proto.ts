/**
 * TensorFlow's TensorProto (tensorflow/core/framework/tensor.proto) into a neutral tensor,
 * as TensorFlow's `Tensor::FromProto` reads it: `tensor_content` (row-major little-endian
 * bytes) when present, otherwise the dtype's typed `*_val` field, where fewer values than
 * the shape needs repeat the last one (a single value fills the tensor) and none means
 * zeros. The shape must be concrete: a request tensor has no unknown dimensions.
 */
import { allocate, datatypeInfo, type DatatypeInfo } from '../datatypes.js';
import { MAX_RANK } from '../limits.js';
import { LITTLE_ENDIAN_HOST } from '../grpc/wire/host.js';
import { Wire, type WireReader } from '../grpc/wire/reader.js';
import type { Tensor } from '../tensor.js';
import { tfDataType, type ValField } from './data-type.js';

/** Elements as read from the wire: numbers, 64-bit integers, or byte strings. */
type Values = number[] | bigint[] | Uint8Array[];

interface RawTensor {
  dtype: number;
  shape: number[] | undefined;
  content: Buffer | undefined;
  vals: Partial<Record<ValField, Values>>;
}

/** How each `*_val` field is numbered and encoded on the wire. */
const VAL_FIELDS: ReadonlyMap<number, { field: ValField; read: (r: WireReader) => number | bigint }> = new Map([
  [5, { field: 'float_val', read: (r: WireReader) => r.float() }],
  [6, { field: 'double_val', read: (r: WireReader) => r.double() }],
  [7, { field: 'int_val', read: (r: WireReader) => r.varint32() | 0 }],
  [10, { field: 'int64_val', read: (r: WireReader) => (r.varint64(), BigInt.asIntN(64, (BigInt(r.hi) << 32n) | BigInt(r.lo))) }],
  [11, { field: 'bool_val', read: (r: WireReader) => (r.varint64(), (r.lo | r.hi) !== 0 ? 1 : 0) }],
  [13, { field: 'half_val', read: (r: WireReader) => r.varint32() & 0xffff }],
  [16, { field: 'uint32_val', read: (r: WireReader) => r.varint32() }],
  [17, { field: 'uint64_val', read: (r: WireReader) => (r.varint64(), (BigInt(r.hi) << 32n) | BigInt(r.lo)) }],
] as const);

/** Wire type of one unpacked element of each numeric field. */
const ELEMENT_WIRE: Readonly<Record<number, number>> = { 5: Wire.I32, 6: Wire.I64 };

function readDim(r: WireReader, where: string): number {
  let size = 0;
  while (r.pos < r.end) {
    const t = r.tag();
    if (t >>> 3 === 1 && (t & 7) === Wire.Varint) {
      r.varint64();
      if (r.hi !== 0) throw new Error(`${where}: dimension ${r.hi >= 0x80000000 ? 'is negative (unknown)' : 'is too large'}`);
      size = r.lo;
    } else r.skip(t & 7);
  }
  return size;
}

function readShape(r: WireReader, where: string): number[] {
  const dims: number[] = [];
  while (r.pos < r.end) {
    const t = r.tag();
    const field = t >>> 3;
    if (field === 2 && (t & 7) === Wire.Len) {
      const outer = r.enter(r.length());
      dims.push(readDim(r, where));
      r.leave(outer);
    } else if (field === 3 && (t & 7) === Wire.Varint) {
      r.varint64();
      if ((r.lo | r.hi) !== 0) throw new Error(`${where}: tensor_shape has unknown_rank`);
    } else r.skip(t & 7);
    if (dims.length > MAX_RANK) throw new Error(`${where}: more than ${MAX_RANK} dimensions`);
  }
  return dims;
}

function readRaw(r: WireReader, where: string): RawTensor {
  const out: RawTensor = { dtype: 0, shape: undefined, content: undefined, vals: {} };
  while (r.pos < r.end) {
    const t = r.tag();
    const field = t >>> 3;
    const wire = t & 7;
    const val = VAL_FIELDS.get(field);
    if (field === 1 && wire === Wire.Varint) out.dtype = r.varint32();
    else if (field === 2 && wire === Wire.Len) {
      const outer = r.enter(r.length());
      out.shape = readShape(r, where);
      r.leave(outer);
    } else if (field === 4 && wire === Wire.Len) out.content = r.bytes();
    else if (field === 8 && wire === Wire.Len) ((out.vals.string_val ??= []) as Uint8Array[]).push(r.bytes());
    else if (val !== undefined) {
      const list = (out.vals[val.field] ??= []) as Array<number | bigint>;
      if (wire === Wire.Len) {
        // Packed: the elements back to back in one span.
        const outer = r.enter(r.length());
        while (r.pos < r.end) list.push(val.read(r));
        r.leave(outer);
      } else if (wire === (ELEMENT_WIRE[field] ?? Wire.Varint)) list.push(val.read(r));
      else r.wrongType(field, wire);
    } else r.skip(wire);
  }
  return out;
}

function fromContent(info: DatatypeInfo, content: Buffer, count: number, where: string): Tensor['data'] {
  const need = count * info.byteSize;
  if (content.length !== need) throw new Error(`${where}: tensor_content holds ${content.length} bytes, the shape needs ${need}`);
  const data = allocate(info, count);
  // A copy, aligned for the typed array (the view on the file may not be).
  const bytes = new Uint8Array(data.buffer);
  bytes.set(content);
  // tensor_content is little-endian: a big-endian host swaps each element.
  if (!LITTLE_ENDIAN_HOST && info.byteSize > 1) for (let o = 0; o < bytes.length; o += info.byteSize) bytes.subarray(o, o + info.byteSize).reverse();
  return data;
}

function fromVals(info: DatatypeInfo, values: Values, count: number, field: ValField, where: string): Tensor['data'] {
  if (values.length > count) throw new Error(`${where}: ${field} holds ${values.length} values, the shape has ${count} elements`);
  if (info.arrayType === undefined) {
    const strings = values as Uint8Array[];
    const last = strings.at(-1) ?? new Uint8Array(0);
    return Array.from({ length: count }, (_, k) => Uint8Array.from(strings[k] ?? last));
  }
  const numbers = values as Array<number | bigint>;
  const data = allocate(info, count);
  const last = numbers.at(-1) ?? (info.bigint ? 0n : 0);
  for (let k = 0; k < count; k++) (data as unknown as Array<number | bigint>)[k] = numbers[k] ?? last;
  return data;
}

/**
 * Reads one TensorProto from the reader's current span as the tensor `name`. `maxElements`
 * bounds what a declared shape may make this allocate. Errors name the tensor.
 */
export function readTensorProto(r: WireReader, name: string, maxElements: number): Tensor {
  const where = `tensor '${name}'`;
  const raw = readRaw(r, where);
  const type = tfDataType(raw.dtype);
  if (type === undefined) throw new Error(`${where}: dtype ${raw.dtype} is not supported (no V2 datatype)`);
  const info = datatypeInfo(type.datatype) as DatatypeInfo;
  const shape = raw.shape ?? [];
  const count = shape.reduce((a, b) => a * b, 1);
  if (!(count <= maxElements)) throw new Error(`${where}: shape [${shape.join(', ')}] has more than ${maxElements} elements`);
  const data =
    raw.content !== undefined && raw.content.length > 0 && info.arrayType !== undefined
      ? fromContent(info, raw.content, count, where)
      : fromVals(info, raw.vals[type.field] ?? [], count, type.field, where);
  return { name, datatype: type.datatype, shape, data };
}
