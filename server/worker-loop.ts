/**
 * The worker-thread side of a model worker (see worker-session.ts for the contract). A
 * backend's worker entry calls `serveJobs` with a loader; this module answers the load
 * handshake, queues jobs so that they run one at a time in arrival order, returns results
 * in batches and closes the runtime on request.
 */
import { parentPort } from 'node:worker_threads';
import type { NumericArray } from '../protocols/datatypes.js';
import { toWireError } from '../protocols/errors.js';
import type { FromWorker, JobResult, RunJob, ToWorker } from './worker-messages.js';

export interface JobRunner<J, R> {
  /** Runs one job; adds the buffers of its result that should move (not copy) to `transfer`. */
  run(job: J, transfer: Set<ArrayBuffer>): Promise<R>;
  /** Releases the runtime; called once, after every queued job has run. */
  close(): void | Promise<void>;
}

export interface LoadedWorker<L, J, R> {
  /** What the main thread learns about the model (signatures, tensor specs, ...). */
  readonly loaded: L;
  readonly runner: JobRunner<J, R>;
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
    post({ op: 'load-failed', message: (e as Error).message });
    return;
  }
  let queue: Promise<void> = Promise.resolve();
  // Ids of queued jobs whose callers went away. Cancel messages are handled between jobs
  // (each run yields to this thread's event loop), so a job not started yet is skipped.
  // Ids grow and jobs start in id order, so a cancel for an id at or below the last one
  // started came too late and is dropped: the set only ever holds jobs still to come.
  const cancelled = new Set<number>();
  const started = { last: 0 };
  port.on('message', (msg: ToWorker<J>) => {
    if (msg.op === 'close') {
      queue = queue.then(() => runner.close()).finally(() => port.close());
      return;
    }
    if (msg.op === 'cancel') {
      for (const id of msg.ids) if (id > started.last) cancelled.add(id);
      return;
    }
    queue = queue.then(() => runJobs(runner, msg.jobs, post, cancelled, started));
  });
}

async function runJobs<L, J, R>(
  runner: JobRunner<J, R>,
  jobs: ReadonlyArray<RunJob<J>>,
  post: Post<L, R>,
  cancelled: Set<number>,
  started: { last: number },
): Promise<void> {
  let results: Array<JobResult<R>> = [];
  let transfer = new Set<ArrayBuffer>();
  let since = performance.now();
  const flush = () => {
    try {
      post({ op: 'results', results }, [...transfer]);
    } catch (e) {
      // Never let one unserialisable result take the worker (and every later request) down.
      const error = toWireError(new Error(`cannot return outputs: ${(e as Error).message}`), 'Internal');
      post({ op: 'results', results: results.map((r) => ({ id: r.id, error })) });
    }
    results = [];
    transfer = new Set();
    since = performance.now();
  };
  for (const { id, job } of jobs) {
    started.last = id;
    if (cancelled.delete(id)) {
      // The main thread already answered the caller; the id only keeps the envelope whole.
      results.push({ id, error: toWireError(new Error('cancelled before it ran'), 'Cancelled') });
      continue;
    }
    try {
      results.push({ id, result: await runner.run(job, transfer) });
    } catch (e) {
      results.push({ id, error: toWireError(e) });
    }
    if (performance.now() - since > FLUSH_AFTER_MS) flush();
  }
  if (results.length > 0) flush();
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
