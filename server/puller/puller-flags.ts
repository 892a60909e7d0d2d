/**
 * The puller's flags and their parsed form. `--model_config_file` turns the puller on;
 * `--model_dir` is then the folder the models are pulled into, one sub-folder each (KServe's
 * agent uses /mnt/models the same way). The storage settings (credentials, endpoints, limits)
 * are the storage-initializer's own, read from the same environment at start-up.
 */
import { FlagError, type FlagSpec, type Flags } from '../../cli/flags.js';
import { loadConfig } from '../../storage-initializer/config.js';
import { cacheSettings } from '../../storage-initializer/cache-settings.js';
import { StorageError } from '../../storage-initializer/errors.js';
import type { FetchSettings } from './fetch-model.js';
import { describeBytes, quantityBytes } from '../../cli/quantity.js';

export interface PullerConfig {
  /** KServe's models.json, as the modelconfig ConfigMap mounts it. */
  readonly configFile: string;
  /** `--model_dir`: each model is pulled into `<modelRoot>/<name>`. */
  readonly modelRoot: string;
  /** `--model_memory_limit` in bytes; undefined: declared memory is not counted. */
  readonly memoryLimitBytes: number | undefined;
  readonly fetch: FetchSettings;
}

export const PULLER_FLAGS: readonly FlagSpec[] = [
  {
    name: 'model_config_file',
    kind: 'string',
    dflt: '',
    placeholder: 'PATH',
    help: "KServe's multi-model models.json (the mounted modelconfig ConfigMap): pull, load, reload and unload the models it lists into --model_dir/<name> as it changes (docs/multi-model.md)",
  },
  {
    name: 'model_memory_limit',
    kind: 'string',
    dflt: '',
    placeholder: 'QUANTITY',
    help: "with --model_config_file: total memory the models may declare (modelSpec.memory), e.g. 4Gi, usually the container's memory limit; a model that does not fit is refused (empty: not counted)",
  },
  {
    name: 'storage_cache_dir',
    kind: 'string',
    dflt: '',
    placeholder: 'DIR',
    help: "with --model_config_file: the storage-initializer's content-addressed --cache_dir, shared by the pods of a node (env STORAGE_CACHE_DIR)",
  },
  {
    name: 'storage_cache_max_bytes',
    kind: 'string',
    dflt: '',
    placeholder: 'SIZE',
    help: "with --storage_cache_dir: the cache's bound, a quantity such as 20Gi; least recently used entries go beyond it (env STORAGE_CACHE_MAX_BYTES; default unbounded)",
  },
  { name: 'pvc_mount_root', kind: 'string', dflt: '/mnt/pvc', placeholder: 'DIR', help: 'with --model_config_file: pvc://<claim>/<path> models are read from DIR/<claim>/<path>' },
];

/** Undefined without --model_config_file. Throws FlagError on a malformed value or a storage setting the storage-initializer would refuse. */
export function pullerFrom(flags: Flags, env: NodeJS.ProcessEnv, modelDir: string | undefined, modelRepository: string | undefined): PullerConfig | undefined {
  const configFile = flags.string('model_config_file');
  if (configFile === '') return undefined;
  if (modelRepository !== undefined) throw new FlagError('--model_config_file pulls into --model_dir; it does not go with --model_repository');
  if (modelDir === undefined) throw new FlagError('--model_config_file needs --model_dir: the folder the models are pulled into (e.g. /mnt/models)');
  const limit = flags.string('model_memory_limit');
  const memoryLimitBytes = limit === '' ? undefined : quantityBytes(limit);
  if (memoryLimitBytes === undefined && limit !== '') throw new FlagError(`--model_memory_limit must be a Kubernetes quantity such as 4Gi, got '${limit}'`);
  let storage;
  let cache;
  try {
    storage = loadConfig(env);
    cache = cacheSettings(
      {
        dir: flags.given('storage_cache_dir') ? flags.string('storage_cache_dir') : undefined,
        maxBytes: flags.given('storage_cache_max_bytes') ? flags.string('storage_cache_max_bytes') : undefined,
        maxBytesFlag: 'storage_cache_max_bytes',
      },
      env,
    );
  } catch (err) {
    if (err instanceof StorageError) throw new FlagError(`storage settings for --model_config_file: ${err.message}`);
    throw err;
  }
  return { configFile, modelRoot: modelDir, memoryLimitBytes, fetch: { storage, cache, pvcRoot: flags.string('pvc_mount_root') } };
}

/** One line for the start-up log. */
export function describePuller(p: PullerConfig): Record<string, string> {
  return {
    file: p.configFile,
    modelDir: p.modelRoot,
    memoryLimit: p.memoryLimitBytes === undefined ? 'not counted' : describeBytes(p.memoryLimitBytes),
    cacheDir: p.fetch.cache?.dir ?? 'none',
    cacheBound: p.fetch.cache?.maxBytes === undefined ? 'unbounded' : describeBytes(p.fetch.cache.maxBytes),
  };
}
