/**
 * The parameters of a repository load request (`POST /v2/repository/models/{m}/load` and
 * gRPC `RepositoryModelLoad`), as Triton's clients send them: `config` (a model
 * configuration as Triton's JSON) and `file:<path>` (a model file). What they mean is the
 * server's business (server/repository/load-override.ts); this is the REST body's form.
 */
import { errors } from '../errors.js';

/** One parameter's value: REST carries JSON scalars (a file as base64 text), gRPC also bytes. */
export type LoadParameterValue = string | number | boolean | Uint8Array;
export type LoadParameters = ReadonlyMap<string, LoadParameterValue>;

const NONE: LoadParameters = new Map();

/**
 * Reads the REST body `{"parameters": {"config": "...", ...}}`. An empty body, or one without
 * `parameters`, loads as configured: tritonclient sends `{}` when it has no override.
 */
export function decodeRestLoadRequest(body: Uint8Array): LoadParameters {
  const text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  if (text.trim() === '') return NONE;
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw errors.invalidInput(`The load request body is not JSON: ${(e as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw errors.invalidInput('The load request body must be a JSON object');
  const parameters = (doc as { parameters?: unknown }).parameters;
  if (parameters === undefined || parameters === null) return NONE;
  if (typeof parameters !== 'object' || Array.isArray(parameters)) throw errors.invalidInput(`The load request's 'parameters' must be a JSON object`);
  const out = new Map<string, LoadParameterValue>();
  for (const [key, v] of Object.entries(parameters as Record<string, unknown>)) {
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') {
      throw errors.invalidInput(`Load parameter '${key}' must be a string, number or boolean (a config override is a JSON string)`);
    }
    out.set(key, v);
  }
  return out;
}
