/**
 * The worker plumbing both backends share (worker-session.ts, worker-loop.ts), through a
 * real worker thread running a tiny job runner: ordering, buffer ownership, failures, unload.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { errorKinds, KServeError } from '../../protocols/errors.js';
import { describe, expect, it } from 'vitest';
import { spawnWorker } from './worker-entry.js';
import { WorkerSession, transferInput } from './worker-session.js';
import type { TestJob, TestLoaded } from './worker-session.test-worker.js';

/**
 * Releases the worker's `hold` jobs: a cancel message for no job, which the worker loop takes
 * as such, posted on the session's own port, so the worker reads it after every cancel the
 * session posted before it.
 */
const RELEASE = { op: 'cancel', ids: [], release: true } as const;

function start(workerData: object = {}) {
  const lines: string[] = [];
  const logger = pino({ level: 'info' }, new Writable({ write: (c: Buffer, _e, cb) => (lines.push(c.toString()), cb()) }));
  const worker = spawnWorker(import.meta.url, 'worker-session.test-worker', { workerData });
  const session = new WorkerSession<TestJob, Float32Array>(worker, {
    label: 'test',
    modelName: 'm',
    logger,
    explainLoadError: (m) => `explained: ${m}`,
  });
  const failures: string[] = [];
  session.onFailure((e) => failures.push(e.message));
  return { session, worker, failures, logs: () => lines.map((l) => JSON.parse(l) as { msg: string; model?: string }) };
}

const double = (...values: number[]): TestJob => ({ op: 'double', data: Float32Array.from(values) });

describe('WorkerSession', () => {
  it('hands the load report to `accept`, logs the warnings, and answers each job with its own result', async () => {
    const { session, logs } = start();
    expect(await session.ready((loaded: TestLoaded) => loaded.hello)).toBe('world');
    expect(logs()).toEqual([expect.objectContaining({ msg: 'a load warning', model: 'm' })]);
    const inputs = [1, 2, 3].map((v) => Float32Array.of(v, v + 1));
    const results = await Promise.all(inputs.map((data) => session.run({ op: 'double', data }, [data.buffer])));
    expect(results.map((r) => Array.from(r))).toEqual([
      [2, 4],
      [4, 6],
      [6, 8],
    ]);
    // Transferred inputs are detached; outputs that were views on a larger buffer came back copied.
    expect(inputs.map((d) => d.byteLength)).toEqual([0, 0, 0]);
    expect(results.map((r) => r.buffer.byteLength)).toEqual([8, 8, 8]);
    await session.unload();
  });

  it('a job the worker fails rejects alone, with an InferenceError', async () => {
    const { session, failures } = start();
    await session.ready(() => undefined);
    const [bad, good] = await Promise.allSettled([session.run({ op: 'fail', message: 'boom' }), session.run(double(1))]);
    expect(bad).toMatchObject({ status: 'rejected', reason: { kind: 'InferenceError', message: 'boom' } });
    expect(good.status === 'fulfilled' && Array.from(good.value)).toEqual([2]);
    expect(failures).toEqual([]);
    await session.unload();
  });

  it.each(errorKinds)('a %s thrown in the worker reaches the caller with its kind, message and statuses', async (kind) => {
    const { session } = start();
    await session.ready(() => undefined);
    const err = await session.run({ op: 'throw', kind, message: `${kind} in a worker` }).catch((e: unknown) => e);
    const onMain = new KServeError(kind, 'same kind, thrown on the main thread');
    expect(err).toBeInstanceOf(KServeError);
    expect(err).toMatchObject({ kind, message: `${kind} in a worker`, httpStatus: onMain.httpStatus, grpcCode: onMain.grpcCode });
    await session.unload();
  });

  it('a worker that dies fails every pending job, later ones at once, and tells the listeners once', async () => {
    const { session, failures, logs } = start();
    await session.ready(() => undefined);
    const pending = [session.run({ op: 'exit', code: 3 }), session.run(double(1))];
    for (const p of pending) {
      await expect(p).rejects.toMatchObject({ kind: 'Internal', message: 'model worker failed: test worker exited with code 3' });
    }
    await expect(session.run(double(1))).rejects.toMatchObject({ kind: 'Internal', message: 'model worker is gone: test worker exited with code 3' });
    expect(failures).toEqual(['test worker exited with code 3']);
    expect(logs().map((l) => l.msg)).toContain('test worker failed with requests in flight');
    await session.unload();
  });

  it('unload lets queued jobs finish and is not a failure', async () => {
    const { session, failures } = start();
    await session.ready(() => undefined);
    const queued = session.run(double(5));
    await session.unload();
    expect(Array.from(await queued)).toEqual([10]);
    expect(failures).toEqual([]);
    await expect(session.run(double(1))).rejects.toThrow(/model worker is gone: test worker exited with code 0/);
  });

  it.each([
    ['in the same turn as the running one', false],
    ['in a later turn', true],
  ])('a job queued behind a running one (%s) whose caller goes away never runs in the worker', async (_when, laterTurn) => {
    const { session, worker } = start();
    await session.ready(() => undefined);
    const running = session.run({ op: 'hold' });
    if (laterTurn) await new Promise((r) => setImmediate(r));
    const signal = { aborted: false };
    const queued = session.run(double(1), [], signal);
    // Handed to the worker (this turn's jobs go in one message at the turn's end) before the caller goes.
    await new Promise((r) => setImmediate(r));
    signal.aborted = true;
    await expect(queued).rejects.toMatchObject({ kind: 'Cancelled' });
    worker.postMessage(RELEASE);
    expect(Array.from(await running)).toEqual([0]);
    // Doubling jobs run so far: none, the cancelled one was skipped.
    expect(Array.from(await session.run({ op: 'count' }))).toEqual([0]);
    expect(Array.from(await session.run(double(2)))).toEqual([4]);
    expect(Array.from(await session.run({ op: 'count' }))).toEqual([1]);
    await session.unload();
  });

  it('a failed load, or a report `accept` refuses, rejects `ready` and ends the worker', async () => {
    const failed = start({ failLoad: 'no such model' });
    await expect(failed.session.ready(() => undefined)).rejects.toThrow(/^explained: no such model$/);
    const refused = start();
    await expect(
      refused.session.ready(() => {
        throw new Error('unsupported tensor');
      }),
    ).rejects.toThrow('unsupported tensor');
    for (const { session } of [failed, refused]) await expect(session.run(double(1))).rejects.toThrow(/model worker is gone/);
  });
});

describe('transferInput', () => {
  it('moves buffers the array owns whole, copies views on shared memory once, shares SharedArrayBuffers', () => {
    const transfer = new Set<ArrayBuffer>();
    const whole = Float32Array.of(1, 2);
    expect(transferInput(whole, transfer)).toBe(whole);
    const pooled = new Float32Array(new ArrayBuffer(16), 4, 2);
    const copy = transferInput(pooled, transfer);
    expect(copy).not.toBe(pooled);
    expect(copy.buffer.byteLength).toBe(8);
    const shared = new Float32Array(new SharedArrayBuffer(8));
    expect(transferInput(shared, transfer)).toBe(shared);
    expect([...transfer]).toEqual([whole.buffer, copy.buffer]);
  });
});
