/**
 * How many requests run at once, chosen like the part size: from what the run measures.
 *
 * Fixed (STORAGE_CONCURRENCY=N or --concurrency N): N requests, as before.
 * Adaptive (the default): the run starts with `initialConcurrency(cpus)` requests, one per
 * core and at least two (one request's start-up hidden behind another's stream; on a small
 * node a CPU-bound client gains nothing from more, and loses to their overhead) and measures the aggregate download rate over windows of at
 * least `minWindowMs` in which at least `limit` tasks finished (every running request has
 * turned over once). While doubling the requests raises the rate by `gain` or more (a store
 * or link limited per connection, as S3 over a WAN), it doubles again, up to the maximum and
 * never past the tasks there are to run; the first doubling that does not pay is undone
 * when it made things worse, and the limit then stays. The plan therefore starts at a
 * parallelism that measured well against both a per-request-costly store (moto) and a
 * fast one (gofakes3), and only ever moves to a rate it has measured to be higher.
 */

/** Requests the adaptive plan starts with on a node with `cpus` cores. */
export function initialConcurrency(cpus: number, max: number): number {
  return Math.min(max, Math.max(2, Math.min(16, cpus)));
}

export interface AdaptiveOptions {
  start: number;
  max: number;
  /** Smallest rate ratio that counts as an improvement. */
  gain: number;
  minWindowMs: number;
}

export const ADAPTIVE_DEFAULTS = Object.freeze({ gain: 1.15, minWindowMs: 500 });

export class AdaptiveConcurrency {
  private limitNow: number;
  private previous: { limit: number; rate: number } | undefined;
  private frozen = false;
  private window: { startMs: number; startBytes: number; tasks: number } | undefined;

  constructor(private readonly o: AdaptiveOptions) {
    this.limitNow = Math.max(1, Math.min(o.start, o.max));
  }

  get limit(): number {
    return this.limitNow;
  }

  get settled(): boolean {
    return this.frozen;
  }

  /**
   * One task finished: `bytes` downloaded so far, at `nowMs`, with `demand` tasks still
   * running or queued. Returns the new limit when it changes.
   */
  taskDone(bytes: number, nowMs: number, demand: number): number | undefined {
    if (this.frozen) return undefined;
    const w = (this.window ??= { startMs: nowMs, startBytes: bytes, tasks: 0 });
    w.tasks++;
    if (w.tasks < this.limitNow || nowMs - w.startMs < this.o.minWindowMs) return undefined;
    const rate = (bytes - w.startBytes) / (nowMs - w.startMs);
    this.window = { startMs: nowMs, startBytes: bytes, tasks: 0 };
    // Too few tasks to use more requests: judged again once the demand grows (a probed
    // object's remaining parts arrive).
    if (demand <= this.limitNow) return undefined;
    const prev = this.previous;
    if (prev && rate < prev.rate * this.o.gain) {
      // The last doubling did not pay: keep it only if it did not hurt.
      this.frozen = true;
      if (rate < prev.rate) {
        this.limitNow = prev.limit;
        return this.limitNow;
      }
      return undefined;
    }
    const next = Math.min(this.o.max, this.limitNow * 2);
    if (next <= this.limitNow) {
      this.frozen = true;
      return undefined;
    }
    this.previous = { limit: this.limitNow, rate };
    this.limitNow = next;
    return next;
  }
}
