/**
 * Typed reads of one parsed config.pbtxt message's fields (pbtxt.ts), each failing with a
 * message that names the field: shared by the readers of its sections.
 */
import type { PbMessage, PbValue } from './pbtxt.js';

/** The last value of a field (protobuf text format: a repeated scalar field's last wins). */
export function one(msg: PbMessage, key: string): PbValue | undefined {
  const v = msg.get(key);
  return v === undefined ? undefined : v[v.length - 1];
}

export function str(msg: PbMessage, key: string): string | undefined {
  const v = one(msg, key);
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new Error(`config.pbtxt: '${key}' must be a string`);
  return v;
}

export function int(msg: PbMessage, key: string, dflt: number): number {
  const v = one(msg, key);
  if (v === undefined) return dflt;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new Error(`config.pbtxt: '${key}' must be an integer`);
  return v;
}

export function sub(v: PbValue, what: string): PbMessage {
  if (!(v instanceof Map)) throw new Error(`config.pbtxt: '${what}' must be a message`);
  return v;
}

/** A repeated integer field, each at least `min`. */
export function ints(msg: PbMessage, key: string, min: number): number[] {
  return (msg.get(key) ?? []).map((v) => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min) throw new Error(`config.pbtxt: '${key}' must hold integers >= ${min}`);
    return v;
  });
}
