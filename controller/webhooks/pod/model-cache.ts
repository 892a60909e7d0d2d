/**
 * The node-local model cache in a pod (controller/config/model-cache.ts): the cache's volume
 * (a hostPath folder, created if missing, or a claim) mounted at /mnt/model-cache in the
 * program that downloads, and the flags that point it there — the storage-initializer's
 * `--cache_dir` / `--cache_max_bytes`, the multi-model puller's `--storage_cache_dir` /
 * `--storage_cache_max_bytes`. Idempotent: the volume and mount are added once by name and
 * flags already present are left as they are.
 */
import type { V1Container, V1PodSpec, V1Volume } from '@kubernetes/client-node';
import type { ModelCacheConfig } from '../../config/model-cache.js';
import { pullerContainer } from './puller-credentials.js';
import type { PodMutator } from './pod-mutation.js';
import { addVolume, addVolumeMount, modelMount } from './pod-spec.js';

export const MODEL_CACHE_VOLUME = 'kserve-model-cache';
export const MODEL_CACHE_MOUNT_PATH = '/mnt/model-cache';

/** The flag names of one program. */
export interface CacheFlagNames {
  readonly dir: string;
  readonly maxBytes: string;
}

export const STORAGE_INITIALIZER_CACHE_FLAGS: CacheFlagNames = { dir: '--cache_dir', maxBytes: '--cache_max_bytes' };
export const PULLER_CACHE_FLAGS: CacheFlagNames = { dir: '--storage_cache_dir', maxBytes: '--storage_cache_max_bytes' };

function cacheVolume(cache: ModelCacheConfig): V1Volume {
  if ('hostPath' in cache.source) return { name: MODEL_CACHE_VOLUME, hostPath: { path: cache.source.hostPath, type: 'DirectoryOrCreate' } };
  return { name: MODEL_CACHE_VOLUME, persistentVolumeClaim: { claimName: cache.source.pvcName } };
}

const hasFlag = (args: readonly string[], flag: string) => args.some((a) => a === flag || a.startsWith(`${flag}=`));

/** Mounts the cache into `container` and returns the flags it needs that its args do not carry yet. */
export function mountModelCache(spec: V1PodSpec, container: V1Container, cache: ModelCacheConfig, names: CacheFlagNames): string[] {
  addVolume(spec, cacheVolume(cache));
  addVolumeMount(container, modelMount(MODEL_CACHE_VOLUME, MODEL_CACHE_MOUNT_PATH, false));
  const args = container.args ?? [];
  const flags: string[] = [];
  if (!hasFlag(args, names.dir)) flags.push(names.dir, MODEL_CACHE_MOUNT_PATH);
  if (cache.maxBytes !== undefined && !hasFlag(args, names.maxBytes)) flags.push(names.maxBytes, cache.maxBytes);
  return flags;
}

/** The multi-model server's puller gets the cache too, so a TrainedModel on a second pod of the node is not downloaded again. */
export const injectPullerCache: PodMutator = (pod, ctx) => {
  const cache = ctx.config.storageInitializer.modelCache;
  const spec = pod.spec;
  const server = spec === undefined ? undefined : pullerContainer(spec);
  if (cache === undefined || spec === undefined || server === undefined) return;
  server.args = [...(server.args ?? []), ...mountModelCache(spec, server, cache, PULLER_CACHE_FLAGS)];
};
