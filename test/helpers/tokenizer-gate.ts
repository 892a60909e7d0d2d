/**
 * A gate in the tokenizer worker of every text model a test server loads: the real text
 * backend tokenizes with its real worker, but while the test holds the gate each tokenization
 * waits in that worker's thread, synchronously, as a long tokenization of a large input list
 * would (Atomics.wait on a shared buffer: server/backends/text/tokenizer-worker.ts). Had the
 * tokenization run on the main thread, the wait would hold the server's event loop (and the
 * test's) until its bound ran out, which `timedOut` counts: so a request the server answers
 * while the gate holds proves that tokenization runs off the event loop, on any machine.
 */
import { BackendRegistry } from '../../server/backend/backend-registry.js';
import { createTextBackend } from '../../server/backends/text/text-backend.js';
import { defaultBackends } from '../../server/server.js';
import { waitFor } from './wait-for.js';

/** Words of the shared buffer, as tokenizer-worker.ts reads them. */
const HOLDING = 0;
const WAITING = 1;
const TIMED_OUT = 2;

export class TokenizerGate {
  readonly #words = new Int32Array(new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT));

  /** From now on, each tokenization waits in its worker until `release`. */
  hold(): void {
    Atomics.store(this.#words, HOLDING, 1);
  }

  /** Lets every waiting tokenization go on and stops holding. */
  release(): void {
    Atomics.store(this.#words, HOLDING, 0);
    Atomics.notify(this.#words, HOLDING);
  }

  /** Tokenizations waiting at the gate now. */
  get waiting(): number {
    return Atomics.load(this.#words, WAITING);
  }

  /** Waits that ran out of their bound instead of being released (0 unless something held a thread the test needed). */
  get timedOut(): number {
    return Atomics.load(this.#words, TIMED_OUT);
  }

  /** Resolves once `n` tokenizations wait at the gate (bounded: fails as a timeout). */
  async untilHeld(n: number, timeoutMs = 60_000): Promise<void> {
    await waitFor(() => this.waiting >= n, { timeoutMs, intervalMs: 5, description: `${n} tokenizations held at the gate` });
  }

  /** The default backends, the text backend's tokenizer workers passing this gate. */
  backends(): BackendRegistry {
    const registry = new BackendRegistry();
    for (const b of defaultBackends().all()) registry.register(b.name === 'text' ? createTextBackend({ tokenizerHold: this.#words.buffer }) : b);
    return registry;
  }
}
