/** Checks for the fields of OpenAI-style JSON bodies; each failure names the field (`param`). */
import { errors } from '../errors.js';

export type JsonObject = Record<string, unknown>;

export function parseJsonObject(body: Buffer): JsonObject {
  let doc: unknown;
  try {
    doc = JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw errors.invalidInput(`The request body is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw errors.invalidInput('The request body must be a JSON object');
  return doc as JsonObject;
}

export function requiredString(doc: JsonObject, field: string): string {
  const v = doc[field];
  if (typeof v !== 'string' || v === '') throw errors.invalidParam(field, `'${field}' is required and must be a non-empty string`);
  return v;
}

export function optionalInteger(doc: JsonObject, field: string, min: number): number | undefined {
  const v = doc[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) throw errors.invalidParam(field, `'${field}' must be an integer of at least ${min}`);
  return v;
}

export function optionalBoolean(doc: JsonObject, field: string, dflt: boolean): boolean {
  const v = doc[field];
  if (v === undefined || v === null) return dflt;
  if (typeof v !== 'boolean') throw errors.invalidParam(field, `'${field}' must be a boolean`);
  return v;
}

export function optionalChoice<C extends string>(doc: JsonObject, field: string, choices: readonly C[], dflt: C): C {
  const v = doc[field];
  if (v === undefined || v === null) return dflt;
  if (typeof v !== 'string' || !(choices as readonly string[]).includes(v)) throw errors.invalidParam(field, `'${field}' must be one of ${choices.join(', ')}`);
  return v as C;
}
