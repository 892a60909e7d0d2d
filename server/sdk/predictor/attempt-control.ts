/**
 * One forwarded attempt's end conditions in one AbortSignal: its timeout, and the
 * transformer's client going away (a polled ClientSignal, client-signal.ts, checked every
 * POLL_MS while the attempt runs). `why` says which fired, so the caller reports
 * PredictorTimeout or Cancelled rather than a transport error.
 */
import type { ClientSignal } from '../../client-signal.js';

/** As WorkerSession's poll of queued jobs: one timer per call in flight, not per request. */
const POLL_MS = 20;

export type AbortCause = 'timeout' | 'cancelled';

export class AttemptControl {
  readonly #controller = new AbortController();
  readonly #timer: NodeJS.Timeout;
  readonly #poll: NodeJS.Timeout | undefined;
  #why: AbortCause | undefined;

  constructor(timeoutMs: number, client: ClientSignal | undefined, onAbort?: (why: AbortCause) => void) {
    const abort = (why: AbortCause): void => {
      if (this.#why !== undefined) return;
      this.#why = why;
      this.dispose();
      this.#controller.abort(new Error(why));
      onAbort?.(why);
    };
    this.#timer = setTimeout(() => abort('timeout'), timeoutMs);
    if (client !== undefined) {
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
    clearTimeout(this.#timer);
    if (this.#poll !== undefined) clearInterval(this.#poll);
  }
}
