/**
 * The V2 / Open Inference Protocol datatype table: one row per datatype, shared by every
 * codec and backend so that sizes, storage and gRPC field names are defined exactly once.
 *
 * Storage convention (the neutral representation, see tensor.ts):
 * - numeric types are held in the typed array of their width (INT64 in BigInt64Array, ...);
 * - BOOL is one byte per element (0/1) in a Uint8Array, as on the wire;
 * - FP16 and BF16 keep their raw 16-bit patterns in a Uint16Array: JavaScript has no
 *   half-precision type, and the bits must survive a round trip untouched;
 * - BYTES is an array of Uint8Array, one per element.
 */

export const DATATYPES = ['BOOL', 'UINT8', 'UINT16', 'UINT32', 'UINT64', 'INT8', 'INT16', 'INT32', 'INT64', 'FP16', 'BF16', 'FP32', 'FP64', 'BYTES'] as const;

export type Datatype = (typeof DATATYPES)[number];

export type NumericArray = Uint8Array | Uint16Array | Uint32Array | BigUint64Array | Int8Array | Int16Array | Int32Array | BigInt64Array | Float32Array | Float64Array;

/** Element storage of a tensor: a typed array for fixed-size types, one buffer per element for BYTES. */
export type TensorData = NumericArray | Uint8Array[];

type TypedArrayCtor = {
  new (length: number): NumericArray;
  new (buffer: ArrayBufferLike, byteOffset: number, length: number): NumericArray;
  readonly BYTES_PER_ELEMENT: number;
};

/** gRPC `InferTensorContents` field carrying a datatype, when it has one. */
export type GrpcContentsField = 'bool_contents' | 'int_contents' | 'int64_contents' | 'uint_contents' | 'uint64_contents' | 'fp32_contents' | 'fp64_contents' | 'bytes_contents';

export interface DatatypeInfo {
  readonly name: Datatype;
  /** Bytes per element in raw (binary extension / gRPC raw) encoding; 0 for BYTES. */
  readonly byteSize: number;
  /** Typed array holding the elements; undefined for BYTES. */
  readonly arrayType: TypedArrayCtor | undefined;
  /** True where elements are bigint in JavaScript (64-bit integers). */
  readonly bigint: boolean;
  /** JSON `data` can carry this type (FP16 and BF16 have no JSON form, as in the anchor). */
  readonly json: boolean;
  readonly grpcField: GrpcContentsField | undefined;
  /** Triton's model-configuration name (`config.pbtxt` `data_type`): TYPE_FP32, ...; BYTES is TYPE_STRING. */
  readonly tritonType: string;
}

function row(
  name: Datatype,
  byteSize: number,
  arrayType: TypedArrayCtor | undefined,
  grpcField: GrpcContentsField | undefined,
  opts: { bigint?: boolean; json?: boolean } = {},
): DatatypeInfo {
  return Object.freeze({
    name,
    byteSize,
    arrayType,
    bigint: opts.bigint ?? false,
    json: opts.json ?? true,
    grpcField,
    tritonType: name === 'BYTES' ? 'TYPE_STRING' : `TYPE_${name}`,
  });
}

// A Map rather than an object literal so that lookups with request-supplied strings
// can never hit Object.prototype members such as "constructor".
const TABLE: ReadonlyMap<string, DatatypeInfo> = new Map<string, DatatypeInfo>([
  ['BOOL', row('BOOL', 1, Uint8Array, 'bool_contents')],
  ['UINT8', row('UINT8', 1, Uint8Array, 'uint_contents')],
  ['UINT16', row('UINT16', 2, Uint16Array, 'uint_contents')],
  ['UINT32', row('UINT32', 4, Uint32Array, 'uint_contents')],
  ['UINT64', row('UINT64', 8, BigUint64Array, 'uint64_contents', { bigint: true })],
  ['INT8', row('INT8', 1, Int8Array, 'int_contents')],
  ['INT16', row('INT16', 2, Int16Array, 'int_contents')],
  ['INT32', row('INT32', 4, Int32Array, 'int_contents')],
  ['INT64', row('INT64', 8, BigInt64Array, 'int64_contents', { bigint: true })],
  ['FP16', row('FP16', 2, Uint16Array, undefined, { json: false })],
  ['BF16', row('BF16', 2, Uint16Array, undefined, { json: false })],
  ['FP32', row('FP32', 4, Float32Array, 'fp32_contents')],
  ['FP64', row('FP64', 8, Float64Array, 'fp64_contents')],
  ['BYTES', row('BYTES', 0, undefined, 'bytes_contents')],
]);

/** Looks up a datatype by its wire name; undefined when the name is not a V2 datatype. */
export function datatypeInfo(name: string): DatatypeInfo | undefined {
  return TABLE.get(name);
}

const BY_TRITON_TYPE: ReadonlyMap<string, DatatypeInfo> = new Map([...TABLE.values()].map((info) => [info.tritonType, info]));

/** Looks up a datatype by its Triton configuration name (TYPE_FP32, TYPE_STRING, ...); undefined for others. */
export function datatypeOfTritonType(name: string): DatatypeInfo | undefined {
  return BY_TRITON_TYPE.get(name);
}

export function isDatatype(name: unknown): name is Datatype {
  return typeof name === 'string' && TABLE.has(name);
}

/** Number of elements of a shape; 1 for a scalar (empty shape). */
export function elementCount(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

/** Allocates zeroed storage for `count` elements of a fixed-size datatype. */
export function allocate(info: DatatypeInfo, count: number): NumericArray {
  if (info.arrayType === undefined) throw new TypeError(`${info.name} has no fixed-size storage`);
  return new info.arrayType(count);
}
