/**
 * Optional content-addressed cache (`--cache_dir` or STORAGE_CACHE_DIR), e.g. a hostPath
 * shared by the pods of one node: a second pod with the same model copies it from the cache
 * instead of downloading it.
 *
 * The key is a SHA-256 over the URI, the filters and every listed object's key, size and
 * store checksum (ETag/MD5/CRC32C), so a changed object is a different entry. Sources whose
 * listing carries no checksum for every object (http, local files) are not cached. Entries
 * are written to a temporary folder and renamed into place, so a reader never sees half an
 * entry; files are hard-linked where the filesystem allows, copied otherwise.
 */
import { createHash, randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { copyFile, link, mkdir, readdir, rename, rm, stat, utimes } from 'node:fs/promises';
import path from 'node:path';
import { CACHE_TEMP_PREFIX, collectLeftovers, evictLeastRecentlyUsed } from './cache-eviction.js';
import type { RemoteObject } from './provider.js';

export function cacheKey(uri: string, filters: readonly string[], objects: readonly RemoteObject[]): string | undefined {
  if (objects.some((o) => o.size === undefined || (!o.md5 && !o.crc32c))) return undefined;
  const h = createHash('sha256');
  h.update(JSON.stringify([uri, filters]));
  for (const o of [...objects].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))) {
    h.update(JSON.stringify([o.key, o.size, o.md5 ?? '', o.crc32c ?? '']));
  }
  return h.digest('hex');
}

async function linkOrCopy(from: string, to: string): Promise<void> {
  try {
    await link(from, to);
  } catch {
    await copyFile(from, to, constants.COPYFILE_FICLONE);
  }
}

/** Copies (or links) the tree `from` into the existing folder `to`. */
async function copyTree(from: string, to: string): Promise<void> {
  for (const e of await readdir(from, { withFileTypes: true })) {
    const src = path.join(from, e.name);
    const dst = path.join(to, e.name);
    if (e.isDirectory()) {
      await mkdir(dst, { recursive: true });
      await copyTree(src, dst);
    } else if (e.isSymbolicLink()) {
      const { readlink, symlink } = await import('node:fs/promises');
      await symlink(await readlink(src), dst);
    } else if (e.isFile()) {
      await linkOrCopy(src, dst);
    }
  }
}

/**
 * Copies entry `key` into the empty folder `into`; false when there is none. An entry evicted
 * while it is being copied (cache-eviction.ts) is a miss too: `into` is emptied again and the
 * caller downloads.
 */
export async function cacheHit(cacheDir: string, key: string, into: string): Promise<boolean> {
  const entry = path.join(cacheDir, key);
  try {
    if (!(await stat(entry)).isDirectory()) return false;
  } catch {
    return false;
  }
  // Marks the use for the size bound's least-recently-used order; a read-only cache still serves.
  const now = new Date();
  await utimes(entry, now, now).catch(() => undefined);
  try {
    await copyTree(entry, into);
    return true;
  } catch {
    for (const e of await readdir(into)) await rm(path.join(into, e), { recursive: true, force: true });
    return false;
  }
}

/**
 * Stores the tree `from` as entry `key`; with `maxBytes`, then evicts the least recently used
 * other entries beyond it (returns their keys). Never fails the download: a cache that cannot
 * be written is skipped.
 */
export async function cacheStore(cacheDir: string, key: string, from: string, maxBytes?: number): Promise<string[]> {
  // Unique across pods, not only processes: pods of a node often share a pid (1, in their own
  // namespaces) and may store in the same millisecond.
  const tmp = path.join(cacheDir, `${CACHE_TEMP_PREFIX}${process.pid}-${randomUUID()}`);
  try {
    await mkdir(tmp, { recursive: true });
    await copyTree(from, tmp);
    await rename(tmp, path.join(cacheDir, key));
  } catch {
    // another pod stored the same entry first, or the cache is not writable: not an error
  } finally {
    await rm(tmp, { recursive: true, force: true }).catch(() => undefined);
  }
  await collectLeftovers(cacheDir).catch(() => undefined);
  if (maxBytes === undefined) return [];
  try {
    return await evictLeastRecentlyUsed(cacheDir, maxBytes, key);
  } catch {
    return [];
  }
}
