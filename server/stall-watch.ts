/**
 * Requests waiting on their client, sampled by one timer per server: one whose bytes have
 * not moved for `stallMs` (a stalled upload: the receive timeout; a response the client does
 * not read: the send timeout), or that still waits after `deadlineMs` when one is given (a
 * trickle), is expired. Progress is read, not pushed: the transports add nothing per chunk
 * for it, and no timer runs while no request is in progress.
 */
export type Expiry = 'stalled' | 'deadline';

export interface StallPolicy<R> {
  /** No byte for this long (ms) expires a request; 0 = never. */
  readonly stallMs: number;
  /** Not received whole within this long (ms) expires a request; 0 or absent = never. */
  readonly deadlineMs?: number;
  /** The requests in progress (the watch skips those not `waiting`). */
  candidates(): Iterable<R>;
  /** Whether `r` waits on its client now (its request is still arriving, or its response cannot be written). */
  waiting(r: R): boolean;
  /** Any number that changes while bytes of `r` move. */
  progress(r: R): number;
  /** Ends `r` (answers it and closes what it needs to). */
  expire(r: R, why: Expiry): void;
}

interface Seen {
  readonly bytes: number;
  /** When `bytes` was first seen (ms). */
  readonly since: number;
  /** When the request was first seen waiting (ms). */
  readonly first: number;
}

export class StallWatch<R> {
  readonly #policy: StallPolicy<R>;
  readonly #periodMs: number;
  #seen = new Map<R, Seen>();
  #timer: NodeJS.Timeout | undefined;
  #lastSweep = 0;

  constructor(policy: StallPolicy<R>) {
    this.#policy = policy;
    const shortest = Math.min(...[policy.stallMs, policy.deadlineMs ?? 0].filter((ms) => ms > 0));
    // Acts between the bound and 1.5× it (at most a second late), as Node's own request timeouts.
    this.#periodMs = Number.isFinite(shortest) ? Math.max(10, Math.min(1000, shortest / 2)) : 0;
  }

  /** A request began: sampling runs until none is in progress. */
  wake(): void {
    if (this.#periodMs === 0 || this.#timer !== undefined) return;
    this.#lastSweep = Date.now();
    this.#timer = setInterval(() => this.#sweep(), this.#periodMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#seen.clear();
  }

  #sweep(): void {
    const { stallMs, deadlineMs = 0 } = this.#policy;
    const now = Date.now();
    // A late sweep means this process was not running (a long GC, a starved CPU): bytes the
    // kernel holds for it were not read either, so that time is not counted as a stall.
    const late = now - this.#lastSweep > 2 * this.#periodMs;
    this.#lastSweep = now;
    const next = new Map<R, Seen>();
    const expired: [R, Expiry][] = [];
    let inProgress = 0;
    for (const r of this.#policy.candidates()) {
      inProgress++;
      if (!this.#policy.waiting(r)) continue;
      const bytes = this.#policy.progress(r);
      const seen = this.#seen.get(r);
      const first = seen?.first ?? now;
      const since = seen === undefined || seen.bytes !== bytes || late ? now : seen.since;
      if (stallMs > 0 && now - since >= stallMs) expired.push([r, 'stalled']);
      else if (deadlineMs > 0 && now - first >= deadlineMs) expired.push([r, 'deadline']);
      else next.set(r, { bytes, since, first });
    }
    this.#seen = next;
    // Expiring closes connections, which changes what `candidates` iterates: after the walk.
    for (const [r, why] of expired) this.#policy.expire(r, why);
    if (inProgress === 0) this.stop();
  }
}
