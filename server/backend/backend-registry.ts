/** Backends keyed by name (and aliases); model folders are matched to a backend by `detect`. */
import { readdir } from 'node:fs/promises';
import { errors } from '../../protocols/errors.js';
import type { FlagSpec } from '../../cli/flags.js';
import type { Backend } from './backend.js';

/** Names of the plain files in `dir` (none when it cannot be read). */
export async function listFiles(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { withFileTypes: true })).filter((e) => e.isFile()).map((e) => e.name);
  } catch {
    return [];
  }
}

export class BackendRegistry {
  readonly #byName = new Map<string, Backend>();
  readonly #ordered: Backend[] = [];

  register(backend: Backend): this {
    for (const key of [backend.name, ...backend.aliases]) {
      if (this.#byName.has(key)) throw new Error(`backend '${key}' is already registered`);
      this.#byName.set(key, backend);
    }
    this.#ordered.push(backend);
    return this;
  }

  /** Every backend, in registration order (the order `detect` is tried). */
  all(): readonly Backend[] {
    return this.#ordered;
  }

  /** Every backend's own server flags, for the shared CLI table. */
  flags(): FlagSpec[] {
    return this.#ordered.flatMap((b) => b.flags);
  }

  get(name: string): Backend {
    const b = this.#byName.get(name);
    if (b === undefined) {
      throw errors.invalidInput(`unknown backend '${name}'; registered: ${[...this.#byName.keys()].join(', ')}`);
    }
    return b;
  }

  /** Finds the backend for a model folder: the configured one, else the first whose `detect` matches. */
  async resolve(dir: string, configured: string | undefined): Promise<{ backend: Backend; file: string }> {
    const candidates = configured === undefined ? this.#ordered : [this.get(configured)];
    const files = await listFiles(dir);
    for (const backend of candidates) {
      const file = await backend.detect(dir, files);
      if (file !== undefined) return { backend, file };
    }
    const names = candidates.map((b) => b.name).join(', ');
    throw errors.invalidInput(`no model file for backend(s) ${names} found in ${dir}`);
  }
}
