/**
 * How a large object is split into ranged requests.
 *
 * Fixed (STORAGE_PART_SIZE given): parts of that size, as before.
 * Adaptive (the default): the first `partSize` bytes are fetched first, and their first 4 MiB
 * timed (the rest is planned then, while that part goes on): the time to
 * the first byte (`ttfbMs`: the store's cost of starting one request, which for some servers
 * grows with the object: moto reads the whole object for every ranged GET) and the body's
 * rate. The rest is then split into parts large enough that starting one costs at most a
 * quarter of its transfer time (part ≥ 4 × ttfb × rate), never smaller than `partSize`, and
 * one part when that covers the rest: a single stream. A store that starts requests cheaply
 * (S3, GCS, gofakes3) gets `partSize` parts and all the parallelism; one that pays per
 * request gets few large parts, so the default is not slower than one stream.
 */
import type { ByteRange } from './provider.js';

/** Part transfer time per request start cost the plan keeps to (see above). */
export const OVERHEAD_FACTOR = 4;

export interface ProbeTiming {
  /** Bytes of the probe part. */
  bytes: number;
  /** Milliseconds from sending the request to its first body byte. */
  ttfbMs: number;
  /** Milliseconds from the first body byte to the last. */
  bodyMs: number;
}

/** The part size for the rest of an object, from its first part's timing. */
export function adaptivePartSize(probe: ProbeTiming, minPart: number, rest: number): number {
  const bytesPerMs = probe.bytes / Math.max(probe.bodyMs, 1);
  const wanted = Math.ceil(OVERHEAD_FACTOR * probe.ttfbMs * bytesPerMs);
  return Math.min(Math.max(rest, 1), Math.max(minPart, wanted));
}

/** `[start, end]` split into inclusive ranges of `part` bytes (the last may be shorter). */
export function splitRanges(start: number, end: number, part: number): ByteRange[] {
  const out: ByteRange[] = [];
  for (let s = start; s <= end; s += part) out.push({ start: s, end: Math.min(end, s + part - 1) });
  return out;
}
