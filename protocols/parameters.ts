/** Validation and JSON encoding of protocol `parameters` maps (flat; scalar values only). */
import { errors } from './errors.js';
import type { Parameters } from './tensor.js';
import { isObject } from './json/json-values.js';

/** Checks a decoded JSON value is a valid parameters map; `where` names it in errors. */
export function parseParameters(value: unknown, where: string): Parameters | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw errors.invalidInput(`${where}: 'parameters' must be an object`);
  for (const [k, v] of Object.entries(value)) {
    const t = typeof v;
    if (t !== 'string' && t !== 'number' && t !== 'boolean') {
      throw errors.invalidInput(`${where}: parameter '${k}' must be a string, number or boolean, not ${v === null ? 'null' : Array.isArray(v) ? 'an array' : t}`);
    }
  }
  return value as Parameters;
}

/** JSON text of a parameters map; bigint values are written as JSON integers. */
export function encodeParameters(params: Parameters): string {
  let s = '{';
  let first = true;
  for (const [k, v] of Object.entries(params)) {
    if (!first) s += ',';
    first = false;
    s += `${JSON.stringify(k)}:${typeof v === 'bigint' ? v.toString() : JSON.stringify(v)}`;
  }
  return `${s}}`;
}

export function isEmpty(params: Parameters | undefined): params is undefined {
  if (params === undefined) return true;
  for (const _ in params) return false;
  return true;
}
