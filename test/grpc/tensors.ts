/** Per-datatype test vectors for the identity fixtures, in typed (gRPC contents) and raw form. */
import type { GrpcContentsField } from '../../protocols/datatypes.js';

export interface DatatypeCase {
  readonly datatype: string;
  readonly model: string;
  /** Typed field and values as the proto-loader client writes and reads them. */
  readonly field: GrpcContentsField | undefined;
  readonly values: readonly unknown[];
  /** The same six elements in raw encoding. */
  readonly raw: Buffer;
}

const le = (a: ArrayBufferView): Buffer => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

/** BYTES raw encoding: each element a 4-byte little-endian length, then its bytes. */
export function bytesRaw(elements: readonly Uint8Array[]): Buffer {
  return Buffer.concat(
    elements.flatMap((e) => {
      const len = Buffer.alloc(4);
      len.writeUInt32LE(e.byteLength);
      return [len, Buffer.from(e)];
    }),
  );
}

const U64 = ['0', '1', '4294967296', '9007199254740993', '18446744073709551614', '18446744073709551615'];
const I64 = ['-9223372036854775808', '-1', '0', '9007199254740993', '1234567890123', '9223372036854775807'];
const FP32 = [-1.5, 0, 0.25, Math.fround(3.4e38), Math.fround(1e-7), Math.fround(0.1)];
const FP64 = [-1.5, 0, Math.PI, 1e308, 5e-324, 0.1];
const STRINGS = ['a', '', 'hello world', 'ünïcødé', '{"json":true}', 'x'.repeat(300)].map((s) => Buffer.from(s));

/** Every datatype the identity fixtures cover (BF16 cannot be loaded by onnxruntime-node). */
export const DATATYPE_CASES: readonly DatatypeCase[] = [
  { datatype: 'BOOL', field: 'bool_contents', values: [true, false, true, true, false, false], raw: Buffer.from([1, 0, 1, 1, 0, 0]) },
  { datatype: 'UINT8', field: 'uint_contents', values: [0, 1, 127, 128, 254, 255] },
  { datatype: 'UINT16', field: 'uint_contents', values: [0, 1, 300, 32768, 65534, 65535] },
  { datatype: 'UINT32', field: 'uint_contents', values: [0, 1, 70000, 2 ** 31, 2 ** 32 - 2, 2 ** 32 - 1] },
  { datatype: 'UINT64', field: 'uint64_contents', values: U64, raw: le(BigUint64Array.from(U64, BigInt)) },
  { datatype: 'INT8', field: 'int_contents', values: [-128, -1, 0, 1, 100, 127] },
  { datatype: 'INT16', field: 'int_contents', values: [-32768, -1, 0, 1, 1000, 32767] },
  { datatype: 'INT32', field: 'int_contents', values: [-(2 ** 31), -1, 0, 1, 123456, 2 ** 31 - 1] },
  { datatype: 'INT64', field: 'int64_contents', values: I64, raw: le(BigInt64Array.from(I64, BigInt)) },
  { datatype: 'FP32', field: 'fp32_contents', values: FP32 },
  { datatype: 'FP64', field: 'fp64_contents', values: FP64 },
  { datatype: 'BYTES', field: 'bytes_contents', values: STRINGS, raw: bytesRaw(STRINGS) },
  // 1.0, -2.0, 65504 (max), smallest subnormal, -0.0, +inf: bit patterns only.
  { datatype: 'FP16', field: undefined, values: [], raw: le(Uint16Array.from([0x3c00, 0xc000, 0x7bff, 0x0001, 0x8000, 0x7c00])) },
].map((c) => {
  const arrays: Record<string, (v: number[]) => ArrayBufferView> = {
    UINT8: (v) => Uint8Array.from(v),
    UINT16: (v) => Uint16Array.from(v),
    UINT32: (v) => Uint32Array.from(v),
    INT8: (v) => Int8Array.from(v),
    INT16: (v) => Int16Array.from(v),
    INT32: (v) => Int32Array.from(v),
    FP32: (v) => Float32Array.from(v),
    FP64: (v) => Float64Array.from(v),
  };
  const make = arrays[c.datatype];
  const raw = c.raw ?? le((make as (v: number[]) => ArrayBufferView)(c.values));
  return { ...c, field: c.field as GrpcContentsField | undefined, model: `identity_${c.datatype.toLowerCase()}`, raw };
});
