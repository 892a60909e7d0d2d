/**
 * Large request buffers, reused. A transport that receives a large message (a raw tensor of
 * hundreds of KiB) takes its buffer here; the buffer moves to the model's worker with the
 * request (transferred, not copied) and the worker hands it back once the model has run
 * (server/workers: a results message's `returned`), so the next message of that size class
 * lands in memory that is already mapped and already counted by V8.
 *
 * Why: a fresh ArrayBuffer per call is external memory V8 must account for, and its growth
 * is what started the main thread's mark-compacts (about one per 20–40 calls of a 588 KiB
 * tensor, benchmarks/RESULTS.md "Performance round 3"), the long tail of every large-tensor
 * row. A buffer handed back is a new ArrayBuffer object on this thread (transfer detaches
 * the old one for good), so views left on the old object can never see the next request.
 *
 * Sizes are rounded up to one of eight classes per power of two (at most 12.5% unused), and
 * what the pool keeps is bounded (MAX_POOLED_BYTES; MAX_PER_CLASS per class): a buffer given
 * back past either bound is left to the garbage collector.
 */

/** Smaller buffers come from Node's shared pool and are never taken here. */
export const POOLED_MIN = 64 * 1024;
/** Larger ones are not kept: rare enough that reuse would only hold memory. */
export const POOLED_MAX = 64 * 1024 * 1024;
const MAX_POOLED_BYTES = 64 * 1024 * 1024;
const MAX_PER_CLASS = 32;
const STEPS_PER_POWER = 8;

const free = new Map<number, ArrayBuffer[]>();
let pooledBytes = 0;

/** The class size `bytes` rounds up to (bytes itself outside the pooled range). */
export function sizeClass(bytes: number): number {
  if (bytes < POOLED_MIN || bytes > POOLED_MAX) return bytes;
  const power = 2 ** Math.floor(Math.log2(bytes));
  const step = power / STEPS_PER_POWER;
  return Math.ceil(bytes / step) * step;
}

/** An ArrayBuffer of at least `bytes` (its class size), its contents unspecified. */
export function takeBuffer(bytes: number): ArrayBuffer {
  const size = sizeClass(bytes);
  const reused = free.get(size)?.pop();
  if (reused !== undefined) {
    pooledBytes -= size;
    return reused;
  }
  // allocUnsafeSlow: an ArrayBuffer of its own, not zero-filled (the caller writes it).
  return Buffer.allocUnsafeSlow(size).buffer;
}

/** Gives back a buffer no view will read again (one just received back from a worker). */
export function giveBuffer(buffer: ArrayBuffer): void {
  const size = buffer.byteLength;
  if (size < POOLED_MIN || size > POOLED_MAX || sizeClass(size) !== size) return;
  const list = free.get(size) ?? [];
  if (list.length >= MAX_PER_CLASS || pooledBytes + size > MAX_POOLED_BYTES) return;
  list.push(buffer);
  free.set(size, list);
  pooledBytes += size;
}

/** Bytes held for reuse now (tests, metrics). */
export function pooledBufferBytes(): number {
  return pooledBytes;
}
