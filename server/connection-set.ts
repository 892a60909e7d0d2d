/**
 * The connections a server has open, oldest first, with how many requests each has in
 * progress: the policy behind the REST and gRPC connection limits, counted from accept
 * (over TLS, before the handshake). When a new connection would pass the bound, one is
 * closed to make room, in this order:
 *   1. the oldest with no request in progress (an idle keep-alive connection, one still
 *      sending its headers or its TLS handshake, or silent);
 *   2. the oldest whose requests are all still being received (a stalled body or message);
 * and only when every connection has a request being served (received whole, running or
 * answering) is the new one refused. So no flood of idle, silent, header-only or stalled
 * connections can lock out the kubelet's probes or a client, and a request being served is
 * never cut to make room.
 *
 * Single-threaded (event loop) use; `C` is whatever the transport calls a connection.
 */
export type Eviction = 'idle' | 'receiving';

export interface ConnectionPolicy<C> {
  readonly max: number;
  /** Whether every request in progress on `c` is still being received; asked only when the set is full. */
  receiving(c: C): boolean;
  /** Closes `c`: to make room (`idle`, `receiving`: a transport may answer a request being received first), or refused. */
  close(c: C, why: Eviction | 'refused'): void;
  /** The bound acted: what it closed. */
  acted(what: Eviction | 'refused'): void;
}

export class ConnectionSet<C> {
  // Insertion order is age order: the first one found is the oldest.
  readonly #open = new Set<C>();
  readonly #busy = new Map<C, number>();
  readonly #policy: ConnectionPolicy<C>;

  constructor(policy: ConnectionPolicy<C>) {
    this.#policy = policy;
  }

  /** Admits a new connection, closing another to make room if needed; false (and `c` closed) when none can go. */
  admit(c: C): boolean {
    if (this.#open.size >= this.#policy.max) {
      const victim = this.#victim();
      if (victim === undefined) {
        this.#policy.close(c, 'refused');
        this.#policy.acted('refused');
        return false;
      }
      this.#open.delete(victim.c);
      this.#policy.close(victim.c, victim.why);
      this.#policy.acted(victim.why);
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

  /** Requests in progress on `c`. */
  inProgress(c: C): number {
    return this.#busy.get(c) ?? 0;
  }

  /** Connections with a request in progress. */
  busy(): IterableIterator<C> {
    return this.#busy.keys();
  }

  /** Closes every connection with no request in progress (shutdown). */
  closeIdle(): void {
    for (const c of this.#open) if (!this.#busy.has(c)) this.#policy.close(c, 'idle');
  }

  get size(): number {
    return this.#open.size;
  }

  /** The oldest idle connection, else the oldest still receiving; one pass, asking `receiving` until one says yes. */
  #victim(): { c: C; why: Eviction } | undefined {
    let receiving: C | undefined;
    for (const c of this.#open) {
      if (!this.#busy.has(c)) return { c, why: 'idle' };
      if (receiving === undefined && this.#policy.receiving(c)) receiving = c;
    }
    return receiving === undefined ? undefined : { c: receiving, why: 'receiving' };
  }
}
