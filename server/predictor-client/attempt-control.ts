/**
 * One forwarded attempt's end conditions in one AbortSignal: its timeout (none when
 * Infinity), and the caller's client going away: a polled ClientSignal (client-signal.ts,
 * checked every POLL_MS while the attempt runs), or an AbortSignal where the caller has a
 * real event (the graph router). `why` says which fired, so the caller reports
 * PredictorTimeout or Cancelled rather than a transport error.
 */
import type { ClientSignal } from '../client-signal.js';

/** As WorkerSession's poll of queued jobs: one timer per call in flight, not per request. */
const POLL_MS = 20;

export type AbortCause = 'timeout' | 'cancelled';

export class AttemptControl {
  readonly #controller = new AbortController();
  readonly #timer: NodeJS.Timeout | undefined;
  readonly #poll: NodeJS.Timeout | undefined;
  readonly #unlisten: (() => void) | undefined;
  #why: AbortCause | undefined;

  constructor(timeoutMs: number, client: ClientSignal | AbortSignal | undefined, onAbort?: (why: AbortCause) => void) {
    const abort = (why: AbortCause): void => {
      if (this.#why !== undefined) return;
      this.#why = why;
      this.dispose();
      this.#controller.abort(new Error(why));
      onAbort?.(why);
    };
    if (Number.isFinite(timeoutMs)) this.#timer = setTimeout(() => abort('timeout'), timeoutMs);
    if (client instanceof AbortSignal) {
      const onClientAbort = (): void => abort('cancelled');
      client.addEventListener('abort', onClientAbort, { once: true });
      this.#unlisten = () => client.removeEventListener('abort', onClientAbort);
      if (client.aborted) abort('cancelled');
    } else if (client !== undefined) {
      this.#poll = setInterval(() => {
        if (client.aborted) abort('cancelled');
      }, POLL_MS);
    }
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get why(): AbortCause | undefined {
    return this.#why;
  }

  dispose(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    if (this.#poll !== undefined) clearInterval(this.#poll);
    this.#unlisten?.();
  }
}
