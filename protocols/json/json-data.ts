/**
 * Tensor elements in JSON: decoding a nested or flat `data` array straight into typed
 * storage (no intermediate flattened JS array), and encoding storage back to JSON text
 * without building per-element JS values for numeric types.
 */
import type { Datatype, DatatypeInfo, TensorData } from '../datatypes.js';
import { errors } from '../errors.js';
import { JsonNumberArray } from './json-number-array.js';
import { DEFAULT_DECODE_LIMITS, MAX_RANK, checkedElementCount } from '../limits.js';

const INT_RANGES: Partial<Record<Datatype, readonly [number, number]>> = {
  UINT8: [0, 0xff],
  UINT16: [0, 0xffff],
  UINT32: [0, 0xffffffff],
  INT8: [-0x80, 0x7f],
  INT16: [-0x8000, 0x7fff],
  INT32: [-0x80000000, 0x7fffffff],
};

const utf8 = new TextEncoder();
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

type Store = (out: TensorData, i: number, v: unknown) => boolean;

function storeFor(info: DatatypeInfo): Store {
  switch (info.name) {
    case 'FP32':
    case 'FP64':
      return (out, i, v) => {
        if (typeof v !== 'number') return false;
        (out as Float64Array)[i] = v;
        return true;
      };
    case 'BOOL':
      return (out, i, v) => {
        if (typeof v === 'boolean') (out as Uint8Array)[i] = v ? 1 : 0;
        else if (v === 0 || v === 1) (out as Uint8Array)[i] = v;
        else return false;
        return true;
      };
    case 'INT64':
    case 'UINT64': {
      const min = info.name === 'UINT64' ? 0n : -(2n ** 63n);
      const max = info.name === 'UINT64' ? 2n ** 64n - 1n : 2n ** 63n - 1n;
      return (out, i, v) => {
        // JSON.parse has already rounded integers beyond 2^53: refuse them rather than
        // pass on a value the client did not send.
        if (typeof v !== 'number' || !Number.isSafeInteger(v)) return false;
        const b = BigInt(v);
        if (b < min || b > max) return false;
        (out as BigInt64Array)[i] = b;
        return true;
      };
    }
    case 'BYTES':
      return (out, i, v) => {
        if (typeof v !== 'string') return false;
        (out as Uint8Array[])[i] = utf8.encode(v);
        return true;
      };
    default: {
      const range = INT_RANGES[info.name];
      if (range === undefined) throw new TypeError(`no JSON form for ${info.name}`);
      const [lo, hi] = range;
      return (out, i, v) => {
        if (typeof v !== 'number' || !Number.isInteger(v) || v < lo || v > hi) return false;
        (out as Int32Array)[i] = v;
        return true;
      };
    }
  }
}

const STORES = new Map<Datatype, Store>();
function cachedStore(info: DatatypeInfo): Store {
  let s = STORES.get(info.name);
  if (s === undefined) {
    s = storeFor(info);
    STORES.set(info.name, s);
  }
  return s;
}

function invalidElement(name: string, info: DatatypeInfo, idx: number, v: unknown): Error {
  const hint =
    info.bigint && typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v)
      ? `; JSON numbers beyond 2^53 lose precision, send ${info.name} data this large with the binary data extension`
      : '';
  return errors.invalidInput(`input '${name}': element ${idx} is ${describe(v)}, which is not a valid ${info.name} value${hint}`);
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'string') return `string ${JSON.stringify(v.length > 32 ? `${v.slice(0, 32)}...` : v)}`;
  // String() of an object may throw (no prototype) or run a client's toString: name the type only.
  if (typeof v === 'object') return 'object';
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return `${typeof v} ${v.toString()}`;
  return typeof v;
}

/** Too deep for any tensor (limits.ts MAX_RANK): refused before it could exhaust the stack. */
function tooDeep(name: string): Error {
  return errors.invalidInput(`input '${name}': 'data' is nested more than ${MAX_RANK} levels deep`);
}

/** Leaves of nested JSON `data`, counted without allocating (time bounded by the parsed body). */
function countLeaves(name: string, data: unknown): number {
  let n = 0;
  const walk = (v: unknown, depth: number): void => {
    if (depth > MAX_RANK) throw tooDeep(name);
    for (let i = 0; i < (v as unknown[]).length; i++) {
      const el: unknown = (v as unknown[])[i];
      if (Array.isArray(el)) walk(el, depth + 1);
      else n++;
    }
  };
  if (Array.isArray(data)) walk(data, 1);
  else n = 1;
  return n;
}

/**
 * Decodes JSON `data` (nested lists or flat, row-major) for a tensor of `shape`.
 * Errors name the input and say what was wrong: wrong element type, out-of-range value or
 * an element count that does not match the shape. Storage is sized by the shape only
 * once the data is known to hold that many elements (a flat list of that length, or
 * counted leaves), so a small body declaring a huge shape allocates nothing; nesting is
 * bounded by MAX_RANK, so no body can exhaust the stack. `data` may be a JsonNumberArray
 * (a numeric array left as bytes by json-split.ts), with the same results and errors.
 */
export function decodeJsonData(
  name: string,
  info: DatatypeInfo,
  shape: readonly number[],
  data: unknown,
  maxElements: number = DEFAULT_DECODE_LIMITS.maxTensorElements,
): TensorData {
  if (!info.json) {
    throw errors.invalidInput(`input '${name}': sending ${info.name} data via JSON is not supported. Please use the binary data format for input tensors.`);
  }
  const count = checkedElementCount(shape, `input '${name}'`, maxElements);
  if (data instanceof JsonNumberArray) {
    // Floats are converted from the body's bytes; every other case (another datatype, a
    // count or depth the checks below refuse) sees the array JSON.parse would have given.
    // Storage is sized before the leaves are counted, but the region's bytes bound it.
    if ((info.name === 'FP32' || info.name === 'FP64') && count <= data.maxLeaves) {
      const out = info.name === 'FP32' ? new Float32Array(count) : new Float64Array(count);
      if (data.decodeFloats(out, info.name === 'FP32', MAX_RANK)) return out;
    }
    data = data.materialize();
  }
  // A flat list as long as the shape says is the common case and needs no counting pass:
  // its length is data actually received. Anything else is counted first.
  const flat = Array.isArray(data) && data.length === count;
  if (!flat) {
    const leaves = countLeaves(name, data);
    if (leaves !== count) throw countMismatch(name, shape, count, leaves);
  }
  const out: TensorData = info.arrayType ? new info.arrayType(count) : new Array<Uint8Array>(count);
  const store = cachedStore(info);
  let idx = 0;
  const walk = (v: unknown, depth: number): void => {
    if (Array.isArray(v)) {
      if (depth > MAX_RANK) throw tooDeep(name);
      for (let i = 0; i < v.length; i++) {
        const el: unknown = v[i];
        if (Array.isArray(el)) walk(el, depth + 1);
        else {
          if (idx < count && !store(out, idx, el)) throw invalidElement(name, info, idx, el);
          idx++;
        }
      }
      return;
    }
    if (idx < count && !store(out, idx, v)) throw invalidElement(name, info, idx, v);
    idx++;
  };
  walk(data, 1);
  if (idx !== count) throw countMismatch(name, shape, count, idx);
  return out;
}

function countMismatch(name: string, shape: readonly number[], count: number, got: number): Error {
  return errors.invalidInput(`input '${name}': shape [${shape.join(',')}] has ${count} elements but data has ${got}`);
}

function utf8Text(el: Uint8Array, tensorName: string): string {
  try {
    return strictUtf8.decode(el);
  } catch {
    throw errors.invalidInput(`output '${tensorName}' holds bytes that are not valid UTF-8; request it with binary_data: true`);
  }
}

/** JSON text of elements [start, end) separated by commas (no brackets). */
function jsonRun(name: string, datatype: Datatype, data: TensorData, start: number, end: number): string {
  if (Array.isArray(data)) {
    let s = '';
    for (let i = start; i < end; i++) {
      if (i > start) s += ',';
      s += JSON.stringify(utf8Text(data[i] as Uint8Array, name));
    }
    return s;
  }
  if (datatype === 'BOOL') {
    let s = '';
    for (let i = start; i < end; i++) s += (i > start ? ',' : '') + (data[i] ? 'true' : 'false');
    return s;
  }
  if (datatype === 'FP16' || datatype === 'BF16') {
    throw errors.invalidInput(`output '${name}' is ${datatype}, which has no JSON form; request it with binary_data: true`);
  }
  const run = (start === 0 && end === data.length ? data : data.subarray(start, end)) as Float64Array;
  const s = run.join(',');
  return datatype === 'FP32' || datatype === 'FP64' ? floatText(s) : s;
}

/**
 * Float elements as orjson writes them: integral values keep a `.0` (clients such as numpy
 * otherwise read them back as integers), and NaN and Infinity, which JSON lacks, become null.
 */
function floatText(joined: string): string {
  let s = joined.replace(/(^|,)(-?\d+)(?=,|$)/g, '$1$2.0');
  if (s.includes('N') || s.includes('I')) s = s.replace(/-?Infinity|NaN/g, 'null');
  return s;
}

/** Flat JSON array of all elements. */
export function encodeJsonData(name: string, datatype: Datatype, data: TensorData): string {
  return `[${jsonRun(name, datatype, data, 0, data.length)}]`;
}

/** JSON nested lists following `shape` (a scalar shape gives a bare value). */
export function encodeJsonNested(name: string, datatype: Datatype, shape: readonly number[], data: TensorData): string {
  if (shape.length === 0) return jsonRun(name, datatype, data, 0, 1);
  const strides: number[] = new Array<number>(shape.length);
  let acc = 1;
  for (let d = shape.length - 1; d >= 0; d--) {
    strides[d] = acc;
    acc *= shape[d] as number;
  }
  const build = (dim: number, offset: number): string => {
    const n = shape[dim] as number;
    if (dim === shape.length - 1) return `[${jsonRun(name, datatype, data, offset, offset + n)}]`;
    const stride = strides[dim] as number;
    const parts: string[] = new Array<string>(n);
    for (let i = 0; i < n; i++) parts[i] = build(dim + 1, offset + i * stride);
    return `[${parts.join(',')}]`;
  };
  return build(0, 0);
}
