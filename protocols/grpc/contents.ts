/**
 * Typed `InferTensorContents` <-> neutral tensor storage. The field for each datatype comes
 * from the datatype table (`grpcField`); FP16 and BF16 have none and travel raw only.
 */
import { DATATYPES, type DatatypeInfo, type GrpcContentsField, type TensorData, allocate, datatypeInfo } from '../datatypes.js';
import { errors } from '../errors.js';
import { shapeText } from '../input-header.js';
import type { InferTensorContentsMessage } from './messages.js';

const CONTENTS_FIELDS: readonly GrpcContentsField[] = [...new Set(DATATYPES.flatMap((d) => datatypeInfo(d)?.grpcField ?? []))];

/** True when any typed field holds at least one element. */
export function hasTypedContents(contents: InferTensorContentsMessage | null | undefined): boolean {
  if (contents == null) return false;
  return CONTENTS_FIELDS.some((f) => (contents[f]?.length ?? 0) > 0);
}

/**
 * Decodes typed contents of input `name` into storage for `info` and `count` elements.
 * Rejects a datatype without a typed field, a count that does not match the shape, data
 * in another datatype's field and values outside the datatype's range.
 */
export function decodeContents(name: string, info: DatatypeInfo, shape: readonly number[], count: number, contents: InferTensorContentsMessage | null | undefined): TensorData {
  const field = info.grpcField;
  if (field === undefined) {
    throw errors.invalidInput(`input '${name}': ${info.name} has no typed contents field; send its data in raw_input_contents`);
  }
  const values: ArrayLike<unknown> = contents?.[field] ?? [];
  if (values.length !== count) {
    const other = CONTENTS_FIELDS.find((f) => f !== field && (contents?.[f]?.length ?? 0) > 0);
    throw errors.invalidInput(
      other === undefined
        ? `input '${name}': shape ${shapeText(shape)} has ${count} elements but ${field} has ${values.length}`
        : `input '${name}': ${info.name} data belongs in ${field}, but the request set ${other}`,
    );
  }
  if (info.arrayType === undefined) return Array.from(values as ArrayLike<Uint8Array>);
  // The wire codec decodes each field into a fresh typed array of its own: adopt it when it
  // is already this datatype's storage (FP32, FP64, INT32, UINT32, INT64, UINT64).
  if (count > 0 && values instanceof info.arrayType) return values as TensorData;
  const out = allocate(info, count);
  if (info.bigint) {
    const big = out as BigInt64Array | BigUint64Array;
    for (let i = 0; i < count; i++) big[i] = BigInt((values as ArrayLike<string | number>)[i] as string | number);
    return out;
  }
  if (info.name === 'BOOL') {
    for (let i = 0; i < count; i++) (out as Uint8Array)[i] = values[i] === true ? 1 : 0;
    return out;
  }
  const nums = values as ArrayLike<number>;
  if (info.byteSize >= 4) {
    // int32, uint32, float and double fields hold exactly the values their arrays can.
    (out as Float64Array).set(nums);
    return out;
  }
  // INT8/INT16 ride in int32 fields and UINT8/UINT16 in uint32 ones: reject what the
  // narrower array would silently wrap.
  const narrow = out as Int16Array;
  for (let i = 0; i < count; i++) {
    const v = nums[i] as number;
    narrow[i] = v;
    if (narrow[i] !== v) {
      throw errors.invalidInput(`input '${name}': element ${i} (${v}) is out of range for ${info.name}`);
    }
  }
  return out;
}

function asBuffer(b: Uint8Array): Buffer {
  return Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

/** Typed contents of an output whose datatype has a typed field. */
export function encodeContents(info: DatatypeInfo, data: TensorData): InferTensorContentsMessage {
  const field = info.grpcField;
  if (field === undefined) throw new TypeError(`${info.name} has no typed contents field`);
  if (Array.isArray(data)) return { [field]: data.map(asBuffer) };
  if (info.name === 'BOOL') return { [field]: Array.from(data as Uint8Array, (v) => v !== 0) };
  // The wire codec writes typed arrays in bulk (every datatype with a typed field has
  // a typed array whose elements its field holds exactly: INT8 in int_contents, ...).
  return { [field]: data };
}
