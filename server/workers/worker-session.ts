/**
 * The main-thread side of a model worker: one worker thread that owns one runtime session
 * (onnxruntime, TensorFlow) and runs jobs for it, so that native work never blocks the
 * server's event loop. Backends decide what a job (`J`) and its result (`R`) are and how the
 * worker loads; this class owns the plumbing. The worker side is server/workers/worker-loop.ts, the
 * envelope server/workers/worker-messages.ts.
 *
 * Contract:
 * - Ordering: jobs reach the worker in the order `run` was called. Jobs submitted during one
 *   event-loop turn travel in one message; the worker runs them one at a time, in order, and
 *   returns results in batches. Each job settles its own promise.
 * - Ownership: the buffers passed to `run` as `transfer` are detached when the batch is
 *   posted (on the next turn); the caller must not read them after calling `run`. A result's
 *   buffers were transferred from the worker and belong to the caller.
 * - Failure: a job the worker reports as failed rejects with the catalogue error it threw
 *   there (same kind and message; a runtime's own exception becomes an InferenceError);
 *   other jobs are unaffected. If the worker dies (an error, or an exit `unload` did
 *   not ask for), every pending job rejects (an internal error, or the backend's `gone`),
 *   later calls to `run` reject at once, and the `onFailure` listeners are called once.
 *   `unload` is not a failure.
 * - Cancellation: a job whose client goes away (`run`'s signal) is answered Cancelled at
 *   once; the worker skips it if it has not started, and aborts its signal if it runs.
 */
import type { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { isDetachable } from '../../protocols/buffer-ownership.js';
import { giveBuffer } from '../../protocols/buffer-pool.js';
import type { NumericArray } from '../../protocols/datatypes.js';
import { KServeError, errors, fromWireError } from '../../protocols/errors.js';
import type { FromWorker, RunJob, ToWorker } from './worker-messages.js';
import type { ClientSignal } from '../client-signal.js';

export interface WorkerSessionOptions {
  /** Names the runtime in errors and logs: "onnx" gives "onnx worker exited with code 1". */
  readonly label: string;
  readonly modelName: string;
  readonly logger: Logger;
  /** Rewrites the worker's load error where the backend knows what it means. */
  readonly explainLoadError?: (message: string) => string;
  /**
   * What jobs answer once the worker is gone (pending ones and later calls), given why it
   * went. Default: an internal error ("model worker failed: ..." / "model worker is gone: ...").
   */
  readonly gone?: (cause: Error) => KServeError;
}

/** How long `unload` waits for the worker to close before terminating it (ms). */
const CLOSE_TIMEOUT_MS = 5000;
/** How often jobs waiting for the worker are checked for clients that went away (ms). */
export const CANCEL_POLL_MS = 20;

interface Pending<R> {
  resolve(result: R): void;
  reject(err: Error): void;
  readonly signal: ClientSignal | undefined;
}

export class WorkerSession<J, R> {
  readonly #worker: Worker;
  readonly #options: WorkerSessionOptions;
  readonly #pending = new Map<number, Pending<R>>();
  #nextId = 1;
  #dead: Error | undefined;
  #failureListeners: Array<(err: Error) => void> = [];
  #closing = false;
  #batch: Array<RunJob<J>> = [];
  #batchTransfer: ArrayBuffer[] = [];
  #flushScheduled = false;
  #cancelPoll: NodeJS.Timeout | undefined;

  /** Takes over a freshly spawned worker; call `ready` before `run`. */
  constructor(worker: Worker, options: WorkerSessionOptions) {
    this.#worker = worker;
    this.#options = options;
    worker.on('message', (msg: FromWorker<unknown, R>) => this.#onMessage(msg));
    worker.on('error', (err) => this.#fail(err));
    worker.on('exit', (code) => this.#fail(new Error(`${options.label} worker exited with code ${code}`)));
  }

  /**
   * Waits for the worker's load report and logs its warnings. `accept` turns the report into
   * what the backend keeps (e.g. tensor specs); if loading or `accept` fails, the worker is
   * terminated and the error thrown. Call once.
   */
  async ready<L, T>(accept: (loaded: L) => T): Promise<T> {
    const worker = this.#worker;
    const { label, modelName, logger, explainLoadError = (m: string) => m } = this.#options;
    try {
      const report = await new Promise<{ loaded: L; warnings: string[] }>((resolve, reject) => {
        const onExit = (code: number) => reject(new Error(`${label} worker exited with code ${code} while loading`));
        worker.once('error', reject);
        worker.once('exit', onExit);
        worker.once('message', (msg: FromWorker<L, R>) => {
          worker.off('error', reject);
          worker.off('exit', onExit);
          if (msg.op === 'loaded') resolve(msg);
          else if (msg.op !== 'load-failed') reject(new Error(`unexpected message ${msg.op}`));
          // A catalogue error keeps its kind, as when the backend loads on the main thread.
          else reject(msg.kind === undefined ? new Error(explainLoadError(msg.message)) : new KServeError(msg.kind, explainLoadError(msg.message)));
        });
      });
      for (const w of report.warnings) logger.warn({ model: modelName }, w);
      return accept(report.loaded);
    } catch (e) {
      await worker.terminate();
      throw e;
    }
  }

  /**
   * Queues one job; `transfer` lists the buffers of `job` to move rather than copy. When
   * `signal` reports its client gone (checked every CANCEL_POLL_MS while the job is
   * pending), the promise rejects with the Cancelled kind and the job is dropped if it has
   * not started (from this turn's batch, or in the worker through a cancel message); a job
   * already running sees its signal in the worker aborted (JobRunner.run), and whatever it
   * answers is discarded.
   */
  run(job: J, transfer: readonly ArrayBuffer[] = [], signal?: ClientSignal): Promise<R> {
    if (this.#dead !== undefined) return Promise.reject(this.#options.gone?.(this.#dead) ?? errors.internal(`model worker is gone: ${this.#dead.message}`));
    if (signal?.aborted === true) return Promise.reject(errors.cancelled(this.#options.modelName));
    const id = this.#nextId++;
    return new Promise<R>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, signal });
      if (signal !== undefined) this.#pollCancels();
      this.#batch.push({ id, job });
      for (const b of transfer) this.#batchTransfer.push(b);
      if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  /** Checks the waiting jobs for clients that went away, while any job with a signal waits. */
  #pollCancels(): void {
    if (this.#cancelPoll !== undefined) return;
    this.#cancelPoll = setTimeout(() => {
      this.#cancelPoll = undefined;
      let watching = false;
      for (const [id, p] of this.#pending) {
        if (p.signal === undefined) continue;
        if (p.signal.aborted) this.#cancel(id);
        else watching = true;
      }
      if (watching) this.#pollCancels();
    }, CANCEL_POLL_MS);
    // Never keeps the process alive on its own.
    this.#cancelPoll.unref();
  }

  /** Answers job `id` as cancelled now and makes sure it never starts. */
  #cancel(id: number): void {
    const p = this.#pending.get(id);
    if (p === undefined) return;
    this.#pending.delete(id);
    const queued = this.#batch.findIndex((j) => j.id === id);
    // Still in this turn's batch: it never leaves the main thread (its buffers stay listed for
    // transfer with the batch, which is harmless).
    if (queued >= 0) this.#batch.splice(queued, 1);
    else if (this.#dead === undefined) this.#worker.postMessage({ op: 'cancel', ids: [id] } satisfies ToWorker<J>);
    p.reject(errors.cancelled(this.#options.modelName));
  }

  /** Sends every job queued during this event-loop turn in one message. */
  #flush(): void {
    this.#flushScheduled = false;
    const jobs = this.#batch;
    const transfer = this.#batchTransfer;
    this.#batch = [];
    this.#batchTransfer = [];
    if (jobs.length === 0 || this.#dead !== undefined) return;
    const msg: ToWorker<J> = { op: 'run', jobs };
    this.#worker.postMessage(msg, transfer);
  }

  /** Lets queued jobs finish, closes the runtime and waits for the worker to exit. */
  async unload(): Promise<void> {
    if (this.#dead !== undefined) return;
    this.#flush();
    this.#closing = true;
    const exited = new Promise<void>((resolve) => this.#worker.once('exit', () => resolve()));
    const msg: ToWorker<J> = { op: 'close' };
    this.#worker.postMessage(msg);
    const timer = setTimeout(() => void this.#worker.terminate(), CLOSE_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }

  onFailure(listener: (err: Error) => void): void {
    this.#failureListeners.push(listener);
  }

  #onMessage(msg: FromWorker<unknown, R>): void {
    if (msg.op !== 'results') return;
    for (const b of msg.returned ?? []) giveBuffer(b);
    for (const r of msg.results) {
      const p = this.#pending.get(r.id);
      if (p === undefined) continue;
      this.#pending.delete(r.id);
      if ('error' in r) p.reject(fromWireError(r.error));
      else p.resolve(r.result);
    }
  }

  #fail(err: Error): void {
    if (this.#dead !== undefined) return;
    this.#dead = err;
    // An exit we asked for (unload) is not a failure.
    if (!this.#closing) for (const l of this.#failureListeners) l(err);
    if (this.#pending.size > 0) {
      this.#options.logger.error({ err: err.message }, `${this.#options.label} worker failed with requests in flight`);
    }
    for (const p of this.#pending.values()) p.reject(this.#options.gone?.(err) ?? errors.internal(`model worker failed: ${err.message}`));
    this.#pending.clear();
  }
}

/**
 * Prepares one input array for `run`, adding what moves to `transfer`: a buffer the array
 * owns whole, or one the transport marked detachable, is transferred as it is; a view on a
 * shared buffer (e.g. Node's Buffer pool) is copied once and the copy transferred; a
 * SharedArrayBuffer is shared, not copied.
 */
export function transferInput<T extends NumericArray>(data: T, transfer: Set<ArrayBuffer>): T {
  const buf = data.buffer;
  const whole = data.byteOffset === 0 && data.byteLength === buf.byteLength;
  if (buf instanceof ArrayBuffer && (whole || isDetachable(buf))) {
    transfer.add(buf);
    return data;
  }
  if (buf instanceof SharedArrayBuffer) return data;
  const copy = data.slice() as T;
  transfer.add(copy.buffer as ArrayBuffer);
  return copy;
}
