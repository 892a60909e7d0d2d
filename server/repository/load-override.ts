/**
 * What a load request's parameters (protocols/v2/repository-load.ts) ask of the load, as
 * Triton's `load_model(name, config=...)`: `config` is a model configuration in Triton's JSON
 * form that replaces config.pbtxt for this load, read by the reader config.pbtxt goes
 * through. Everything wrong with the parameters is refused here, before the load starts, so
 * a refused request leaves the model as it was.
 */
import { errors } from '../../protocols/errors.js';
import type { LoadParameters } from '../../protocols/v2/repository-load.js';
import type { ModelConfig } from '../backend/model-config.js';
import { parseModelConfigJson } from './config-json.js';

export interface LoadOverride {
  readonly config: ModelConfig;
  /** The override as sent: repository polling tells it from the folder's config.pbtxt by it. */
  readonly text: string;
}

const FILE_PREFIX = 'file:';

/** The override the parameters carry; undefined when they carry none (a plain load). */
export function loadOverride(name: string, parameters: LoadParameters | undefined): LoadOverride | undefined {
  if (parameters === undefined || parameters.size === 0) return undefined;
  const keys = [...parameters.keys()];
  const files = keys.filter((k) => k.startsWith(FILE_PREFIX));
  if (files.length > 0) {
    // Triton would load the model from these files alone. kserve-ts's model files come from
    // the repository folder (filled by the storage initializer or the puller), which polling
    // and reloads read again; files that live only in one request would be lost at the next.
    throw errors.invalidInput(
      `Load parameters ${files.map((f) => `'${f}'`).join(', ')} carry model files, which kserve-ts does not take: ` +
        `a model's files come only from its repository folder. Put the files there and load with 'config' alone.`,
    );
  }
  const unknown = keys.filter((k) => k !== 'config');
  if (unknown.length > 0) {
    throw errors.invalidInput(`Unknown load parameter(s) ${unknown.map((k) => `'${k}'`).join(', ')}; the load request takes 'config' (a model configuration as Triton's JSON).`);
  }
  const text = parameters.get('config');
  if (typeof text !== 'string' || text.trim() === '') throw errors.invalidInput(`Load parameter 'config' must be a model configuration as a JSON string.`);
  try {
    return { config: parseModelConfigJson(text), text };
  } catch (e) {
    // The readers name config.pbtxt, the file they usually read; this override is not it.
    const reason = (e as Error).message.replace(/^config\.pbtxt: /, '');
    throw errors.invalidInput(`The config override for model ${name} is invalid: ${reason}`);
  }
}
