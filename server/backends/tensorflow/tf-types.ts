/**
 * TensorFlow dtype names <-> V2 datatypes, and the TF.js storage each datatype travels in.
 * TF.js tensors (both the WASM and the tfjs-node backend) hold float32, int32, bool and
 * string only, so the other types are widened or narrowed at the boundary, with checks.
 */
import type { Datatype, NumericArray, TensorData } from '../../../protocols/datatypes.js';

const TF_TO_V2 = new Map<string, Datatype>([
  ['DT_BOOL', 'BOOL'],
  ['DT_UINT8', 'UINT8'],
  ['DT_UINT16', 'UINT16'],
  ['DT_UINT32', 'UINT32'],
  ['DT_UINT64', 'UINT64'],
  ['DT_INT8', 'INT8'],
  ['DT_INT16', 'INT16'],
  ['DT_INT32', 'INT32'],
  ['DT_INT64', 'INT64'],
  ['DT_HALF', 'FP16'],
  ['DT_BFLOAT16', 'BF16'],
  ['DT_FLOAT', 'FP32'],
  ['DT_DOUBLE', 'FP64'],
  ['DT_STRING', 'BYTES'],
]);
const V2_TO_TF = new Map<Datatype, string>([...TF_TO_V2].map(([t, v]) => [v, t]));

/** tfjs-node reports signature dtypes as TF.js names; accept those too. */
const JS_TO_TF = new Map<string, string>([
  ['float32', 'DT_FLOAT'],
  ['int32', 'DT_INT32'],
  ['bool', 'DT_BOOL'],
  ['string', 'DT_STRING'],
  ['int64', 'DT_INT64'],
  ['float64', 'DT_DOUBLE'],
]);

export function v2FromTf(dtype: string): Datatype | undefined {
  return TF_TO_V2.get(JS_TO_TF.get(dtype) ?? dtype);
}

export function tfFromV2(datatype: Datatype): string {
  return V2_TO_TF.get(datatype) ?? 'DT_INVALID';
}

export type TfjsDtype = 'float32' | 'int32' | 'bool' | 'string';

/** The TF.js dtype a V2 datatype is computed in; undefined when TF.js cannot hold it. */
export function tfjsDtypeOf(datatype: Datatype): TfjsDtype | undefined {
  switch (datatype) {
    case 'FP32':
    case 'FP64':
      return 'float32';
    case 'INT8':
    case 'INT16':
    case 'INT32':
    case 'INT64':
    case 'UINT8':
    case 'UINT16':
    case 'UINT32':
    case 'UINT64':
      return 'int32';
    case 'BOOL':
      return 'bool';
    case 'BYTES':
      return 'string';
    default:
      return undefined;
  }
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** Storage for a TF.js tensor of `dtype` from V2 storage; throws for values int32 cannot hold. */
export function toTfjsValues(name: string, datatype: Datatype, data: TensorData): Float32Array | Int32Array | Uint8Array | Uint8Array[] {
  if (Array.isArray(data)) return data;
  const dtype = tfjsDtypeOf(datatype);
  if (dtype === 'float32') return data instanceof Float32Array ? data : Float32Array.from(data as Float64Array);
  if (dtype === 'bool') return data as Uint8Array;
  if (dtype === 'int32') {
    if (data instanceof Int32Array) return data;
    const out = new Int32Array(data.length);
    for (let i = 0; i < data.length; i++) {
      const v = Number(data[i]);
      if (v < INT32_MIN || v > INT32_MAX) {
        throw new RangeError(`input '${name}': element ${i} (${String(data[i])}) does not fit in int32, which TensorFlow.js computes ${datatype} in`);
      }
      out[i] = v;
    }
    return out;
  }
  throw new TypeError(`input '${name}': ${datatype} tensors are not supported by TensorFlow.js`);
}

/** V2 storage for `datatype` from a TF.js tensor's values. */
export function fromTfjsValues(datatype: Datatype, values: Float32Array | Int32Array | Uint8Array | Uint8Array[]): TensorData {
  if (Array.isArray(values)) return values;
  switch (datatype) {
    case 'FP32':
      return values instanceof Float32Array ? values : Float32Array.from(values);
    case 'FP64':
      return Float64Array.from(values);
    case 'INT64':
      return BigInt64Array.from(values, (v) => BigInt(v));
    case 'UINT64':
      return BigUint64Array.from(values, (v) => BigInt(v));
    case 'INT32':
      return values instanceof Int32Array ? values : Int32Array.from(values);
    case 'INT16':
      return Int16Array.from(values);
    case 'INT8':
      return Int8Array.from(values);
    case 'UINT32':
      return Uint32Array.from(values);
    case 'UINT16':
      return Uint16Array.from(values);
    case 'UINT8':
    case 'BOOL':
      return values instanceof Uint8Array ? values : Uint8Array.from(values);
    default:
      return values as NumericArray;
  }
}
