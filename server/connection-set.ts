/**
 * The connections a server has open, oldest first, with how many requests each has in
 * progress: the policy behind the REST and gRPC connection limits. When a new connection
 * would pass the bound, the oldest one with no request in progress (an idle keep-alive
 * connection, or one still sending its headers) is closed to make room; only when every
 * connection is busy is the new one refused. So floods of idle or header-only connections
 * can neither exhaust file descriptors nor lock out the kubelet's probes, and a request
 * being served is never cut to make room.
 *
 * Single-threaded (event loop) use; `C` is whatever the transport calls a connection.
 */
export class ConnectionSet<C extends { destroy(): void }> {
  // Insertion order is age order: the first idle one found is the oldest.
  readonly #open = new Set<C>();
  readonly #busy = new Map<C, number>();

  constructor(readonly max: number) {}

  /** Admits a new connection, closing the oldest idle one if needed; false (and `c` destroyed) when all are busy. */
  admit(c: C): boolean {
    if (this.#open.size >= this.max) {
      const victim = this.#oldestIdle();
      if (victim === undefined) {
        c.destroy();
        return false;
      }
      this.#open.delete(victim);
      victim.destroy();
    }
    this.#open.add(c);
    return true;
  }

  /** The connection closed (for any reason). */
  closed(c: C): void {
    this.#open.delete(c);
    this.#busy.delete(c);
  }

  /** A request started on `c`. */
  begin(c: C): void {
    this.#busy.set(c, (this.#busy.get(c) ?? 0) + 1);
  }

  /** A request on `c` ended (its response closed). */
  end(c: C): void {
    const n = (this.#busy.get(c) ?? 1) - 1;
    if (n <= 0) this.#busy.delete(c);
    else this.#busy.set(c, n);
  }

  /** Closes every connection with no request in progress (shutdown). */
  closeIdle(): void {
    for (const c of this.#open) if (!this.#busy.has(c)) c.destroy();
  }

  get size(): number {
    return this.#open.size;
  }

  #oldestIdle(): C | undefined {
    for (const c of this.#open) if (!this.#busy.has(c)) return c;
    return undefined;
  }
}
