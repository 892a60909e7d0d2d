/**
 * A model worker for worker-session.test.ts: jobs double numbers, fail (with a plain or a
 * catalogue error), end the thread, wait until the test releases them (`hold`), or report how
 * many doubling jobs ran (`count`).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { KServeError, type ErrorKind } from '../../protocols/errors.js';
import { serveJobs, transferOutput } from './worker-loop.js';

export type TestJob =
  | { readonly op: 'double'; readonly data: Float32Array }
  | { readonly op: 'fail'; readonly message: string }
  | { readonly op: 'throw'; readonly kind: ErrorKind; readonly message: string }
  | { readonly op: 'exit'; readonly code: number }
  | { readonly op: 'hold' }
  | { readonly op: 'count' };

export interface TestLoaded {
  readonly hello: string;
}

const settings = workerData as { readonly failLoad?: string };

let doubled = 0;
let held: Array<() => void> = [];
// The test's release (worker-session.test.ts, RELEASE) comes on the session's own port.
parentPort?.on('message', (msg: { release?: boolean }) => {
  if (msg.release !== true) return;
  for (const release of held) release();
  held = [];
});

void serveJobs<TestLoaded, TestJob, Float32Array>(async (warnings) => {
  if (settings.failLoad !== undefined) throw new Error(settings.failLoad);
  warnings.push('a load warning');
  return {
    loaded: { hello: 'world' },
    runner: {
      async run(job, transfer) {
        if (job.op === 'fail') throw new Error(job.message);
        if (job.op === 'throw') throw new KServeError(job.kind, job.message);
        if (job.op === 'exit') process.exit(job.code);
        // Waits without blocking this thread, so its event loop keeps taking messages.
        if (job.op === 'hold') await new Promise<void>((release) => held.push(release));
        if (job.op === 'hold' || job.op === 'count') return Float32Array.of(doubled);
        doubled++;
        // A view on a larger buffer, as runtimes hand out: copied before it is transferred.
        const heap = new Float32Array(job.data.length + 2);
        heap.set(
          job.data.map((v) => v * 2),
          1,
        );
        return transferOutput(heap.subarray(1, 1 + job.data.length), transfer);
      },
      close() {},
    },
  };
});
