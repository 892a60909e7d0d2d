/**
 * The download engine: one URI into one destination folder.
 *
 * Safety: everything is written into a hidden temporary folder inside the destination (so
 * the final rename stays on one filesystem), verified (sizes; MD5 or CRC32C where the store
 * gives them), unpacked if it is a single archive, and only then moved into place under a
 * commit marker (commit.ts). A run that dies before the move leaves only the hidden folder;
 * one that dies during it leaves the marker, and the next run finishes the move first.
 * Sizes the store declares are checked against `config.limits` before they size a file or
 * the list of ranged requests.
 *
 * Speed: every object, and every range of large objects (sized by part-plan.ts from the
 * first part's timing), is one task on a single pool of `concurrency` requests; bodies stream straight to their file offset, so memory
 * does not depend on object size. Each request has a connect timeout, an idle-read timeout
 * and up to `maxAttempts` tries with exponential backoff and jitter.
 */
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { archiveKind, extractArchive, memberPath } from './archive.js';
import { cacheHit, cacheKey, cacheStore } from './cache.js';
import type { CacheSettings } from './cache-settings.js';
import { TMP_PREFIX, commit, recover } from './commit.js';
import type { Config } from './config.js';
import { StorageError, errors, networkError } from './errors.js';
import { FileWriter } from './file-writer.js';
import { HashPool, hashWorkers, type HashSession } from './hash-pool.js';
import { MultipartCheck } from './multipart-etag.js';
import { makeFilter } from './patterns.js';
import { ADAPTIVE_DEFAULTS, AdaptiveConcurrency, initialConcurrency } from './concurrency.js';
import { adaptivePartSize, splitRanges } from './part-plan.js';
import { TaskPool, type Task } from './pool.js';
import { Progress, human, type Log } from './progress.js';
import type { ByteRange, Listing, RemoteObject, StorageProvider } from './provider.js';
import { WrittenRanges } from './written-ranges.js';

export { TMP_PREFIX } from './commit.js';

export interface Summary {
  bytes: number;
  files: number;
  seconds: number;
}

interface ObjectState {
  obj: RemoteObject;
  file: string;
  partsLeft: number;
  skipChecksum: boolean;
  /** Bytes on disk, for the checksum session that follows the contiguous prefix. */
  written: WrittenRanges;
  /** Opened at the object's first write when the store declared a digest. */
  hash: HashSession | undefined;
  /** Prefix end last sent to the hash session. */
  hashedTo: number;
  /**
   * A multipart object's check (multipart-etag.ts), made once its part sizes arrive; they are
   * asked for by `startPartCheck` at the object's first request, so the lookups are bounded
   * by the objects in flight. Resolves to undefined when the store cannot tell them.
   */
  partCheck: Promise<MultipartCheck | undefined> | undefined;
  startPartCheck: (() => void) | undefined;
  /** The same check once made, fed by `written` like `hash`. */
  multipart: MultipartCheck | undefined;
}

/** Bytes the prefix must grow by before the hash worker is told (fewer messages). */
const HASH_STEP = 4 * 1024 * 1024;
/** Bytes of a probe part after which its rate is taken as known and the rest is planned. */
const PROBE_BYTES = 4 * 1024 * 1024;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function backoffMs(config: Config, attempt: number): number {
  const cap = Math.min(8000, config.retryBaseMs * 2 ** (attempt - 1));
  return cap / 2 + Math.random() * (cap / 2);
}

/** Runs `fn` with bounded retries on retryable StorageErrors. */
export async function withRetries<T>(config: Config, log: Log, what: string, signal: AbortSignal, fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      const e = err instanceof StorageError ? err : networkError(err, what);
      if (signal.aborted || !e.retryable || attempt >= config.maxAttempts) throw e;
      const wait = backoffMs(config, attempt);
      log(`retrying ${what} in ${(wait / 1000).toFixed(2)}s (attempt ${attempt + 1} of ${config.maxAttempts}): ${e.message}`);
      await sleep(wait);
    }
  }
}

/**
 * Counts bytes, aborts a body that stalls for `idleMs` and one that sends more than `max`
 * bytes (the declared size, or STORAGE_MAX_BYTES when none is). No hashing here: checksums
 * are computed by hash-pool.ts's workers from what reached the disk.
 */
class Meter extends Transform {
  written = 0;
  /** performance.now() at the first body byte. */
  firstByteAt: number | undefined;
  private timer: NodeJS.Timeout;
  private early: { bytes: number; fn: (bytes: number, bodyMs: number) => void } | undefined;

  constructor(
    private readonly idleMs: number,
    private readonly progress: Progress,
    private readonly what: string,
    private readonly max: { bytes: number; error: (what: string) => StorageError },
  ) {
    super();
    this.timer = setTimeout(() => this.stall(what), idleMs);
  }

  /** Calls `fn` once, as soon as `bytes` have arrived, with the bytes so far and the body's time (ms). */
  whenReceived(bytes: number, fn: (bytes: number, bodyMs: number) => void): void {
    this.early = { bytes, fn };
  }

  private stall(what: string): void {
    this.destroy(errors.unreachable(`${what}: no data for ${(this.idleMs / 1000).toFixed(1)}s`));
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.firstByteAt ??= performance.now();
    this.timer.refresh();
    this.written += chunk.length;
    if (this.written > this.max.bytes) {
      cb(this.max.error(this.what));
      return;
    }
    this.progress.bytes += chunk.length;
    const early = this.early;
    if (early !== undefined && this.written >= early.bytes) {
      this.early = undefined;
      early.fn(this.written, performance.now() - this.firstByteAt);
    }
    cb(null, chunk);
  }

  override _flush(cb: TransformCallback): void {
    clearTimeout(this.timer);
    cb();
  }

  override _destroy(err: Error | null, cb: (error?: Error | null) => void): void {
    clearTimeout(this.timer);
    cb(err);
  }
}

/**
 * The store's listing declares every size; each must be a safe integer and their sum within
 * STORAGE_MAX_BYTES before any file is pre-sized or split into ranges (a listing claiming
 * 2^60 bytes would otherwise size billions of range tasks).
 */
function checkDeclaredSizes(objects: readonly RemoteObject[], config: Config): void {
  const { maxBytes, maxFiles } = config.limits;
  if (objects.length > maxFiles) throw errors.limitExceeded(`${objects.length} objects listed, more than STORAGE_MAX_FILES=${maxFiles}`);
  let total = 0;
  for (const o of objects) {
    if (o.size === undefined) continue;
    if (!Number.isSafeInteger(o.size) || o.size < 0) throw errors.badAnswer(`${o.key}: the store declares an invalid size`);
    total += o.size;
    if (total > maxBytes) throw errors.limitExceeded(`the listed objects total more than STORAGE_MAX_BYTES=${maxBytes} bytes (at ${o.key})`);
  }
}

export interface DownloadContext {
  config: Config;
  log: Log;
  /** The node-local content-addressed cache (cache.ts), if any. */
  cache?: CacheSettings | undefined;
}

export async function download(uri: string, dest: string, provider: StorageProvider, ctx: DownloadContext): Promise<Summary> {
  const { config, log } = ctx;
  await mkdir(dest, { recursive: true });
  await recover(dest);
  const tmp = path.join(dest, `${TMP_PREFIX}${process.pid}-${Date.now().toString(36)}`);
  await mkdir(tmp);
  const controller = new AbortController();
  const signal = controller.signal;
  let hashes: HashPool | undefined;
  try {
    const listing: Listing = await withRetries(config, log, `listing ${uri}`, signal, () => provider.list(uri));
    const keep = makeFilter(config.allowPatterns, config.ignorePatterns);
    const objects = listing.single ? listing.objects : listing.objects.filter((o) => keep(o.key));
    if (objects.length === 0) {
      throw errors.notFound(`${listing.objects.length} files found but none matches STORAGE_ALLOW_PATTERNS/STORAGE_IGNORE_PATTERNS`);
    }
    checkDeclaredSizes(objects, config);
    const key = ctx.cache ? cacheKey(uri, [...config.allowPatterns, '\0', ...config.ignorePatterns], objects) : undefined;
    if (ctx.cache && key) {
      const t0 = performance.now();
      if (await cacheHit(ctx.cache.dir, key, tmp)) {
        await commit(tmp, dest);
        const bytes = objects.reduce((n, o) => n + (o.size ?? 0), 0);
        const seconds = (performance.now() - t0) / 1000;
        log(
          `cache hit for ${uri} (${key.slice(0, 12)}): ${bytes} bytes (${human(bytes)}), ${objects.length} file${objects.length === 1 ? '' : 's'} in place at ${dest} in ${seconds.toFixed(2)}s`,
        );
        return { bytes, files: objects.length, seconds };
      }
    }
    const states: ObjectState[] = [];
    hashes = new HashPool(hashWorkers(os.availableParallelism()));
    const adaptive = config.adaptiveConcurrency
      ? new AdaptiveConcurrency({ start: initialConcurrency(os.availableParallelism(), config.concurrency), max: config.concurrency, ...ADAPTIVE_DEFAULTS })
      : undefined;
    const pool = new TaskPool(adaptive?.limit ?? config.concurrency, controller, () => {
      const next = adaptive?.taskDone(progress.bytes, performance.now(), pool.demand);
      if (next === undefined) return;
      log(`${next > pool.currentLimit ? 'raising' : 'lowering'} parallelism to ${next} requests (${human(progress.bytes)} done)`);
      pool.setLimit(next);
    });
    const first: Task[] = [];
    const later: Task[] = [];
    let total: number | undefined = 0;
    for (const obj of objects) {
      let file: string;
      try {
        file = memberPath(tmp, obj.key);
      } catch {
        throw errors.outsideDestination(`object key '${obj.key}' would be written outside the destination`);
      }
      await mkdir(path.dirname(file), { recursive: true });
      const fh = await open(file, 'w');
      if (obj.size) await fh.truncate(obj.size);
      await fh.close();
      total = obj.size === undefined || total === undefined ? undefined : total + obj.size;
      const ranges: Array<ByteRange | undefined> = [];
      let probe = false;
      if (obj.size !== undefined && provider.ranged && obj.size > config.partSize) {
        // Adaptive: the first part alone; its timing sizes the rest (fetchPart adds them).
        probe = config.adaptiveParts;
        ranges.push(...(probe ? [{ start: 0, end: config.partSize - 1 }] : splitRanges(0, obj.size - 1, config.partSize)));
      } else if (obj.size !== 0) ranges.push(undefined);
      const st: ObjectState = {
        obj,
        file,
        partsLeft: ranges.length,
        skipChecksum: false,
        written: new WrittenRanges(0),
        hash: undefined,
        hashedTo: 0,
        partCheck: undefined,
        startPartCheck: undefined,
        multipart: undefined,
      };
      const mp = obj.multipart;
      const size = obj.size;
      const pool = hashes;
      if (mp && !obj.md5 && size) {
        st.startPartCheck = () => {
          st.startPartCheck = undefined;
          st.partCheck = withRetries(config, log, `part sizes of ${uri} (${obj.key})`, signal, () => mp.partSizes(signal)).then((sizes) => {
            // After an abort the hash pool is closing: a session now would start new workers.
            if (sizes === undefined || signal.aborted || st.skipChecksum) return undefined;
            st.multipart = new MultipartCheck(pool, obj.key, file, size, mp.etag, sizes);
            st.multipart.advance(st.written.prefixEnd);
            return st.multipart;
          });
          // Awaited by verify(); a download that fails first must not leave it unhandled.
          st.partCheck.catch(() => undefined);
        };
      }
      states.push(st);
      // Ranged objects first: the longest work starts earliest, and a probe's plan is known
      // while the small objects still keep the other requests busy.
      const queue = ranges.length > 1 || probe ? first : later;
      for (const range of ranges) queue.push(() => fetchPart(st, range, probe));
    }
    pool.push(...first, ...later);
    const progress = new Progress(log, uri, total, objects.length, config.progressIntervalMs);
    progress.filesDone = states.filter((s) => s.partsLeft === 0).length;
    log(`downloading ${uri} to ${dest}: ${objects.length} file${objects.length === 1 ? '' : 's'}${total !== undefined ? `, ${human(total)}` : ''}`);

    async function fetchPart(st: ObjectState, range: ByteRange | undefined, probe = false): Promise<void> {
      let timing: { bytes: number; ttfbMs: number; bodyMs: number } | undefined;
      // The rest of a probed object is planned once, from the first PROBE_BYTES of the probe
      // (or all of it, if shorter): waiting for the whole first part would leave the request
      // slots idle for that long on a store that starts requests cheaply.
      let planned = false;
      const plan = (t: { bytes: number; ttfbMs: number; bodyMs: number }) => {
        if (planned || !range) return;
        planned = true;
        const size = st.obj.size!;
        const part = adaptivePartSize(t, config.partSize, size - range.end - 1);
        const rest = splitRanges(range.end + 1, size - 1, part);
        log(
          `${st.obj.key}: first ${human(t.bytes)} started in ${t.ttfbMs.toFixed(0)} ms and took ${t.bodyMs.toFixed(0)} ms; the remaining ${human(size - range.end - 1)} in ${rest.length} part${rest.length === 1 ? '' : 's'} of up to ${human(part)}`,
        );
        st.partsLeft += rest.length;
        pool.pushFront(...rest.map((r) => () => fetchPart(st, r)));
      };
      const what = `${uri === st.obj.key ? uri : `${uri} (${st.obj.key}${range ? ` bytes ${range.start}-${range.end}` : ''})`}`;
      const expected = range ? range.end - range.start + 1 : st.obj.size;
      st.startPartCheck?.();
      await withRetries(config, log, what, signal, async () => {
        let meter: Meter | undefined;
        try {
          const sent = performance.now();
          const opened = await provider.read(st.obj, range, signal);
          if (opened.skipChecksum) st.skipChecksum = true;
          const declared = expected ?? opened.length;
          meter = new Meter(
            config.readTimeoutMs,
            progress,
            what,
            declared !== undefined && Number.isSafeInteger(declared)
              ? { bytes: declared, error: (w) => errors.badAnswer(`${w}: the store sent more than the ${declared} bytes it declared`) }
              : { bytes: config.limits.maxBytes, error: (w) => errors.limitExceeded(`${w}: more than STORAGE_MAX_BYTES=${config.limits.maxBytes} bytes`) },
          );
          if (probe && !planned) {
            const m = meter;
            m.whenReceived(Math.min(PROBE_BYTES, expected ?? PROBE_BYTES), (bytes, bodyMs) => plan({ bytes, ttfbMs: (m.firstByteAt ?? sent) - sent, bodyMs }));
          }
          const out = new FileWriter(st.file, range?.start ?? 0, st.obj.size === undefined ? 'w' : 'r+', (at, n) => written(st, at, n));
          await pipeline(opened.body, meter, out, { signal });
          const want = expected ?? opened.length;
          if (want !== undefined && meter.written !== want) {
            throw errors.unreachable(`${what}: connection closed after ${meter.written} of ${want} bytes`);
          }
          const first = meter.firstByteAt ?? performance.now();
          timing = { bytes: meter.written, ttfbMs: first - sent, bodyMs: performance.now() - first };
        } catch (err) {
          if (meter) progress.bytes -= meter.written;
          if (signal.aborted && !(err instanceof StorageError)) throw errors.unreachable(`${what}: cancelled`, { retryable: false });
          throw err instanceof StorageError ? err : networkError(err, what);
        }
      });
      if (probe && timing) plan(timing);
      if (--st.partsLeft === 0) {
        // Checked beside the pool, not in it: a request slot never waits for a digest.
        const check = verify(st).then(() => void progress.filesDone++);
        check.catch((err: unknown) => {
          checkFailure ??= { err };
          controller.abort(err);
        });
        checks.push(check);
      }
    }

    /** A write landed: the checksum session reads on once the prefix has grown enough. */
    function written(st: ObjectState, at: number, n: number): void {
      const size = st.obj.size;
      const multipart = st.partCheck !== undefined;
      if (size === undefined || st.skipChecksum || (!st.obj.md5 && !st.obj.crc32c && !multipart)) return;
      st.written.add(at, n);
      const end = st.written.prefixEnd;
      if (end - st.hashedTo < HASH_STEP && end < size) return;
      if (multipart) {
        st.hashedTo = end;
        st.multipart?.advance(end);
        return;
      }
      st.hash ??= hashes!.session(st.file, 0, size, st.obj.md5 ? 'md5' : 'crc32c');
      st.hashedTo = end;
      st.hash.advance(end);
    }

    const checks: Array<Promise<void>> = [];
    let checkFailure: { err: unknown } | undefined;
    try {
      await pool.run();
      await Promise.all(checks);
    } catch (err) {
      // A mismatch aborts the requests in flight; it, not their cancellation, is the cause.
      throw checkFailure ? checkFailure.err : err;
    } finally {
      progress.stop();
    }

    if (objects.length === 1) {
      const only = states[0]!;
      const kind = archiveKind(only.obj.key);
      if (kind) {
        const archive = `${tmp}.archive`;
        await rename(only.file, archive);
        log(`unpacking ${only.obj.key}`);
        try {
          await extractArchive(archive, tmp, kind, config.limits);
        } finally {
          await rm(archive, { force: true });
        }
      }
    }

    if (ctx.cache && key) {
      const evicted = await cacheStore(ctx.cache.dir, key, tmp, ctx.cache.maxBytes);
      if (evicted.length > 0)
        log(
          `cache over ${human(ctx.cache.maxBytes ?? 0)}: evicted ${evicted.length} least recently used entr${evicted.length === 1 ? 'y' : 'ies'} (${evicted.map((k) => k.slice(0, 12)).join(', ')})`,
        );
    }
    await commit(tmp, dest);
    const seconds = progress.seconds();
    const summary = { bytes: progress.bytes, files: objects.length, seconds };
    log(
      `downloaded ${uri} to ${dest}: ${summary.bytes} bytes (${human(summary.bytes)}), ${summary.files} file${summary.files === 1 ? '' : 's'} in ${seconds.toFixed(2)}s (${human(summary.bytes / Math.max(seconds, 1e-3))}/s), peak RSS ${human(process.resourceUsage().maxRSS * 1024)}`,
    );
    return summary;
  } catch (err) {
    if (err instanceof StorageError) err.uri ??= uri;
    throw err;
  } finally {
    controller.abort();
    await hashes?.close();
    await rm(tmp, { recursive: true, force: true });
    await rm(`${tmp}.archive`, { force: true });
  }

  async function verify(st: ObjectState): Promise<void> {
    const { obj, file } = st;
    const size = (await stat(file)).size;
    if (obj.size !== undefined && size !== obj.size) throw errors.checksumMismatch(obj.key, `${size} bytes written, the store lists ${obj.size}`);
    if (!st.skipChecksum && st.partCheck && obj.multipart) {
      const check = await st.partCheck;
      if (check === undefined) log(`${obj.key}: the store does not tell the sizes of its ${obj.multipart.etag.parts} upload parts, so only its size is checked`);
      else await check.result();
      return;
    }
    if (st.skipChecksum || (!obj.md5 && !obj.crc32c)) {
      st.hash?.cancel();
      st.multipart?.cancel();
      return;
    }
    // Every write has landed; an object with no bytes (or no size) gets its session here.
    st.hash ??= hashes!.session(file, 0, size, obj.md5 ? 'md5' : 'crc32c');
    st.hash.advance(size);
    let got: string;
    try {
      got = await st.hash.digest();
    } catch (err) {
      throw errors.unverifiable(obj.key, err);
    }
    const [name, want] = obj.md5 ? ['MD5', obj.md5] : ['CRC32C', obj.crc32c];
    if (got !== want) throw errors.checksumMismatch(obj.key, `${name} ${got} does not match the store's ${want}`);
  }
}
