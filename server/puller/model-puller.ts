/**
 * The in-server model puller (`--model_config_file`): what KServe's agent sidecar does for
 * multi-model serving, in the server process. It reads KServe's models.json, watches it for
 * the ConfigMap's updates (config-watch.ts), and brings `--model_dir/<name>` and the
 * repository in line with it, one model at a time (pull-queue.ts):
 * - added: memory checked (memory-budget.ts), downloaded into a hidden staging folder
 *   (fetch-model.ts), renamed into place, loaded through the repository (the same path as
 *   `POST /v2/repository/models/{m}/load`);
 * - changed (any field of modelSpec, as KServe compares them): the new files are downloaded
 *   beside the serving ones, swapped in, and the model reloaded: requests keep going to the
 *   loaded generation until the new one is ready, so none fails;
 * - removed: unloaded (in-flight requests finish), its folder deleted;
 * - failed (memory, download, load): recorded on the model (`recordFailure`: 503 with the
 *   reason, UNAVAILABLE + reason in the index) and counted in
 *   `kserve_model_pull_failures_total`; the other models are untouched. A failed spec is
 *   tried again when it changes (as a folder under repository polling), or by a load request.
 * A file that is not valid keeps the current set and logs one error.
 */
import { readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { redact } from '../../storage-initializer/redact.js';
import type { Metrics } from '../metrics.js';
import type { ModelRepository } from '../repository/model-repository.js';
import { type ConfigWatch, readConfigFile, watchConfigFile } from './config-watch.js';
import { FetchError, ModelFetcher } from './fetch-model.js';
import { MemoryBudget } from './memory-budget.js';
import { type PulledModelSpec, parseModelsJson, sameSpec } from './models-json.js';
import { type PullFailure, pullFailure } from './pull-failures.js';
import { PullQueue } from './pull-queue.js';
import type { PullerConfig } from './puller-flags.js';

/** Hidden folders (model names cannot start with '.'): one model's download, and the files it replaces. */
const STAGING_PREFIX = '.pulling-';
const REPLACED_PREFIX = '.replaced-';

export interface PullerDeps {
  readonly repository: ModelRepository;
  readonly metrics: Metrics;
  readonly logger: Logger;
  /** The names whose folder is in place: the repository's source reads it (pulled-source.ts). */
  readonly placed: Set<string>;
}

export class ModelPuller {
  /** What the file asks for. */
  #wanted: ReadonlyMap<string, PulledModelSpec> = new Map();
  /** What is loaded from `--model_dir/<name>`, by the spec it came from. */
  readonly #inPlace = new Map<string, PulledModelSpec>();
  /** The spec last tried and failed, so an unchanged failing entry is not pulled at every event. */
  readonly #failed = new Map<string, PulledModelSpec>();
  readonly #queue = new PullQueue((name) => this.#sync(name));
  readonly #budget: MemoryBudget;
  readonly #fetcher: ModelFetcher;
  readonly #log: Logger;
  #watch: ConfigWatch | undefined;
  #closed = false;

  constructor(
    private readonly config: PullerConfig,
    private readonly deps: PullerDeps,
  ) {
    this.#log = deps.logger.child({ component: 'puller' });
    this.#budget = new MemoryBudget(config.memoryLimitBytes);
    this.#fetcher = new ModelFetcher(config.fetch, (line) => this.#log.info(line));
    deps.metrics.trackModelPulls();
  }

  /**
   * Reads the file once and pulls what it lists (resolves when each model is loaded or has
   * failed: the server's readiness waits for this), then watches it. A file that is missing
   * at start is an empty set until it appears.
   */
  async start(): Promise<void> {
    await this.#clearLeftovers();
    const text = await readConfigFile(this.config.configFile);
    if (text === undefined) this.#log.warn({ file: this.config.configFile }, 'model config file not readable yet; serving no model until it is');
    else this.apply(text);
    await this.#queue.idle();
    if (this.#closed) return;
    this.#watch = watchConfigFile(
      this.config.configFile,
      text,
      (changed) => void this.apply(changed),
      (err) => this.#log.error({ err: err.message, file: this.config.configFile }, 'cannot watch the model config folder; re-reading it on a timer'),
    );
  }

  /** Takes a new file text: false (and the current set kept) when it is not valid. */
  apply(text: string): boolean {
    const parsed = parseModelsJson(text);
    if (!parsed.ok) {
      this.#log.error({ file: this.config.configFile, error: parsed.error }, `model config file refused, keeping the ${this.#inPlace.size} current models: ${parsed.error}`);
      this.deps.metrics.countModelConfigError();
      return false;
    }
    this.#wanted = parsed.models;
    for (const name of new Set([...parsed.models.keys(), ...this.#inPlace.keys(), ...this.#failed.keys(), ...this.deps.placed])) this.#queue.push(name);
    return true;
  }

  /** Resolves once every change seen so far has been worked. */
  idle(): Promise<void> {
    return this.#queue.idle();
  }

  /** Stops watching and pulling; the model being pulled finishes first. Loaded models stay (the server unloads them). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#watch?.close();
    await this.#queue.close();
    this.#fetcher.close();
  }

  async #sync(name: string): Promise<void> {
    const want = this.#wanted.get(name);
    if (want === undefined) return this.#remove(name);
    const have = this.#inPlace.get(name);
    if (have !== undefined && sameSpec(have, want)) {
      // A failed change withdrawn: what serves is what is wanted again.
      if (this.#failed.delete(name)) this.deps.repository.clearFailure(name);
      return;
    }
    const tried = this.#failed.get(name);
    if (tried !== undefined && sameSpec(tried, want)) return;
    this.#failed.delete(name);
    await this.#place(name, want, have);
  }

  async #place(name: string, want: PulledModelSpec, have: PulledModelSpec | undefined): Promise<void> {
    const uri = redact(want.storageUri);
    const refused = this.#budget.reserve(name, want.memoryBytes);
    if (refused !== undefined) return this.#fail(name, want, have, pullFailure('memory', uri, refused));
    const root = this.config.modelRoot;
    const staging = path.join(root, `${STAGING_PREFIX}${name}`);
    const replaced = path.join(root, `${REPLACED_PREFIX}${name}`);
    const target = path.join(root, name);
    this.#log.info({ model: name, storageUri: uri, change: have === undefined ? 'add' : 'update' }, 'pulling model');
    await rm(staging, { recursive: true, force: true });
    try {
      await this.#fetcher.fetch(want.storageUri, staging);
    } catch (err) {
      await rm(staging, { recursive: true, force: true });
      return this.#fail(name, want, have, pullFailure('download', uri, err instanceof FetchError ? err.message : String(err)));
    }
    try {
      // The serving generation holds its sessions, not its files: they can move aside now.
      await rm(replaced, { recursive: true, force: true });
      await rename(target, replaced).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
      await rename(staging, target);
    } catch (err) {
      await rm(staging, { recursive: true, force: true });
      if (have !== undefined) await this.#restore(target, replaced);
      return this.#fail(name, want, have, pullFailure('download', uri, `could not move the files into ${target}: ${(err as Error).message}`));
    }
    this.deps.placed.add(name);
    try {
      await this.deps.repository.load(name);
    } catch (err) {
      // A failed reload keeps the loaded version serving: its files go back in place, so a
      // later reload (an instance that failed, a load request) reads what serves.
      if (have !== undefined) await this.#restore(target, replaced);
      // The repository's ModelNotReady wraps the backend's cause; the reason names the stage itself.
      const cause = (err as Error).message.replace(/^Model with name \S+ is not ready\. /, '').replace(/^Failed to load: /, '');
      return this.#fail(name, want, have, pullFailure('load', uri, cause));
    } finally {
      await rm(replaced, { recursive: true, force: true });
    }
    this.#inPlace.set(name, want);
    this.#log.info({ model: name, storageUri: uri }, 'model pulled and loaded');
  }

  async #restore(target: string, replaced: string): Promise<void> {
    try {
      await rm(target, { recursive: true, force: true });
      await rename(replaced, target);
    } catch (err) {
      this.#log.error({ folder: target, err: (err as Error).message }, 'could not put the serving files back in place');
    }
  }

  async #fail(name: string, want: PulledModelSpec, have: PulledModelSpec | undefined, failure: PullFailure): Promise<void> {
    // What still serves keeps its memory; a model that never loaded holds none.
    if (have !== undefined) this.#budget.reserve(name, have.memoryBytes);
    else this.#budget.release(name);
    this.#failed.set(name, want);
    this.deps.repository.recordFailure(name, failure.reason);
    this.deps.metrics.countPullFailure(name, failure.stage);
    this.#log.error({ model: name, stage: failure.stage, reason: failure.reason }, 'model pull failed');
    return Promise.resolve();
  }

  async #remove(name: string): Promise<void> {
    this.#failed.delete(name);
    if (this.deps.repository.state(name) !== undefined) await this.deps.repository.unload(name).catch(() => undefined);
    this.deps.placed.delete(name);
    this.#inPlace.delete(name);
    this.#budget.release(name);
    await rm(path.join(this.config.modelRoot, name), { recursive: true, force: true });
    this.#log.info({ model: name }, 'model removed: unloaded and its files deleted');
  }

  /** Staging and replaced folders a killed process left behind. */
  async #clearLeftovers(): Promise<void> {
    const entries = await readdir(this.config.modelRoot).catch(() => [] as string[]);
    const stale = entries.filter((e) => e.startsWith(STAGING_PREFIX) || e.startsWith(REPLACED_PREFIX));
    await Promise.all(stale.map((e) => rm(path.join(this.config.modelRoot, e), { recursive: true, force: true })));
  }
}
