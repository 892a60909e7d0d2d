/**
 * gRPC `map<string, InferParameter>` <-> neutral Parameters.
 *
 * Integers travel as int64 (uint64 above the int64 range) and come back as numbers when
 * they are safe JavaScript integers, as bigints otherwise; non-integral numbers use
 * double_param, which KServe's original message lacks (a wire-compatible superset).
 */
import { errors } from '../errors.js';
import type { ParameterValue, Parameters } from '../tensor.js';
import type { InferParameterMessage, Int64, ParameterMap } from './messages.js';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const SAFE_MAX = BigInt(Number.MAX_SAFE_INTEGER);

function integer(v: Int64 | undefined): number | bigint {
  const b = BigInt(v ?? 0);
  return b >= -SAFE_MAX && b <= SAFE_MAX ? Number(b) : b;
}

function decodeValue(p: InferParameterMessage, key: string, where: string): ParameterValue {
  switch (p.parameter_choice) {
    case 'bool_param':
      return p.bool_param === true;
    case 'int64_param':
      return integer(p.int64_param);
    case 'uint64_param':
      return integer(p.uint64_param);
    case 'double_param':
      return p.double_param ?? 0;
    case 'string_param':
      return p.string_param ?? '';
    default:
      throw errors.invalidInput(`${where}: parameter '${key}' has no value (set one of bool_param, int64_param, string_param, double_param, uint64_param)`);
  }
}

/** Decodes a parameters map; undefined when empty. `where` names the owner in errors. */
export function decodeGrpcParameters(map: ParameterMap | undefined, where: string): Parameters | undefined {
  if (map === undefined) return undefined;
  let out: Parameters | undefined;
  for (const key of Object.keys(map)) {
    out ??= {};
    out[key] = decodeValue(map[key] as InferParameterMessage, key, where);
  }
  return out;
}

function encodeValue(v: ParameterValue): InferParameterMessage {
  switch (typeof v) {
    case 'boolean':
      return { bool_param: v };
    case 'string':
      return { string_param: v };
    case 'bigint':
      return v >= INT64_MIN && v <= INT64_MAX ? { int64_param: v.toString() } : { uint64_param: v.toString() };
    default:
      return Number.isSafeInteger(v) ? { int64_param: v } : { double_param: v };
  }
}

export function encodeGrpcParameters(params: Parameters | undefined): ParameterMap {
  const out: ParameterMap = {};
  if (params === undefined) return out;
  for (const [k, v] of Object.entries(params)) out[k] = encodeValue(v);
  return out;
}
