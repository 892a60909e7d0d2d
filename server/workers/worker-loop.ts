/**
 * The worker-thread side of a model worker (see worker-session.ts for the contract). A
 * backend's worker entry calls `serveJobs` with a loader; this module answers the load
 * handshake, runs jobs (one at a time in arrival order, or side by side for a runner that
 * says `concurrent`), returns results in batches, tells a running job that its client went
 * away, and closes the runtime on request.
 */
import { parentPort } from 'node:worker_threads';
import type { NumericArray } from '../../protocols/datatypes.js';
import { KServeError, toWireError } from '../../protocols/errors.js';
import type { ClientSignal } from '../client-signal.js';
import type { FromWorker, JobResult, RunJob, ToWorker } from './worker-messages.js';

export interface JobRunner<J, R> {
  /**
   * Runs one job; adds the buffers of its result that should move (not copy) to `transfer`.
   * `signal` turns aborted when the job's client goes away while it runs (a native session
   * ignores it; a custom model's hooks read it as `request.signal`).
   */
  run(job: J, transfer: Set<ArrayBuffer>, signal: ClientSignal): Promise<R>;
  /**
   * The buffers of `job`'s inputs that this thread owns, listed once the job has finished:
   * they go back to the main thread with the results for reuse (protocols/buffer-pool.ts).
   * Only for runtimes that keep no reference to their inputs after a run.
   */
  spent?(job: J): Iterable<ArrayBuffer>;
  /** Releases the runtime; called once, after every queued and running job has finished. */
  close(): void | Promise<void>;
  /**
   * Starts each job as it arrives instead of after the one before has finished, for jobs
   * that await I/O (a custom model's async hooks). Default false: one at a time, in order
   * (a native session runs one inference at a time anyway).
   */
  readonly concurrent?: boolean;
}

export interface LoadedWorker<L, J, R> {
  /** What the main thread learns about the model (signatures, tensor specs, ...). */
  readonly loaded: L;
  readonly runner: JobRunner<J, R>;
}

/** The signal of one job: a class, as ClientSignal asks (client-signal.ts). */
class JobSignal implements ClientSignal {
  aborted = false;
}

/** Results are flushed when a batch is done, or sooner once a batch has run this long (ms). */
const FLUSH_AFTER_MS = 2;

type Post<L, R> = (msg: FromWorker<L, R>, transfer?: ArrayBuffer[]) => void;

/**
 * Loads the model with `load` (which may push warnings for the main thread to log) and
 * serves jobs until asked to close. A load that throws is reported, and nothing is served.
 */
export async function serveJobs<L, J, R>(load: (warnings: string[]) => Promise<LoadedWorker<L, J, R>>): Promise<void> {
  const port = parentPort;
  if (port === null) throw new Error('serveJobs must run in a worker thread');
  const post: Post<L, R> = (msg, transfer = []) => port.postMessage(msg, transfer);
  let runner: JobRunner<J, R>;
  const warnings: string[] = [];
  try {
    const loaded = await load(warnings);
    runner = loaded.runner;
    post({ op: 'loaded', loaded: loaded.loaded, warnings });
  } catch (e) {
    post({ op: 'load-failed', message: (e as Error).message, kind: e instanceof KServeError ? e.kind : undefined });
    return;
  }
  const jobs = new Jobs(runner, post);
  port.on('message', (msg: ToWorker<J>) => {
    if (msg.op === 'close') void jobs.close().finally(() => port.close());
    else if (msg.op === 'cancel') jobs.cancel(msg.ids);
    else jobs.add(msg.jobs);
  });
}

/**
 * The jobs of one worker. Cancel messages are handled between jobs (each run yields to this
 * thread's event loop; a concurrent runner's jobs start on the next turn, after the messages
 * already waiting), so a job not started yet is skipped. Ids grow and jobs start in id
 * order, so a cancel for an id at or below the last one started that is not running any
 * more came too late and is dropped: the set only ever holds jobs still to come.
 */
class Jobs<L, J, R> {
  readonly #runner: JobRunner<J, R>;
  readonly #post: Post<L, R>;
  readonly #cancelled = new Set<number>();
  readonly #running = new Map<number, JobSignal>();
  #lastStarted = 0;
  /** Serial runners: the batches, one after the other. */
  #queue: Promise<void> = Promise.resolve();
  /** Concurrent runners: every job started and not finished. */
  readonly #inFlight = new Set<Promise<void>>();

  constructor(runner: JobRunner<J, R>, post: Post<L, R>) {
    this.#runner = runner;
    this.#post = post;
  }

  add(batch: ReadonlyArray<RunJob<J>>): void {
    if (this.#runner.concurrent !== true) {
      this.#queue = this.#queue.then(() => this.#runSerially(batch));
      return;
    }
    setImmediate(() => {
      for (const { id, job } of batch) {
        const returned = new Set<ArrayBuffer>();
        const done = this.#runOne(id, job, new Set(), returned).then((r) => this.#flush([r.result], r.transfer, returned));
        this.#inFlight.add(done);
        void done.finally(() => this.#inFlight.delete(done));
      }
    });
  }

  cancel(ids: readonly number[]): void {
    for (const id of ids) {
      const running = this.#running.get(id);
      if (running !== undefined) running.aborted = true;
      else if (id > this.#lastStarted) this.#cancelled.add(id);
    }
  }

  async close(): Promise<void> {
    await this.#queue;
    // Jobs handed to setImmediate by the last run message start before this turn ends.
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.allSettled([...this.#inFlight]);
    await this.#runner.close();
  }

  /** Runs job `id` unless its client went away first; never rejects. */
  async #runOne(id: number, job: J, transfer: Set<ArrayBuffer>, returned: Set<ArrayBuffer>): Promise<{ result: JobResult<R>; transfer: Set<ArrayBuffer> }> {
    this.#lastStarted = id;
    if (this.#cancelled.delete(id)) {
      // The main thread already answered the caller; the id only keeps the envelope whole.
      return { result: { id, error: toWireError(new Error('cancelled before it ran'), 'Cancelled') }, transfer };
    }
    const signal = new JobSignal();
    this.#running.set(id, signal);
    try {
      return { result: { id, result: await this.#runner.run(job, transfer, signal) }, transfer };
    } catch (e) {
      return { result: { id, error: toWireError(e) }, transfer };
    } finally {
      this.#running.delete(id);
      for (const b of this.#runner.spent?.(job) ?? []) returned.add(b);
    }
  }

  async #runSerially(batch: ReadonlyArray<RunJob<J>>): Promise<void> {
    let results: Array<JobResult<R>> = [];
    let transfer = new Set<ArrayBuffer>();
    let returned = new Set<ArrayBuffer>();
    let since = performance.now();
    for (const { id, job } of batch) {
      results.push((await this.#runOne(id, job, transfer, returned)).result);
      if (performance.now() - since > FLUSH_AFTER_MS) {
        this.#flush(results, transfer, returned);
        results = [];
        transfer = new Set();
        returned = new Set();
        since = performance.now();
      }
    }
    if (results.length > 0) this.#flush(results, transfer, returned);
  }

  #flush(results: Array<JobResult<R>>, transfer: Set<ArrayBuffer>, returned: Set<ArrayBuffer>): void {
    // A buffer that also holds an output goes back as that output, not for reuse.
    const reusable = [...returned].filter((b) => !transfer.has(b) && b.byteLength > 0);
    try {
      this.#post(reusable.length === 0 ? { op: 'results', results } : { op: 'results', results, returned: reusable }, [...transfer, ...reusable]);
    } catch (e) {
      // Never let one unserialisable result take the worker (and every later request) down.
      const error = toWireError(new Error(`cannot return outputs: ${(e as Error).message}`), 'Internal');
      this.#post({ op: 'results', results: results.map((r) => ({ id: r.id, error })) });
    }
  }
}

/**
 * Prepares one output array for the trip back, adding its buffer to `transfer`: copied first
 * when it is a view on a larger or shared buffer (memory the runtime keeps, e.g. a WASM heap).
 */
export function transferOutput<T extends NumericArray>(data: T, transfer: Set<ArrayBuffer>): T {
  const buf = data.buffer;
  const own = buf instanceof ArrayBuffer && data.byteOffset === 0 && data.byteLength === buf.byteLength;
  const out = own ? data : (data.slice() as T);
  transfer.add(out.buffer as ArrayBuffer);
  return out;
}
