/**
 * The model repository: which models exist, their load state, and safe access to loaded
 * versions while loads, reloads and unloads happen concurrently.
 *
 * Contract:
 * - `acquire` hands out a loaded version and counts it in flight until `release`; unload
 *   and reload wait (bounded) for in-flight requests on the old instances before freeing them.
 * - A model that fails to load is kept with state FAILED and its cause; it never affects
 *   other models.
 * - `poll` (repository polling) brings the loaded models in line with their folders: new
 *   model and version folders load, removed ones unload, a version whose files did not
 *   change keeps its instance. An instance is freed only when no generation holds it, so a
 *   version being removed finishes the requests it runs.
 * - Server readiness: the startup set has been listed (`loadStartupModels`) and every model
 *   in it is READY. Before the listing the set is unknown, so the server is not ready: a
 *   probe answered between bind and listing would otherwise pass with no model loaded.
 * All methods are async-safe on one event loop; none blocks it (loading runs in backends'
 * worker threads).
 */
import type { Logger } from 'pino';
import { errors, KServeError } from '../../protocols/errors.js';
import type { TensorSpec } from '../../protocols/tensor.js';
import type { ModelInstance, ProvidedModel } from '../backend/backend.js';
import type { BackendRegistry } from '../backend/backend-registry.js';
import type { BackendSettings } from '../backend/backend-settings.js';
import { BatchingInstance } from '../batching/batching-instance.js';
import type { Metrics } from '../metrics.js';
import { refuseInterruptedDownload } from './download-marker.js';
import type { ModelConfig } from '../backend/model-config.js';
import { parseModelConfig } from './config-pbtxt.js';
import { VersionStatistics } from '../statistics/version-statistics.js';
import type { LoadOverride } from './load-override.js';
import { type ModelFingerprint, modelFingerprint } from './model-fingerprint.js';
import { type ModelSource, discoverVersions } from './model-source.js';
import { selectVersions } from './version-policy.js';
import { loadVersionInstances } from './version-instances.js';

export type ModelState = 'LOADING' | 'READY' | 'FAILED' | 'UNLOADING';

export interface ServedVersion {
  readonly modelName: string;
  readonly version: string | undefined;
  readonly instance: ModelInstance;
  readonly platform: string;
  readonly inputs: readonly TensorSpec[];
  readonly outputs: readonly TensorSpec[];
  readonly config: ModelConfig | undefined;
  /** This loaded version's counters for the statistics extension; a reload starts new ones, as in Triton. */
  readonly statistics: VersionStatistics;
}

/** One loaded set of versions; swapped whole on reload so requests see a consistent set. */
class Generation {
  inflight = 0;
  #waiters: Array<() => void> = [];
  constructor(
    readonly versions: ReadonlyMap<string, ServedVersion>,
    readonly defaultVersion: ServedVersion,
    /** Version labels (config.pbtxt `version_labels`) that name a version of this generation. */
    readonly labels: ReadonlyMap<string, ServedVersion>,
    /** The folder this generation was loaded from; undefined for a provided model. */
    readonly fingerprint: ModelFingerprint | undefined,
  ) {}

  /** The version `selector` names, a number or a label; undefined: the default. Labels cannot be numbers (version-config.ts), so a label never hides a version. */
  resolve(name: string, selector: string | undefined): ServedVersion {
    if (selector === undefined) return this.defaultVersion;
    const served = this.versions.get(selector) ?? this.labels.get(selector);
    if (served === undefined) throw errors.modelVersionNotFound(name, selector);
    return served;
  }

  release(): void {
    this.inflight--;
    if (this.inflight === 0) for (const w of this.#waiters.splice(0)) w();
  }

  /** Resolves when no request holds this generation, or after `timeoutMs`. */
  drained(timeoutMs: number): Promise<boolean> {
    if (this.inflight === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const t = setTimeout(() => resolve(false), timeoutMs);
      this.#waiters.push(() => {
        clearTimeout(t);
        resolve(true);
      });
    });
  }
}

interface Entry {
  readonly name: string;
  state: ModelState;
  reason: string | undefined;
  generation: Generation | undefined;
  /** Serialises load/unload of one model. */
  op: Promise<void>;
  /** Fingerprint key of the folder the last load from the source read, whether it loaded or failed: polling retries only a changed folder. */
  attempted: string | undefined;
}

export interface Lease {
  readonly served: ServedVersion;
  release(): void;
}

export interface RepositoryOptions {
  readonly source: ModelSource;
  readonly backends: BackendRegistry;
  /** The backends' own settings; each model's options come from here and its config.pbtxt. */
  readonly backendSettings: BackendSettings;
  /** Threads one model's operators may use (LoadContext.threads). */
  readonly threads: number;
  readonly logger: Logger;
  /** How long unload and reload wait for in-flight requests before freeing a model (ms). */
  readonly drainTimeoutMs: number;
  /** Requests one model may hold in flight (queued or running); 0 or absent = no limit. */
  readonly maxQueuedRequests?: number;
  /**
   * Models no folder holds (SDK models, --model_module), by name: listed and loaded like the
   * source's, and taking precedence over a source folder of the same name.
   */
  readonly provided?: ReadonlyMap<string, ProvidedModel> | undefined;
  /** Where dynamic batching reports batch sizes and queue times; optional for embedders. */
  readonly metrics?: Metrics | undefined;
}

const UNVERSIONED = '';
const NO_PARAMETERS: ReadonlyMap<string, string> = new Map();

/** `source` names where the configuration came from: config.pbtxt, or a load request's override. */
function checkConfigAgainstModel(name: string, kind: string, declared: readonly TensorSpec[] | undefined, actual: readonly TensorSpec[], source: string): void {
  if (declared === undefined) return;
  for (const d of declared) {
    const a = actual.find((x) => x.name === d.name);
    // InvalidInput: the configuration does not fit the model (a load request's override is refused with it).
    if (a === undefined) {
      throw errors.invalidInput(`${source} declares ${kind} '${d.name}' but model ${name} has ${kind}s [${actual.map((x) => x.name).join(', ')}]`);
    }
    if (a.datatype !== d.datatype) {
      throw errors.invalidInput(`${source} declares ${kind} '${d.name}' as ${d.datatype} but model ${name} has ${a.datatype}`);
    }
  }
}

export class ModelRepository {
  readonly #entries = new Map<string, Entry>();
  readonly #startup = new Set<string>();
  /** Names not yet held that the source is being asked about (one question per name at a time). */
  readonly #locating = new Map<string, Promise<string | undefined>>();
  #listed = false;
  /** Generations holding each loaded instance: a version kept across a reload is freed when the last one lets it go. */
  readonly #holders = new Map<ModelInstance, number>();
  /** Models unloaded by request: polling leaves them unloaded until a load request. */
  readonly #unloadedByRequest = new Set<string>();
  readonly #opts: RepositoryOptions;

  constructor(opts: RepositoryOptions) {
    this.#opts = opts;
  }

  /** Loads every model the source offers and remembers them as the startup set. */
  async loadStartupModels(): Promise<void> {
    const provided = [...(this.#opts.provided?.keys() ?? [])];
    const names = [...provided, ...(await this.#opts.source.list()).filter((n) => !provided.includes(n))];
    for (const n of names) this.#startup.add(n);
    this.#listed = true;
    // Listed by the source: known at once (LOADING), without asking the source again first.
    await Promise.all(names.map((n) => this.#loadEntry(n).catch(() => undefined)));
  }

  /**
   * Re-reads the source once (repository polling, `--repository_poll_secs`): models with a
   * new folder load, models whose folder is gone unload, and a model whose folder changed
   * (version folders, their files, config.pbtxt) reloads, keeping the instances of unchanged
   * versions; requests keep going to the serving generation until the new one is ready.
   * A folder that fails to load is tried again only once it changes. Models unloaded by
   * request and provided models are left alone. Resolves when every change has been tried;
   * never rejects for a model's load (that is recorded on the model), only when the source
   * cannot be listed.
   */
  async poll(): Promise<void> {
    if (!this.#listed) return; // the startup load lists the source first
    const { source } = this.#opts;
    const provided = this.#opts.provided;
    const listed = (await source.list()).filter((n) => provided?.has(n) !== true && !this.#unloadedByRequest.has(n));
    const work: Array<Promise<void>> = [];
    for (const name of listed) {
      const e = this.#entries.get(name);
      if (e === undefined) {
        work.push(this.#loadEntry(name));
        continue;
      }
      if (e.state === 'UNLOADING') continue;
      const dir = await source.locate(name);
      if (dir === undefined) continue;
      const now = await modelFingerprint(dir).catch(() => undefined);
      // An unreadable folder (being replaced) is looked at again next time.
      if (now !== undefined && now.key !== e.attempted) work.push(this.#loadEntry(name, true));
    }
    for (const name of this.names()) {
      if (provided?.has(name) === true || listed.includes(name) || this.#unloadedByRequest.has(name)) continue;
      // Asked again: a folder that appeared after the listing (and a load request found) stays.
      if ((await source.locate(name)) === undefined) work.push(this.#unloadEntry(name));
    }
    await Promise.allSettled(work);
  }

  names(): string[] {
    return [...this.#entries.keys()];
  }

  state(name: string): { state: ModelState; reason: string | undefined } | undefined {
    const e = this.#entries.get(name);
    return e === undefined ? undefined : { state: e.state, reason: e.reason };
  }

  /** True once the startup set is listed and every model of it is READY (see the header). */
  serverReady(): boolean {
    if (!this.#listed) return false;
    for (const n of this.#startup) if (this.#entries.get(n)?.state !== 'READY') return false;
    return true;
  }

  /** Version labels of a loaded model, ascending; empty for unversioned or unloaded models. */
  versionsOf(name: string): string[] {
    const gen = this.#entries.get(name)?.generation;
    if (gen === undefined) return [];
    return [...gen.versions.values()].flatMap((v) => (v.version === undefined ? [] : [v.version]));
  }

  /** Every loaded version with its platform and execution provider, for the model-info gauge. */
  loadedVersions(): Array<{ model: string; version: string; platform: string; executionProvider: string }> {
    const out: Array<{ model: string; version: string; platform: string; executionProvider: string }> = [];
    for (const [name, e] of this.#entries) {
      for (const v of e.generation?.versions.values() ?? []) {
        out.push({ model: name, version: v.version ?? '', platform: v.platform, executionProvider: v.instance.executionProvider ?? '' });
      }
    }
    return out;
  }

  /**
   * Loaded versions for the statistics and configuration extensions, without counting them in
   * flight: every loaded version of every model (no name), every loaded version of one model
   * (no version), or one version. Throws as `acquire` for an unknown or unready model or version.
   */
  servedVersions(name?: string, version?: string): ServedVersion[] {
    if (name === undefined) return [...this.#entries.values()].flatMap((e) => [...(e.generation?.versions.values() ?? [])]);
    if (version !== undefined) return [this.peek(name, version)];
    this.peek(name);
    return [...(this.#entries.get(name)?.generation?.versions.values() ?? [])];
  }

  /** Requests each loaded model holds in flight (queued or running), for the queue-depth gauge. */
  queueDepths(): Array<[string, number]> {
    const out: Array<[string, number]> = [];
    for (const [name, e] of this.#entries) out.push([name, e.generation?.inflight ?? 0]);
    return out;
  }

  readyCount(): number {
    let n = 0;
    for (const e of this.#entries.values()) if (e.state === 'READY') n++;
    return n;
  }

  /**
   * Returns a ready version and counts it in flight; the caller must `release` it.
   * Throws ModelNotFound for unknown models or versions, ModelNotReady otherwise.
   */
  acquire(name: string, version?: string): Lease {
    const e = this.#entries.get(name);
    if (e === undefined) throw errors.modelNotFound(name);
    const gen = e.generation;
    if (e.state !== 'READY' || gen === undefined) {
      throw errors.modelNotReady(name, e.reason === undefined ? undefined : e.reason);
    }
    const served = gen.resolve(name, version);
    // Load shedding: a request past the model's bound is refused at once instead of
    // queueing without end (and holding its body in memory meanwhile).
    const max = this.#opts.maxQueuedRequests ?? 0;
    if (max > 0 && gen.inflight >= max) throw errors.modelOverloaded(name, max);
    gen.inflight++;
    let released = false;
    return {
      served,
      release: () => {
        if (released) return;
        released = true;
        gen.release();
      },
    };
  }

  /**
   * The state of one version of a model, for TF Serving's model status API: the version
   * `selector` names (a number or a label, resolved as `acquire` resolves them) is READY
   * while its generation serves, UNLOADING while the model unloads. Before a first load
   * finishes, or after it failed, there is no version to resolve: a number gets the model's
   * state (LOADING, FAILED with the reason), a label is not ready (it names no version yet).
   * Throws ModelNotFound for an unknown model, or a version or label the generation lacks.
   */
  versionStatus(name: string, selector: string): { version: string; state: ModelState; reason: string | undefined } {
    const e = this.#entries.get(name);
    if (e === undefined) throw errors.modelNotFound(name);
    const gen = e.generation;
    if (gen !== undefined) {
      const served = gen.resolve(name, selector);
      return { version: served.version ?? selector, state: e.state === 'UNLOADING' ? 'UNLOADING' : 'READY', reason: undefined };
    }
    if (!/^\d+$/.test(selector)) throw errors.modelNotReady(name, e.reason);
    return { version: selector, state: e.state, reason: e.reason };
  }

  /** Peeks at a ready model without counting it in flight (metadata, readiness). */
  peek(name: string, version?: string): ServedVersion {
    const lease = this.acquire(name, version);
    lease.release();
    return lease.served;
  }

  /**
   * Loads (or reloads) a model from the source. Resolves when it is READY; rejects with
   * ModelNotFound when the source has no such model, ModelNotReady with the cause otherwise.
   * With `override` (a load request's config, load-override.ts) the load reads it in place of
   * config.pbtxt; a failure it causes (the model's tensors are not those it declares, its
   * backend finds no model file) rejects with InvalidInput. A failed reload, whatever the
   * cause, keeps the serving generation. The override lasts until the model's next load: a
   * load request without one, or a poll that finds the folder changed, reads config.pbtxt.
   */
  load(name: string, override?: LoadOverride): Promise<void> {
    if (override !== undefined && this.#opts.provided?.has(name) === true) {
      return Promise.reject(errors.invalidInput(`Model ${name} is provided by code (SDK or --model_module) and has no configuration to override.`));
    }
    this.#unloadedByRequest.delete(name);
    return this.#load(name, override);
  }

  #load(name: string, override?: LoadOverride): Promise<void> {
    if (this.#entries.has(name) || this.#opts.provided?.has(name) === true) return this.#loadEntry(name, false, override);
    // A name the repository does not hold yet comes from a request: ask the source before it
    // gets an entry. An entry for a name the source lacks would, until the source answered,
    // make the name known (a metric series for good, 503 instead of 404 for its requests).
    let locating = this.#locating.get(name);
    if (locating === undefined) {
      locating = this.#opts.source.locate(name).finally(() => this.#locating.delete(name));
      this.#locating.set(name, locating);
    }
    return locating.then((dir) => {
      if (dir === undefined && !this.#entries.has(name)) throw errors.modelNotFound(name);
      return this.#loadEntry(name, false, override);
    });
  }

  /** `reuse`: keep the instances of versions whose files did not change (polling); a load request reloads every version. */
  #loadEntry(name: string, reuse = false, override?: LoadOverride): Promise<void> {
    let e = this.#entries.get(name);
    if (e === undefined) {
      e = { name, state: 'LOADING', reason: undefined, generation: undefined, op: Promise.resolve(), attempted: undefined };
      this.#entries.set(name, e);
    }
    const entry = e;
    // An unload queued before this load deletes the entry when it finishes: loading into
    // the detached entry would answer 200 for a model nobody can reach and leak its
    // sessions and workers for good. Start over on the entry the map holds by then.
    const run = entry.op.then(() => (this.#entries.get(name) === entry ? this.#doLoad(entry, reuse, override) : this.#load(name, override)));
    entry.op = run.catch(() => undefined);
    return run;
  }

  async #doLoad(e: Entry, reuse: boolean, override: LoadOverride | undefined): Promise<void> {
    const { source, backends, logger } = this.#opts;
    const started = performance.now();
    const provided = this.#opts.provided?.get(e.name);
    if (provided !== undefined) return this.#loadProvided(e, provided, started);
    const dir = await source.locate(e.name);
    if (dir === undefined) {
      if (e.generation === undefined) this.#entries.delete(e.name);
      throw errors.modelNotFound(e.name);
    }
    const previous = e.generation;
    if (previous === undefined) e.state = 'LOADING';
    const loaded: ServedVersion[] = [];
    const fresh: ModelInstance[] = [];
    try {
      await refuseInterruptedDownload(source.root === undefined ? [dir] : [source.root, dir]);
      // Read before the files are loaded: a change made while loading shows at the next poll.
      const read = await modelFingerprint(dir);
      e.attempted = read.key;
      if (reuse && previous?.fingerprint?.key === read.key) return;
      // An override stands in for config.pbtxt in the fingerprint too: the next poll that
      // finds the folder changed then reloads every version with the folder's own config.
      const fingerprint = override === undefined ? read : { ...read, configText: `override:${override.text}` };
      const config = override?.config ?? (read.configText === undefined ? undefined : parseModelConfig(read.configText));
      if (config?.ignoredFields.length) {
        logger.warn({ model: e.name, fields: config.ignoredFields, override: override !== undefined }, 'model configuration fields not supported; ignored');
      }
      const context = { threads: this.#opts.threads, logger };
      const { selected, missing } = selectVersions(await discoverVersions(dir), config?.versionPolicy);
      if (missing.length > 0) logger.warn({ model: e.name, versions: missing }, 'version_policy names versions that have no folder');
      for (const v of selected) {
        const kept = reuse ? this.#unchanged(previous, fingerprint, v.version ?? UNVERSIONED) : undefined;
        if (kept !== undefined) {
          loaded.push(kept);
          continue;
        }
        const { backend, file } = await backends.resolve(v.dir, config?.backend);
        // The backend that owns the model reads its parameters; one it does not know fails the load.
        const options = this.#opts.backendSettings.optionsFor(backend, config?.parameters ?? NO_PARAMETERS, logger);
        const versionSpec = { modelName: e.name, version: v.version, dir: v.dir, file, config };
        const { instance: loadedInstance, count } = await loadVersionInstances(backend, versionSpec, options, context);
        const { instance, statistics } = this.#withBatching(e.name, loadedInstance, config, count);
        fresh.push(instance);
        loaded.push({
          modelName: e.name,
          version: v.version,
          instance,
          platform: instance.platform,
          inputs: instance.inputs,
          outputs: instance.outputs,
          config,
          statistics,
        });
        const source = override === undefined ? 'config.pbtxt' : 'the config override';
        checkConfigAgainstModel(e.name, 'input', config?.inputs, instance.inputs, source);
        checkConfigAgainstModel(e.name, 'output', config?.outputs, instance.outputs, source);
      }
      this.#serve(e, loaded, fresh, previous, started, fingerprint);
    } catch (err) {
      // Kept versions still belong to the serving generation.
      await Promise.allSettled(fresh.map((i) => i.unload()));
      throw this.#loadFailed(e, previous, err, override !== undefined);
    }
  }

  /** The previous generation's version `label` when its files and config.pbtxt are as they were. */
  #unchanged(previous: Generation | undefined, now: ModelFingerprint, label: string): ServedVersion | undefined {
    const before = previous?.fingerprint;
    if (before === undefined || before.configText !== now.configText || before.stamps.get(label) !== now.stamps.get(label)) return undefined;
    return previous?.versions.get(label);
  }

  /** Loads a provided model (one unversioned instance); failures are recorded as for a folder's. */
  async #loadProvided(e: Entry, provided: ProvidedModel, started: number): Promise<void> {
    const { logger } = this.#opts;
    const previous = e.generation;
    if (previous === undefined) e.state = 'LOADING';
    let instance: ModelInstance;
    try {
      instance = await provided.load({ threads: this.#opts.threads, logger });
    } catch (err) {
      throw this.#loadFailed(e, previous, err);
    }
    const served: ServedVersion = {
      modelName: e.name,
      version: undefined,
      instance,
      platform: instance.platform,
      inputs: instance.inputs,
      outputs: instance.outputs,
      config: undefined,
      statistics: new VersionStatistics(false),
    };
    this.#serve(e, [served], [instance], previous, started, undefined);
  }

  /**
   * Records a failed load (a model that was not serving becomes FAILED with the cause; a
   * failed reload keeps the serving generation) and returns the error to throw: the cause
   * itself when it is the request's configuration override that does not fit the model
   * (InvalidInput), ModelNotReady with the cause otherwise.
   */
  #loadFailed(e: Entry, previous: Generation | undefined, err: unknown, overridden = false): KServeError {
    const reason = err instanceof KServeError ? err.message : `Failed to load: ${(err as Error).message}`;
    this.#opts.logger.error({ model: e.name, err: reason }, 'model load failed');
    if (previous === undefined) {
      e.state = 'FAILED';
      e.reason = reason;
    }
    if (overridden && err instanceof KServeError && err.kind === 'InvalidInput') return errors.invalidInput(`Model ${e.name} was not loaded with the config override: ${reason}`);
    return errors.modelNotReady(e.name, reason);
  }

  /** Makes a loaded set of versions the model's current generation and retires the previous one. */
  #serve(e: Entry, loaded: ServedVersion[], fresh: readonly ModelInstance[], previous: Generation | undefined, started: number, fingerprint: ModelFingerprint | undefined): void {
    const { logger } = this.#opts;
    const versions = new Map(loaded.map((l) => [l.version ?? UNVERSIONED, l]));
    const generation = new Generation(versions, loaded[loaded.length - 1] as ServedVersion, this.#labels(e.name, loaded), fingerprint);
    e.generation = generation;
    for (const l of loaded) this.#holders.set(l.instance, (this.#holders.get(l.instance) ?? 0) + 1);
    // Once per instance, however many generations keep it.
    for (const instance of fresh) instance.onFailure((err) => this.#instanceFailed(e, instance, err));
    e.state = 'READY';
    e.reason = undefined;
    logger.info(
      {
        model: e.name,
        versions: loaded.map((l) => l.version ?? null),
        ...(fresh.length < loaded.length ? { kept: loaded.filter((l) => !fresh.includes(l.instance)).map((l) => l.version ?? null) } : {}),
        ...(generation.labels.size > 0 ? { labels: Object.fromEntries([...generation.labels].map(([k, v]) => [k, v.version])) } : {}),
        platform: loaded[0]?.platform,
        loadMs: Math.round(performance.now() - started),
      },
      'model loaded',
    );
    if (previous !== undefined) void this.#retire(e.name, previous);
  }

  /**
   * The labels of config.pbtxt that name a loaded version. One naming a version the policy
   * left out, or without a folder, is logged and answers as an unknown version, as TF
   * Serving refuses a label for a version it does not serve.
   */
  #labels(name: string, loaded: readonly ServedVersion[]): Map<string, ServedVersion> {
    const out = new Map<string, ServedVersion>();
    const labels = loaded[0]?.config?.versionLabels ?? new Map<string, string>();
    const dangling: string[] = [];
    for (const [label, version] of labels) {
      // By number: folder "01" is version 1, as a policy's versions are.
      const served = loaded.find((l) => l.version !== undefined && Number(l.version) === Number(version));
      if (served === undefined) dangling.push(`${label}=${version}`);
      else out.set(label, served);
    }
    if (dangling.length > 0) this.#opts.logger.warn({ model: name, labels: dangling }, 'version labels name versions that are not loaded');
    return out;
  }

  /**
   * Wraps an instance in the dynamic batcher when config.pbtxt asks for it (and has a batch
   * dim), with the version's statistics: the batcher reports its queue times and executions
   * to them from the readings its histograms get.
   */
  #withBatching(name: string, instance: ModelInstance, config: ModelConfig | undefined, instances: number): { instance: ModelInstance; statistics: VersionStatistics } {
    const batching = config?.dynamicBatching;
    if (batching === undefined) return { instance, statistics: new VersionStatistics(false) };
    if (config === undefined || config.maxBatchSize <= 0) {
      this.#opts.logger.warn({ model: name }, 'config.pbtxt: dynamic_batching needs max_batch_size > 0; batching off');
      return { instance, statistics: new VersionStatistics(false) };
    }
    const metrics = this.#opts.metrics;
    const statistics = new VersionStatistics(true);
    const batched = new BatchingInstance(instance, {
      modelName: name,
      maxBatchSize: config.maxBatchSize,
      preferredBatchSizes: batching.preferredBatchSizes,
      maxQueueDelayMicroseconds: batching.maxQueueDelayMicroseconds,
      instances,
      observer: {
        batchSize: (rows) => metrics?.observeBatchSize(name, rows),
        queueSeconds: (seconds) => {
          metrics?.observeBatchQueue(name, seconds);
          statistics.queued(seconds);
        },
        executed: (rows, seconds) => statistics.executed(rows, seconds),
      },
    });
    return { instance: batched, statistics };
  }

  /**
   * A loaded instance broke on its own (its worker died): refuse requests with the cause at
   * once, free the rest of that generation, and try one fresh load.
   */
  #instanceFailed(e: Entry, instance: ModelInstance, err: Error): void {
    const gen = e.generation;
    // An instance only older generations hold is theirs to free when they drain.
    if (gen === undefined || ![...gen.versions.values()].some((v) => v.instance === instance)) return;
    const reason = `model instance failed: ${err.message}`;
    this.#opts.logger.error({ model: e.name, err: reason }, 'model failed; reloading');
    e.generation = undefined;
    e.state = 'FAILED';
    e.reason = reason;
    void this.#release(gen);
    this.#load(e.name).catch(() => undefined);
  }

  async #retire(name: string, gen: Generation): Promise<void> {
    const clean = await gen.drained(this.#opts.drainTimeoutMs);
    if (!clean) this.#opts.logger.warn({ model: name, inflight: gen.inflight }, 'drain timed out; unloading anyway');
    await this.#release(gen);
  }

  /** A generation lets go of its instances; those no other generation holds are freed. */
  async #release(gen: Generation): Promise<void> {
    const free: ModelInstance[] = [];
    for (const { instance } of gen.versions.values()) {
      const n = (this.#holders.get(instance) ?? 1) - 1;
      if (n > 0) this.#holders.set(instance, n);
      else {
        this.#holders.delete(instance);
        free.push(instance);
      }
    }
    await Promise.allSettled(free.map((i) => i.unload()));
  }

  /**
   * Records why a model an outside manager brings in (the puller: server/puller/) could not be
   * made ready before any load ran (its download failed, its memory did not fit): the name is
   * known, FAILED with `reason`, as after a failed load, so its requests answer 503 with the
   * cause and the index reports it. A model already serving keeps serving; the reason is kept
   * beside it until its next load succeeds.
   */
  recordFailure(name: string, reason: string): void {
    const e = this.#entries.get(name);
    if (e === undefined) {
      this.#entries.set(name, { name, state: 'FAILED', reason, generation: undefined, op: Promise.resolve(), attempted: undefined });
      return;
    }
    if (e.generation === undefined && e.state !== 'UNLOADING') e.state = 'FAILED';
    e.reason = reason;
  }

  /** Drops the reason `recordFailure` kept beside a serving model (the failed change was withdrawn). */
  clearFailure(name: string): void {
    const e = this.#entries.get(name);
    if (e?.state === 'READY') e.reason = undefined;
  }

  /** Unloads a model: new requests are refused at once, in-flight ones finish first. */
  unload(name: string): Promise<void> {
    if (this.#entries.has(name)) this.#unloadedByRequest.add(name);
    return this.#unloadEntry(name);
  }

  #unloadEntry(name: string): Promise<void> {
    const e = this.#entries.get(name);
    if (e === undefined) return Promise.reject(errors.modelNotFound(name));
    const run = e.op.then(async () => {
      if (this.#entries.get(name) !== e) throw errors.modelNotFound(name);
      const gen = e.generation;
      e.state = 'UNLOADING';
      e.generation = undefined;
      if (gen !== undefined) await this.#retire(name, gen);
      this.#entries.delete(name);
      // An explicit unload is the operator's choice: it no longer holds readiness back.
      this.#startup.delete(name);
      this.#opts.logger.info({ model: name }, 'model unloaded');
    });
    e.op = run.catch(() => undefined);
    return run;
  }

  async unloadAll(): Promise<void> {
    await Promise.allSettled(this.names().map((n) => this.unload(n)));
  }
}
