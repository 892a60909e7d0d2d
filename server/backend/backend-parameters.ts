/**
 * config.pbtxt `parameters` read by the backend that owns them, as a table of readers (one
 * per key): a key outside the table refuses the load naming the keys the backend reads, so
 * a knob meant for another backend is never silently ignored. Refusals are InvalidInput: the
 * configuration does not fit the model, which a load request's config override answers 400 for.
 */
import { errors } from '../../protocols/errors.js';

/** Applies one parameter's value to a model's options; throws a one-line message when malformed. */
export type ParameterReader<O> = (value: string, options: O) => O;

export function applyParameters<O>(backend: string, base: O, parameters: ReadonlyMap<string, string>, readers: Readonly<Record<string, ParameterReader<O>>>): O {
  let options = base;
  for (const [key, value] of parameters) {
    const read = Object.hasOwn(readers, key) ? readers[key] : undefined;
    if (read === undefined) {
      const known = Object.keys(readers);
      throw errors.invalidInput(
        `config.pbtxt: parameter '${key}' is not supported by the ${backend} backend (${known.length > 0 ? `it reads ${known.join(', ')}` : 'it reads none'})`,
      );
    }
    options = read(value, options);
  }
  return options;
}

/** A parameter holding a non-negative integer. */
export function integerParameter(key: string, value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < 0) throw errors.invalidInput(`config.pbtxt: parameter ${key} must be a non-negative integer`);
  return n;
}

/** A parameter holding a comma-separated list. */
export function listParameter(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
