/**
 * KServe's model configuration file (`models.json` in the `modelconfig-<isvc>-<shard>`
 * ConfigMap, pkg/modelconfig): `[{"modelName": "...", "modelSpec": {"storageUri": "...",
 * "framework": "...", "memory": "256Mi"}}]`, as the TrainedModel controller writes it and
 * KServe's agent reads it. Unknown fields are ignored, as Go's encoding/json does; a file
 * that is not this shape, names a model twice or names one the repository could not serve is
 * refused whole with one message, so the puller keeps the set it has.
 */
import { MODEL_NAME } from '../repository/model-source.js';
import { quantityBytes } from '../../cli/quantity.js';

export interface PulledModelSpec {
  readonly storageUri: string;
  readonly framework: string;
  /** As written (`256Mi`); undefined when the entry has none. */
  readonly memory: string | undefined;
  /** `memory` in bytes; 0 when none is declared (not counted against the limit). */
  readonly memoryBytes: number;
}

export type ModelsFile = { readonly ok: true; readonly models: ReadonlyMap<string, PulledModelSpec> } | { readonly ok: false; readonly error: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An empty file is an empty set: the controller writes `[]` and a fresh ConfigMap may hold nothing yet. */
export function parseModelsJson(text: string): ModelsFile {
  if (text.trim() === '') return { ok: true, models: new Map() };
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `not JSON: ${(err as Error).message}` };
  }
  // KServe's ModelConfigs is a list; `null` unmarshals to an empty one.
  if (doc === null) return { ok: true, models: new Map() };
  if (!Array.isArray(doc)) return { ok: false, error: 'expected a JSON array of {"modelName", "modelSpec"} entries' };
  const models = new Map<string, PulledModelSpec>();
  for (const [i, entry] of doc.entries()) {
    const at = `entry ${i}`;
    if (!isObject(entry)) return { ok: false, error: `${at}: expected an object with "modelName" and "modelSpec"` };
    const name = entry['modelName'];
    if (typeof name !== 'string' || !MODEL_NAME.test(name)) {
      return { ok: false, error: `${at}: "modelName" must be a name of letters, digits, '_', '.', '-' starting with a letter or digit, got ${JSON.stringify(name)}` };
    }
    if (models.has(name)) return { ok: false, error: `${at}: model '${name}' is named twice` };
    const spec = entry['modelSpec'];
    if (!isObject(spec)) return { ok: false, error: `${at} (${name}): "modelSpec" must be an object` };
    const { storageUri, framework = '', memory } = spec;
    if (typeof storageUri !== 'string' || storageUri.trim() === '') return { ok: false, error: `${at} (${name}): "modelSpec.storageUri" must be a non-empty string` };
    if (typeof framework !== 'string') return { ok: false, error: `${at} (${name}): "modelSpec.framework" must be a string` };
    let memoryBytes = 0;
    if (memory !== undefined && memory !== null) {
      const bytes = typeof memory === 'string' ? quantityBytes(memory) : undefined;
      if (bytes === undefined) return { ok: false, error: `${at} (${name}): "modelSpec.memory" must be a Kubernetes quantity such as "256Mi", got ${JSON.stringify(memory)}` };
      memoryBytes = bytes;
    }
    models.set(name, { storageUri, framework, memory: typeof memory === 'string' ? memory : undefined, memoryBytes });
  }
  return { ok: true, models };
}

/** Two specs that would put the same files in place (KServe compares the whole ModelSpec). */
export function sameSpec(a: PulledModelSpec, b: PulledModelSpec): boolean {
  return a.storageUri === b.storageUri && a.framework === b.framework && a.memoryBytes === b.memoryBytes;
}
