/**
 * One model's files into one folder, through the storage-initializer's download engine and
 * provider registry: the same schemes, credentials (the environment and mounted secrets the
 * init container would read, parsed once at start-up) and content-addressed cache
 * (`--storage_cache_dir`, `--storage_cache_max_bytes`). pvc:// is not downloaded by the init container either: the claim is
 * mounted, here under `--pvc_mount_root/<claim>`, and its folder copied as a local path.
 */
import path from 'node:path';
import type { CacheSettings } from '../../storage-initializer/cache-settings.js';
import type { Config as StorageConfig } from '../../storage-initializer/config.js';
import { download } from '../../storage-initializer/download.js';
import { StorageError } from '../../storage-initializer/errors.js';
import type { Log } from '../../storage-initializer/progress.js';
import { PVC_URI_PREFIX, parsePvcUri } from '../../storage-initializer/pvc-uri.js';
import { redact } from '../../storage-initializer/redact.js';
import { ProviderSet } from '../../storage-initializer/registry.js';

export interface FetchSettings {
  readonly storage: StorageConfig;
  /** The storage-initializer's node-local cache, shared by the pods of a node; undefined: none. */
  readonly cache: CacheSettings | undefined;
  /** Where PersistentVolumeClaims named by pvc:// URIs are mounted, one folder per claim. */
  readonly pvcRoot: string;
}

/** Why a URI could not be fetched, as one line with credentials removed (the URI itself is the caller's to name). */
export class FetchError extends Error {}

export class ModelFetcher {
  readonly #providers: ProviderSet;

  constructor(
    private readonly settings: FetchSettings,
    private readonly log: Log,
  ) {
    this.#providers = new ProviderSet(settings.storage);
  }

  /** The source the download engine reads: the URI itself, or a mounted claim's folder. */
  #source(uri: string): string {
    if (!uri.toLowerCase().startsWith(PVC_URI_PREFIX)) return uri;
    const pvc = parsePvcUri(uri);
    if ('problem' in pvc) throw new FetchError(`not a valid pvc:// URI (${pvc.problem === 'no-claim' ? 'no claim named' : "a '..' segment"})`);
    return path.join(this.settings.pvcRoot, pvc.claim, pvc.path);
  }

  /** Downloads `uri` into `dest` (created); throws FetchError naming the cause. */
  async fetch(uri: string, dest: string): Promise<void> {
    try {
      const source = this.#source(uri);
      const provider = await this.#providers.for(source);
      await download(source, dest, provider, { config: this.settings.storage, cache: this.settings.cache, log: this.log });
    } catch (err) {
      if (err instanceof FetchError) throw err;
      if (err instanceof StorageError) {
        // The storage-initializer's one line (cause and message), less the URI it starts with.
        const about = redact(err.uri ?? uri);
        err.uri = about;
        const line = err.line();
        throw new FetchError(about === redact(uri) ? line.slice(about.length + 2) : line);
      }
      throw new FetchError((err as Error).message);
    }
  }

  close(): void {
    this.#providers.close();
  }
}
