/**
 * Configuration of one storage-initializer run, read once from the environment at start
 * and passed down (providers never read process.env themselves): the download engine's
 * settings here, each provider's own from its settings module (providers/settings.ts).
 * Anchor variable names are kept; STORAGE_* variables are this project's additions.
 * Durations are in seconds in the environment and milliseconds here.
 */
import { type Env, type StorageConfigObject, num } from './env.js';
import { errors } from './errors.js';
import { type ProviderConfigs, providerSecrets, readProviderConfigs } from './providers/settings.js';

export interface Config extends ProviderConfigs {
  allowPatterns: readonly string[];
  ignorePatterns: readonly string[];
  /**
   * Requests in flight at once, across all files of one URI: exactly this many when
   * `adaptiveConcurrency` is false, else the most the adaptive plan may reach
   * (concurrency.ts). Connection pools are sized for it.
   */
  concurrency: number;
  /** True unless STORAGE_CONCURRENCY (or --concurrency) gave a number. */
  adaptiveConcurrency: boolean;
  /**
   * Objects larger than this are fetched as parallel ranged GETs of at least this size;
   * exactly this size when `adaptiveParts` is false (part-plan.ts).
   */
  partSize: number;
  /** True unless STORAGE_PART_SIZE was given: part sizes follow the first part's timing. */
  adaptiveParts: boolean;
  maxAttempts: number;
  connectTimeoutMs: number;
  /** A request that delivers no byte for this long is abandoned (and retried). */
  readTimeoutMs: number;
  retryBaseMs: number;
  progressIntervalMs: number;
  limits: Limits;
}

/**
 * Bounds on what a store or an archive may make this process write or hold, checked before
 * a declared size (a listing's object size, an archive member's size or count) sizes a
 * file, a task list or a buffer. Exceeding one is StorageError('invalid' | 'unsafe_archive').
 */
export interface Limits {
  /** Bytes one URI may download in total (sum of the listed sizes, checked before any write). */
  maxBytes: number;
  /** Objects one URI may list (and so files it may create). */
  maxFiles: number;
  /** Bytes an archive may expand to. */
  maxExtractedBytes: number;
  /** Expanded bytes per archive byte, applied once the expansion passes `ratioFloorBytes`. */
  maxExtractRatio: number;
  ratioFloorBytes: number;
  /** Members an archive may have. */
  maxArchiveEntries: number;
}

/** Defaults, with units. */
export const DEFAULTS = Object.freeze({
  maxConcurrency: 64, // requests: the adaptive plan's ceiling
  partSize: 16 * 1024 * 1024, // bytes: the first (timed) part, and the smallest adaptive part
  maxAttempts: 5, // per request, first try included
  connectTimeoutS: 15,
  readTimeoutS: 30,
  retryBaseMs: 250, // doubled per attempt, with jitter, capped at 8 s
  progressIntervalS: 5,
  maxBytes: 1024 ** 4, // 1 TiB per URI
  maxFiles: 1_000_000, // objects per URI
  maxExtractedBytes: 256 * 1024 ** 3, // 256 GiB per archive
  maxExtractRatio: 200, // expanded / archive bytes; real model archives stay under ~10
  ratioFloorBytes: 64 * 1024 * 1024, // the ratio is not applied below 64 MiB expanded
  maxArchiveEntries: 1_000_000,
});

/** STORAGE_ALLOW_PATTERNS / STORAGE_IGNORE_PATTERNS: a JSON array or a comma-separated list. */
export function parsePatterns(v: string | undefined): string[] {
  if (v === undefined || v.trim() === '') return [];
  const s = v.trim();
  if (s.startsWith('[')) {
    try {
      const a: unknown = JSON.parse(s);
      if (Array.isArray(a)) return a.map(String).filter((p) => p !== '');
    } catch {
      /* fall through to the comma list */
    }
  }
  return s
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
}

/**
 * STORAGE_CONFIG (the `storage-config` secret key) merged with STORAGE_OVERRIDE_CONFIG: each
 * provider takes its entry from it (providers/*-settings.ts).
 */
function storageConfigObject(env: Env): StorageConfigObject {
  const parse = (name: string): Record<string, unknown> => {
    const v = env[name];
    if (!v) return {};
    try {
      const o: unknown = JSON.parse(v);
      if (o && typeof o === 'object' && !Array.isArray(o)) return o as Record<string, unknown>;
    } catch {
      /* reported below */
    }
    throw errors.settingNotAJsonObject(name);
  };
  return { ...parse('STORAGE_CONFIG'), ...parse('STORAGE_OVERRIDE_CONFIG') };
}

/** STORAGE_CONCURRENCY: a number of requests (fixed), or `auto`/unset (adaptive). */
function concurrency(env: Env): Pick<Config, 'concurrency' | 'adaptiveConcurrency'> {
  const v = env['STORAGE_CONCURRENCY']?.trim();
  if (!v || v.toLowerCase() === 'auto') return { concurrency: DEFAULTS.maxConcurrency, adaptiveConcurrency: true };
  return { concurrency: Math.floor(num(env, ['STORAGE_CONCURRENCY'], DEFAULTS.maxConcurrency, 1)), adaptiveConcurrency: false };
}

/** Every credential the configuration holds (each provider names its own), for the output scrubber. */
export function configSecrets(config: Config): string[] {
  return providerSecrets(config);
}

export function loadConfig(env: Env): Config {
  const config: Config = {
    ...readProviderConfigs(env, storageConfigObject(env)),
    allowPatterns: Object.freeze(parsePatterns(env['STORAGE_ALLOW_PATTERNS'])),
    ignorePatterns: Object.freeze(parsePatterns(env['STORAGE_IGNORE_PATTERNS'])),
    ...concurrency(env),
    partSize: Math.floor(num(env, ['STORAGE_PART_SIZE'], DEFAULTS.partSize, 1024)),
    adaptiveParts: !env['STORAGE_PART_SIZE'],
    maxAttempts: Math.floor(num(env, ['STORAGE_MAX_ATTEMPTS', 'S3_MAX_ATTEMPTS'], DEFAULTS.maxAttempts, 1)),
    connectTimeoutMs: num(env, ['STORAGE_CONNECT_TIMEOUT', 'S3_CONNECT_TIMEOUT'], DEFAULTS.connectTimeoutS, 0.001) * 1000,
    readTimeoutMs: num(env, ['STORAGE_READ_TIMEOUT', 'S3_READ_TIMEOUT'], DEFAULTS.readTimeoutS, 0.001) * 1000,
    retryBaseMs: num(env, ['STORAGE_RETRY_BASE_MS'], DEFAULTS.retryBaseMs, 0),
    progressIntervalMs: num(env, ['STORAGE_PROGRESS_INTERVAL'], DEFAULTS.progressIntervalS, 0.01) * 1000,
    limits: Object.freeze({
      maxBytes: num(env, ['STORAGE_MAX_BYTES'], DEFAULTS.maxBytes, 0),
      maxFiles: Math.floor(num(env, ['STORAGE_MAX_FILES'], DEFAULTS.maxFiles, 1)),
      maxExtractedBytes: num(env, ['STORAGE_MAX_EXTRACTED_BYTES'], DEFAULTS.maxExtractedBytes, 0),
      maxExtractRatio: num(env, ['STORAGE_MAX_EXTRACT_RATIO'], DEFAULTS.maxExtractRatio, 1),
      ratioFloorBytes: num(env, ['STORAGE_EXTRACT_RATIO_FLOOR'], DEFAULTS.ratioFloorBytes, 0),
      maxArchiveEntries: Math.floor(num(env, ['STORAGE_MAX_ARCHIVE_ENTRIES'], DEFAULTS.maxArchiveEntries, 1)),
    }),
  };
  return Object.freeze(config);
}
