/**
 * The receive deadline of REST bodies and gRPC request messages: requests still being
 * received are sampled by one timer per server, and one that received no byte for
 * `stallMs` (a stalled upload), or has not been received whole within `deadlineMs` when one
 * is given (a trickle), is expired. Progress is read, not pushed: the transports add nothing
 * per chunk or per request for it, and no timer runs while nothing is being received.
 */
export type Expiry = 'stalled' | 'deadline';

export interface StallPolicy<R> {
  /** No byte for this long (ms) expires a request; 0 = never. */
  readonly stallMs: number;
  /** Not received whole within this long (ms) expires a request; 0 or absent = never. */
  readonly deadlineMs?: number;
  /** The requests that may still be receiving (the watch skips those `received` says are whole). */
  candidates(): Iterable<R>;
  /** Whether `r` has been received whole. */
  received(r: R): boolean;
  /** Any counter that grows while bytes of `r` arrive. */
  progress(r: R): number;
  /** Ends `r` (answers it and closes what it needs to). */
  expire(r: R, why: Expiry): void;
}

interface Seen {
  readonly bytes: number;
  /** When `bytes` was first seen (ms). */
  readonly since: number;
  /** When the request was first seen receiving (ms). */
  readonly first: number;
}

export class StallWatch<R> {
  readonly #policy: StallPolicy<R>;
  readonly #periodMs: number;
  #seen = new Map<R, Seen>();
  #timer: NodeJS.Timeout | undefined;

  constructor(policy: StallPolicy<R>) {
    this.#policy = policy;
    const shortest = Math.min(...[policy.stallMs, policy.deadlineMs ?? 0].filter((ms) => ms > 0));
    // Acts between the bound and 1.5× it (at most a second late), as Node's own request timeouts.
    this.#periodMs = Number.isFinite(shortest) ? Math.max(10, Math.min(1000, shortest / 2)) : 0;
  }

  /** A request may have begun receiving: sampling runs until none is. */
  wake(): void {
    if (this.#periodMs === 0 || this.#timer !== undefined) return;
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
    const next = new Map<R, Seen>();
    const expired: [R, Expiry][] = [];
    for (const r of this.#policy.candidates()) {
      if (this.#policy.received(r)) continue;
      const bytes = this.#policy.progress(r);
      const seen = this.#seen.get(r);
      const first = seen?.first ?? now;
      const since = seen === undefined || seen.bytes !== bytes ? now : seen.since;
      if (stallMs > 0 && now - since >= stallMs) expired.push([r, 'stalled']);
      else if (deadlineMs > 0 && now - first >= deadlineMs) expired.push([r, 'deadline']);
      else next.set(r, { bytes, since, first });
    }
    this.#seen = next;
    // Expiring closes connections, which changes what `candidates` iterates: after the walk.
    for (const [r, why] of expired) this.#policy.expire(r, why);
    if (next.size === 0) this.stop();
  }
}
