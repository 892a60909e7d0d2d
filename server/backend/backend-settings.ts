/**
 * Every registered backend's settings, read once at start-up from the parsed command line
 * (each backend parses its own flags), and the per-model options the repository hands to
 * `Backend.load`. Server flags are server-wide, so one given for another backend's models
 * (e.g. --execution_providers when a TensorFlow model loads) is logged once per flag and
 * backend as not applying; config.pbtxt parameters are per model, so the owning backend
 * refuses keys it does not read (Backend.modelOptions).
 */
import type { Logger } from 'pino';
import type { Flags } from '../../cli/flags.js';
import type { Backend, ProvidedModel } from './backend.js';
import type { BackendRegistry } from './backend-registry.js';

export class BackendSettings {
  readonly #settings = new Map<string, unknown>();
  /** Flags given on the command line, by the backend that owns them. */
  readonly #given = new Map<string, string[]>();
  readonly #noticed = new Set<string>();
  readonly #registry: BackendRegistry;

  /** Throws FlagError for a malformed backend flag. */
  constructor(registry: BackendRegistry, flags: Flags) {
    this.#registry = registry;
    for (const b of registry.all()) {
      this.#settings.set(b.name, b.settings(flags));
      this.#given.set(
        b.name,
        b.flags.filter((f) => flags.given(f.name)).map((f) => f.name),
      );
    }
  }

  /** Runs every backend's process-wide set-up (idempotent); call before any model loads. */
  prepareProcess(): void {
    for (const b of this.#registry.all()) b.prepareProcess?.(this.#settings.get(b.name));
  }

  /** Every backend's flag-provided models (e.g. --model_module), by name; a name given twice is an error. */
  providedModels(server: { readonly modelName: string; readonly modelDir: string | undefined }): Map<string, ProvidedModel> {
    const out = new Map<string, ProvidedModel>();
    for (const b of this.#registry.all()) {
      for (const [name, model] of b.providedModels?.(this.#settings.get(b.name), server) ?? []) {
        if (out.has(name)) throw new Error(`model '${name}' is provided twice`);
        out.set(name, model);
      }
    }
    return out;
  }

  /**
   * The options a model of `backend` loads with: its settings and the model's config.pbtxt
   * parameters. Throws (refusing the load) for a parameter the backend does not read.
   */
  optionsFor(backend: Backend, parameters: ReadonlyMap<string, string>, logger: Logger): unknown {
    this.#noticeForeignFlags(backend, logger);
    return backend.modelOptions(this.#settings.get(backend.name), parameters);
  }

  #noticeForeignFlags(backend: Backend, logger: Logger): void {
    for (const [owner, names] of this.#given) {
      if (owner === backend.name || owner === backend.flagsOf) continue;
      for (const name of names) {
        const key = `${name}\u0000${backend.name}`;
        if (this.#noticed.has(key)) continue;
        this.#noticed.add(key);
        logger.warn({ flag: `--${name}`, owner, backend: backend.name }, `--${name} applies to ${owner} models only; it does not apply to ${backend.name} models`);
      }
    }
  }
}
