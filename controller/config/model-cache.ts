/**
 * The node-local model cache keys of the `storageInitializer` section (kserve-ts's smaller
 * answer to KServe's LocalModelCache): a hostPath folder on each node, or a
 * PersistentVolumeClaim (ReadWriteMany, in the InferenceService's namespace), mounted as the
 * storage-initializer's `--cache_dir` and the multi-model puller's `--storage_cache_dir`, so a
 * second pod of the same model on the node copies it from there instead of downloading it.
 *
 *   "cacheHostPath": "/var/lib/kserve-ts/model-cache"   (or "cachePvcName": "model-cache")
 *   "cacheMaxBytes": "20Gi"                              (optional; least recently used go)
 *
 * The folder must be writable by the pods' user (1000 in the kserve-ts images); a cache that
 * cannot be written is skipped, never an error (docs/multi-model.md).
 */
import { quantityBytes } from '../../cli/quantity.js';
import { ConfigError, stringField } from './section.js';

export type ModelCacheSource = { readonly hostPath: string } | { readonly pvcName: string };

export interface ModelCacheConfig {
  readonly source: ModelCacheSource;
  /** The bound as written (a quantity), passed on to the programs that enforce it. */
  readonly maxBytes: string | undefined;
}

/** Undefined when neither cache key is set. */
export function parseModelCacheConfig(key: string, section: Record<string, unknown>): ModelCacheConfig | undefined {
  const hostPath = stringField(key, section, 'cacheHostPath', '');
  const pvcName = stringField(key, section, 'cachePvcName', '');
  const bound = stringField(key, section, 'cacheMaxBytes', '');
  if (bound !== '' && quantityBytes(bound) === undefined) throw new ConfigError(key, `'cacheMaxBytes' '${bound}' is not a size (for example 20Gi)`);
  if (hostPath !== '' && pvcName !== '') throw new ConfigError(key, "'cacheHostPath' and 'cachePvcName' are two places for one cache: set one");
  if (hostPath !== '' && !hostPath.startsWith('/')) throw new ConfigError(key, `'cacheHostPath' must be an absolute path on the node, got '${hostPath}'`);
  const maxBytes = bound === '' ? undefined : bound;
  if (hostPath !== '') return { source: { hostPath }, maxBytes };
  if (pvcName !== '') return { source: { pvcName }, maxBytes };
  if (maxBytes !== undefined) throw new ConfigError(key, "'cacheMaxBytes' bounds a cache, but neither 'cacheHostPath' nor 'cachePvcName' is set");
  return undefined;
}
