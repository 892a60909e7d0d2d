/**
 * A model worker for worker-loop.test.ts. Its jobs meet the test through a SharedArrayBuffer
 * (workerData.flags, slots below), so each step is gated on an event, never on time:
 * `watch` waits (without blocking) until its signal turns aborted, `block` blocks the
 * thread until the test opens the gate, `wait` awaits the gate and `open` opens it, `count`
 * counts the jobs that ran, `exit` ends the thread. `concurrent` picks the runner's mode;
 * `failLoad` fails the load; `preloadCheck` reports what a preload set.
 */
import { workerData } from 'node:worker_threads';
import { type ErrorKind, KServeError } from '../../protocols/errors.js';
import { serveJobs } from './worker-loop.js';

/** Slots of `flags` (worker-loop.test.ts names them alike). */
const STARTED = 0;
const SAW_ABORT = 1;
const GATE = 2;
const COUNT = 3;

export type LoopJob = { readonly op: 'watch' } | { readonly op: 'block' } | { readonly op: 'wait' } | { readonly op: 'open' } | { readonly op: 'count' } | { readonly op: 'exit' };

export interface LoopWorkerData {
  readonly flags: SharedArrayBuffer;
  readonly concurrent: boolean;
  readonly failLoad?: { readonly message: string; readonly kind?: ErrorKind };
  /** Report what a preload left in `globalThis.preloaded` as the load report. */
  readonly preloadCheck?: boolean;
}

const data = workerData as LoopWorkerData;
const flags = new Int32Array(data.flags);
const tick = () => new Promise((r) => setTimeout(r, 5));
/** Polls `done` (60 s at most: a bound against a hung test, never a result). */
async function until(done: () => boolean): Promise<boolean> {
  for (let i = 0; i < 12_000 && !done(); i++) await tick();
  return done();
}

void serveJobs<unknown, LoopJob, string>(async () => {
  const fail = data.failLoad;
  if (fail !== undefined) throw fail.kind === undefined ? new Error(fail.message) : new KServeError(fail.kind, fail.message);
  return {
    loaded: data.preloadCheck === true ? (globalThis as { preloaded?: unknown }).preloaded : null,
    runner: {
      concurrent: data.concurrent,
      async run(job, _transfer, signal) {
        if (job.op === 'watch') {
          Atomics.store(flags, STARTED, 1);
          if (await until(() => signal.aborted)) Atomics.store(flags, SAW_ABORT, 1);
          return 'watched';
        }
        if (job.op === 'block') {
          Atomics.store(flags, STARTED, 1);
          Atomics.wait(flags, GATE, 0, 60_000);
          return 'unblocked';
        }
        if (job.op === 'wait') return (await until(() => Atomics.load(flags, GATE) === 1)) ? 'gate opened' : 'gate stayed shut';
        if (job.op === 'exit') process.exit(3);
        if (job.op === 'open') {
          Atomics.store(flags, GATE, 1);
          return 'opened';
        }
        return String(Atomics.add(flags, COUNT, 1) + 1);
      },
      close() {},
    },
  };
});
