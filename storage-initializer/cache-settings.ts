/**
 * The node-local cache's two settings, one parser for both programs that use the cache: the
 * storage-initializer (`--cache_dir`, `--cache_max_bytes`) and the server's puller
 * (`--storage_cache_dir`, `--storage_cache_max_bytes`). A flag wins over its variable
 * (STORAGE_CACHE_DIR, STORAGE_CACHE_MAX_BYTES); the bound is a Kubernetes quantity (`20Gi`).
 */
import { quantityBytes } from '../cli/quantity.js';
import { errors } from './errors.js';

export interface CacheSettings {
  /** Content-addressed entries (cache.ts), e.g. a hostPath shared by the pods of a node. */
  readonly dir: string;
  /** Least recently used entries go beyond this many bytes (cache-eviction.ts); undefined: unbounded. */
  readonly maxBytes: number | undefined;
}

/** What the command line gave (undefined: not given), with the flags' names for messages. */
export interface CacheFlags {
  readonly dir: string | undefined;
  readonly maxBytes: string | undefined;
  readonly maxBytesFlag: string;
}

/** Undefined when no cache folder is set. Throws StorageError for a bound that is not a size. */
export function cacheSettings(flags: CacheFlags, env: NodeJS.ProcessEnv): CacheSettings | undefined {
  const dir = (flags.dir ?? env['STORAGE_CACHE_DIR']) || undefined;
  const bound = (flags.maxBytes ?? env['STORAGE_CACHE_MAX_BYTES']) || undefined;
  const setting = flags.maxBytes !== undefined ? `--${flags.maxBytesFlag}` : 'STORAGE_CACHE_MAX_BYTES';
  const maxBytes = bound === undefined ? undefined : quantityBytes(bound);
  if (bound !== undefined && maxBytes === undefined) throw errors.invalidSetting(setting, `${setting} must be a size such as 20Gi or 500000000, got '${bound}'`);
  if (dir === undefined) {
    if (maxBytes !== undefined) throw errors.invalidSetting(setting, `${setting} bounds the cache, but no cache folder is set (STORAGE_CACHE_DIR or its flag)`);
    return undefined;
  }
  return { dir, maxBytes };
}
