/**
 * The cache's size bound (`--cache_max_bytes`, STORAGE_CACHE_MAX_BYTES): after an entry is
 * stored, the least recently used entries go until the entries add up to at most the bound;
 * the entry just stored stays even when it alone is larger (the pod that stored it is using
 * it). Use is an entry folder's mtime, set when it is stored and touched on every hit.
 *
 * An entry is renamed away before it is deleted, so no reader ever starts on half an entry;
 * a reader already copying it when it goes falls back to downloading (cacheHit). Pods that
 * hold hard links to an evicted entry's files keep them: eviction never touches a model in use.
 *
 * A pod killed while storing or evicting leaves a `.tmp-` or `.evict-` folder behind that no
 * entry counts; each store collects them (collectLeftovers), or a node's cache would grow past
 * its bound one killed pod at a time.
 */
import { randomUUID } from 'node:crypto';
import { readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';

/** Names that are not entries: folders being written or being deleted. */
export const CACHE_TEMP_PREFIX = '.tmp-';
const EVICTING_PREFIX = '.evict-';

/**
 * A `.tmp-` folder still being written changes within seconds (its files are hard links or
 * copies made one after another); one untouched for this long belongs to a writer that died.
 */
export const LEFTOVER_TEMP_AGE_MS = 60 * 60 * 1000;

/** Newest modification time of `dir` and everything below it. */
async function newestMtimeMs(dir: string): Promise<number> {
  let newest = (await stat(dir)).mtimeMs;
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? await newestMtimeMs(p) : (await stat(p)).mtimeMs);
  }
  return newest;
}

/**
 * Removes what killed writers and evictors left: every `.evict-` folder (renamed away only to
 * be deleted) and `.tmp-` folders untouched for `tempAgeMs`. Returns the names removed.
 */
export async function collectLeftovers(cacheDir: string, nowMs = Date.now(), tempAgeMs = LEFTOVER_TEMP_AGE_MS): Promise<string[]> {
  const removed: string[] = [];
  for (const e of await readdir(cacheDir, { withFileTypes: true })) {
    if (!e.isDirectory()) continue;
    const dir = path.join(cacheDir, e.name);
    try {
      const leftover = e.name.startsWith(EVICTING_PREFIX) || (e.name.startsWith(CACHE_TEMP_PREFIX) && nowMs - (await newestMtimeMs(dir)) >= tempAgeMs);
      if (!leftover) continue;
      await rm(dir, { recursive: true, force: true });
      removed.push(e.name);
    } catch {
      // renamed into place or removed by another pod meanwhile
    }
  }
  return removed;
}

/** Apparent size of the files below `dir` (what a fresh download of the entry costs). */
async function treeBytes(dir: string): Promise<number> {
  let total = 0;
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) total += await treeBytes(p);
    else if (e.isFile()) total += (await stat(p)).size;
  }
  return total;
}

interface Entry {
  readonly name: string;
  readonly usedMs: number;
  readonly bytes: number;
}

async function entries(cacheDir: string): Promise<Entry[]> {
  const out: Entry[] = [];
  for (const e of await readdir(cacheDir, { withFileTypes: true })) {
    if (!e.isDirectory() || e.name.startsWith('.')) continue;
    const dir = path.join(cacheDir, e.name);
    try {
      out.push({ name: e.name, usedMs: (await stat(dir)).mtimeMs, bytes: await treeBytes(dir) });
    } catch {
      // evicted by another pod meanwhile
    }
  }
  return out;
}

/** Removes least recently used entries other than `keep` until the cache holds at most `maxBytes`; returns the names removed. */
export async function evictLeastRecentlyUsed(cacheDir: string, maxBytes: number, keep: string): Promise<string[]> {
  const all = await entries(cacheDir);
  let total = all.reduce((n, e) => n + e.bytes, 0);
  const removed: string[] = [];
  for (const e of all.filter((x) => x.name !== keep).sort((a, b) => a.usedMs - b.usedMs || (a.name < b.name ? -1 : 1))) {
    if (total <= maxBytes) break;
    const away = path.join(cacheDir, `${EVICTING_PREFIX}${randomUUID()}`);
    total -= e.bytes;
    try {
      await rename(path.join(cacheDir, e.name), away);
    } catch {
      // Another pod evicted it first: gone all the same, so it counts, or two pods storing at
      // once would each remove as much as the whole overshoot.
      continue;
    }
    await rm(away, { recursive: true, force: true });
    removed.push(e.name);
  }
  return removed;
}
