/**
 * The envelope between the main thread and a model worker (server/workers/worker-session.ts on the
 * main side, server/workers/worker-loop.ts in the worker). Backends choose only the payloads: what
 * a loaded worker reports (`L`), what one job carries (`J`) and what it returns (`R`).
 *
 * Jobs that arrive in the same event-loop turn travel in one message, and results come back
 * in batches: one thread hand-off per batch instead of two per request. Jobs still run one
 * at a time, in order.
 */

import type { ErrorKind, WireError } from '../../protocols/errors.js';

export interface RunJob<J> {
  readonly id: number;
  readonly job: J;
}

/** A failed job carries its catalogue kind, so a bad input found in a worker is a 400 as on the main thread. */
export type JobResult<R> = { readonly id: number; readonly result: R } | { readonly id: number; readonly error: WireError };

/**
 * `cancel`: jobs whose callers went away; those not started yet are skipped, those running
 * see their signal aborted (JobRunner.run).
 */
export type ToWorker<J> = { readonly op: 'run'; readonly jobs: Array<RunJob<J>> } | { readonly op: 'cancel'; readonly ids: number[] } | { readonly op: 'close' };

export type FromWorker<L, R> =
  | { readonly op: 'loaded'; readonly loaded: L; readonly warnings: string[] }
  /** `kind`: set when the load threw a catalogue error, which keeps its kind on the main thread. */
  | { readonly op: 'load-failed'; readonly message: string; readonly kind: ErrorKind | undefined }
  /**
   * `returned`: the jobs' input buffers, handed back once the jobs are done with them
   * (JobRunner.spent), for the main thread to reuse (protocols/buffer-pool.ts).
   */
  | { readonly op: 'results'; readonly results: Array<JobResult<R>>; readonly returned?: ArrayBuffer[] };
