/**
 * The node-local cache's size bound on a real filesystem: least recently used entries go
 * (use is touched by every hit), the entry just stored stays, folders being written are not
 * entries, evictors racing on one cache neither fail nor overshoot; and the one settings parser
 * the storage-initializer and the puller share.
 */
import { mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cacheHit, cacheStore } from '../../storage-initializer/cache.js';
import { collectLeftovers, evictLeastRecentlyUsed, LEFTOVER_TEMP_AGE_MS } from '../../storage-initializer/cache-eviction.js';
import { cacheSettings } from '../../storage-initializer/cache-settings.js';
import { StorageError } from '../../storage-initializer/errors.js';
import { cleanup, listFiles, tempDir } from './helpers.js';

const dirs: string[] = [];
const tmp = () => {
  const d = tempDir('cache-test-');
  dirs.push(d);
  return d;
};
afterAll(() => cleanup(...dirs));

/** An entry of `bytes` bytes in two files, last used `ageS` seconds ago. */
function entry(cache: string, key: string, bytes: number, ageS: number): void {
  const dir = path.join(cache, key);
  mkdirSync(path.join(dir, 'sub'), { recursive: true });
  writeFileSync(path.join(dir, 'model.onnx'), Buffer.alloc(bytes - 10, 1));
  writeFileSync(path.join(dir, 'sub', 'meta.txt'), Buffer.alloc(10, 2));
  const t = new Date(Date.now() - ageS * 1000);
  utimesSync(dir, t, t);
}

const entriesOf = (cache: string) => readdirSync(cache).sort();

/** Sets the modification time of `dir` and everything below it to `ageS` seconds ago. */
function age(dir: string, ageS: number): void {
  const t = new Date(Date.now() - ageS * 1000);
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) age(p, ageS);
    else utimesSync(p, t, t);
  }
  utimesSync(dir, t, t);
}

describe('collectLeftovers (what killed writers and evictors leave)', () => {
  const hourS = LEFTOVER_TEMP_AGE_MS / 1000;

  it('removes .evict- folders and .tmp- folders untouched for the age; keeps entries and temp folders still changing', async () => {
    const cache = tmp();
    entry(cache, '.evict-fresh', 1000, 0);
    entry(cache, '.tmp-1-dead', 1000, 0);
    age(path.join(cache, '.tmp-1-dead'), hourS + 60);
    // An old folder whose one file is still being written belongs to a live writer.
    entry(cache, '.tmp-2-live', 1000, 0);
    age(path.join(cache, '.tmp-2-live'), hourS + 60);
    writeFileSync(path.join(cache, '.tmp-2-live', 'sub', 'meta.txt'), 'still writing');
    entry(cache, 'old-entry', 1000, 0);
    age(path.join(cache, 'old-entry'), 10 * hourS);

    expect((await collectLeftovers(cache)).sort()).toEqual(['.evict-fresh', '.tmp-1-dead']);
    expect(entriesOf(cache)).toEqual(['.tmp-2-live', 'old-entry']);
    // The same folder is collected once its writer has been silent for the age.
    expect(await collectLeftovers(cache, Date.now() + LEFTOVER_TEMP_AGE_MS)).toEqual(['.tmp-2-live']);
    expect(entriesOf(cache)).toEqual(['old-entry']);
  });

  it('every store collects them, with or without a bound', async () => {
    const cache = tmp();
    entry(cache, '.evict-x', 1000, 0);
    entry(cache, '.tmp-9-dead', 1000, 0);
    age(path.join(cache, '.tmp-9-dead'), hourS + 60);
    const from = tmp();
    writeFileSync(path.join(from, 'model.onnx'), 'onnx');
    expect(await cacheStore(cache, 'k', from)).toEqual([]);
    expect(entriesOf(cache)).toEqual(['k']);
  });
});

describe('evictLeastRecentlyUsed', () => {
  it('removes the least recently used entries until the rest fit, never the one kept', async () => {
    const cache = tmp();
    entry(cache, 'a', 1000, 300);
    entry(cache, 'b', 1000, 200);
    entry(cache, 'c', 1000, 100);
    entry(cache, 'd', 1000, 0);
    expect(await evictLeastRecentlyUsed(cache, 2500, 'd')).toEqual(['a', 'b']);
    expect(entriesOf(cache)).toEqual(['c', 'd']);
    // Within the bound: nothing goes.
    expect(await evictLeastRecentlyUsed(cache, 2000, 'd')).toEqual([]);
    // The kept entry stays even when it alone is over the bound.
    expect(await evictLeastRecentlyUsed(cache, 500, 'd')).toEqual(['c']);
    expect(entriesOf(cache)).toEqual(['d']);
  });

  it('does not count or remove folders being written (.tmp-) or already being removed', async () => {
    const cache = tmp();
    entry(cache, '.tmp-1-x', 5000, 1000);
    entry(cache, 'old', 1000, 100);
    entry(cache, 'new', 1000, 0);
    expect(await evictLeastRecentlyUsed(cache, 2000, 'new')).toEqual([]);
    expect(await evictLeastRecentlyUsed(cache, 1500, 'new')).toEqual(['old']);
    expect(entriesOf(cache)).toEqual(['.tmp-1-x', 'new']);
  });

  it('two evictors on one cache (two pods storing at once) remove each entry once and end within the bound', async () => {
    const cache = tmp();
    for (let i = 0; i < 8; i++) entry(cache, `e${i}`, 1000, 100 - i);
    const [x, y] = await Promise.all([evictLeastRecentlyUsed(cache, 3000, 'e7'), evictLeastRecentlyUsed(cache, 3000, 'e6')]);
    const removed = [...x, ...y];
    expect(new Set(removed).size).toBe(removed.length);
    const left = entriesOf(cache);
    expect(left.every((n) => !n.startsWith('.'))).toBe(true);
    expect(left.length).toBeLessThanOrEqual(3);
    expect(left).toContain('e7');
    expect(left).toContain('e6');
  });
});

describe('cacheStore and cacheHit with a bound', () => {
  it('a hit marks the entry used, so the entry evicted is the one not read since', async () => {
    const cache = tmp();
    const src = tmp();
    writeFileSync(path.join(src, 'w.bin'), Buffer.alloc(1000, 7));
    expect(await cacheStore(cache, 'first', src, 2500)).toEqual([]);
    expect(await cacheStore(cache, 'second', src, 2500)).toEqual([]);
    const past = new Date(Date.now() - 60_000);
    utimesSync(path.join(cache, 'first'), past, past);
    utimesSync(path.join(cache, 'second'), new Date(Date.now() - 30_000), new Date(Date.now() - 30_000));
    // Reading "first" makes "second" the least recently used.
    const into = tmp();
    expect(await cacheHit(cache, 'first', into)).toBe(true);
    expect(listFiles(into)).toEqual(['w.bin']);
    expect(await cacheStore(cache, 'third', src, 2500)).toEqual(['second']);
    expect(entriesOf(cache)).toEqual(['first', 'third']);
  });

  it('an entry that is gone is a miss that leaves the destination empty; an unwritable cache never fails the store', async () => {
    const into = tmp();
    expect(await cacheHit(tmp(), 'missing', into)).toBe(false);
    expect(listFiles(into)).toEqual([]);
    const file = path.join(tmp(), 'not-a-folder');
    writeFileSync(file, 'x');
    const src = tmp();
    writeFileSync(path.join(src, 'w.bin'), 'w');
    expect(await cacheStore(file, 'k', src, 10)).toEqual([]);
  });
});

describe('cacheSettings', () => {
  const flags = (dir?: string, maxBytes?: string) => ({ dir, maxBytes, maxBytesFlag: 'cache_max_bytes' });

  it('reads the folder and the bound from the flags, else the environment', () => {
    expect(cacheSettings(flags(), {})).toBeUndefined();
    expect(cacheSettings(flags('/c'), {})).toEqual({ dir: '/c', maxBytes: undefined });
    expect(cacheSettings(flags('/c', '20Gi'), { STORAGE_CACHE_DIR: '/env', STORAGE_CACHE_MAX_BYTES: '1G' })).toEqual({ dir: '/c', maxBytes: 20 * 2 ** 30 });
    expect(cacheSettings(flags(), { STORAGE_CACHE_DIR: '/env', STORAGE_CACHE_MAX_BYTES: '1G' })).toEqual({ dir: '/env', maxBytes: 1e9 });
  });

  it.each([
    [flags('/c', 'big'), {}, "--cache_max_bytes must be a size such as 20Gi or 500000000, got 'big'"],
    [flags(), { STORAGE_CACHE_DIR: '/c', STORAGE_CACHE_MAX_BYTES: '-1Gi' }, "STORAGE_CACHE_MAX_BYTES must be a size such as 20Gi or 500000000, got '-1Gi'"],
    [flags(undefined, '1Gi'), {}, '--cache_max_bytes bounds the cache, but no cache folder is set (STORAGE_CACHE_DIR or its flag)'],
  ])('refuses %j %j', (f, env, message) => {
    expect(() => cacheSettings(f, env)).toThrow(StorageError);
    expect(() => cacheSettings(f, env)).toThrow(message);
  });
});
