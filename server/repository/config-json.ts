/**
 * Triton's JSON form of a model configuration (what `GET /v2/models/{m}/config` answers, and
 * what a load request's `config` override carries) turned into the message form config.pbtxt
 * parses to, so that one reader (config-pbtxt.ts, modelConfigOf) checks both. Only the
 * shape differs between the two forms, as in protobuf's JSON mapping:
 * - a map field is a JSON object (`"parameters": {"k": {"string_value": "v"}}`), where the
 *   text form repeats `{ key: ... value: ... }` entries;
 * - a 64-bit integer may be a string (`"dims": ["16"]`), as protobuf writes them;
 * - a field may be named in lowerCamelCase (`maxBatchSize`), as protobuf's parser accepts;
 * - `null` leaves a field unset.
 */
import type { ModelConfig } from '../backend/model-config.js';
import { modelConfigOf } from './config-pbtxt.js';
import type { PbMessage, PbValue } from './pbtxt.js';

/** Map fields of Triton's ModelConfig messages, and kserve-ts's `version_labels`. */
const MAP_FIELDS = new Set(['parameters', 'version_labels', 'inputs', 'cc_model_filenames', 'metric_tags', 'input_map', 'output_map']);

/** 64-bit integer fields the readers take (for a map, its values). */
const INT64_FIELDS = new Set(['dims', 'max_queue_delay_microseconds', 'versions', 'version_labels']);

const INTEGER_TEXT = /^-?\d+$/;

function fieldName(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function scalar(v: unknown, field: string): PbValue {
  if (typeof v === 'string') return INT64_FIELDS.has(field) && INTEGER_TEXT.test(v) ? Number(v) : v;
  if (typeof v === 'number' || typeof v === 'boolean') return v;
  throw new Error(`config: '${field}' holds ${JSON.stringify(v)}, which is not a value of a model configuration`);
}

/** One value of `field`: a message, or a scalar (for a map field, the value of one entry). */
function value(v: unknown, field: string): PbValue {
  return isObject(v) ? message(v) : scalar(v, field);
}

/** Every value a JSON field stands for: a list's elements, a map's entries, or the one value. */
function values(v: unknown, field: string): PbValue[] {
  if (Array.isArray(v)) {
    return v.map((item: unknown) => {
      if (Array.isArray(item)) throw new Error(`config: '${field}' holds a list of lists`);
      return value(item, field);
    });
  }
  if (isObject(v) && MAP_FIELDS.has(field)) {
    return Object.entries(v).map(([key, entry]) => {
      const e: PbMessage = new Map([['key', [key]]]);
      if (entry !== null) e.set('value', [value(entry, field)]);
      return e;
    });
  }
  return [value(v, field)];
}

function message(doc: Record<string, unknown>): PbMessage {
  const msg: PbMessage = new Map();
  for (const [key, v] of Object.entries(doc)) {
    if (v === null) continue;
    const field = fieldName(key);
    msg.set(field, [...(msg.get(field) ?? []), ...values(v, field)]);
  }
  return msg;
}

/** Reads a model configuration in Triton's JSON form; throws with the reason, as parseModelConfig does. */
export function parseModelConfigJson(text: string): ModelConfig {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new Error(`config is not JSON: ${(e as Error).message}`, { cause: e });
  }
  if (!isObject(doc)) throw new Error('config must be a JSON object (a model configuration as Triton writes it)');
  return modelConfigOf(message(doc));
}
