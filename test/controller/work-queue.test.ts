/** The controller's work queue, with handlers the test holds and releases: no timing decides an outcome. */
import { describe, expect, it } from 'vitest';
import { WorkQueue } from '../../controller/work-queue.js';

/** Lets queued promise callbacks and immediates run. */
const tick = () => new Promise((r) => setImmediate(r));

/** Handler calls that wait until the test releases them, in arrival order. */
function heldCalls() {
  const waiting: Array<{ key: string; release(): void }> = [];
  return {
    waiting,
    handler: (key: string) => new Promise<void>((release) => waiting.push({ key, release })),
    releaseAll: () => {
      for (const w of waiting.splice(0)) w.release();
    },
  };
}

describe('WorkQueue', () => {
  it('queues a key once however often it is added', async () => {
    const seen: string[] = [];
    const q = new WorkQueue(async (k) => void seen.push(k), { concurrency: 1, baseDelayMs: 1, maxDelayMs: 10 });
    q.add('a');
    q.add('a');
    q.add('b');
    q.add('a');
    q.start();
    await q.idle();
    expect(seen).toEqual(['a', 'b']);
  });

  it('never runs one key twice at once; an add during processing runs it again after', async () => {
    const calls = heldCalls();
    const q = new WorkQueue(calls.handler, { concurrency: 4, baseDelayMs: 1, maxDelayMs: 10 });
    q.start();
    q.add('k');
    expect(calls.waiting.map((w) => w.key)).toEqual(['k']);
    // Added twice while it runs: not run beside it, however many slots are free.
    q.add('k');
    q.add('k');
    await tick();
    expect(calls.waiting.map((w) => w.key)).toEqual(['k']);
    calls.releaseAll();
    await tick();
    // Once, again, after the first run.
    expect(calls.waiting.map((w) => w.key)).toEqual(['k']);
    calls.releaseAll();
    await q.idle();
    expect(calls.waiting).toEqual([]);
  });

  it('runs different keys concurrently up to the limit', async () => {
    const calls = heldCalls();
    const q = new WorkQueue(calls.handler, { concurrency: 2, baseDelayMs: 1, maxDelayMs: 10 });
    q.start();
    for (const k of ['a', 'b', 'c', 'd']) q.add(k);
    await tick();
    expect(calls.waiting.map((w) => w.key)).toEqual(['a', 'b']);
    calls.releaseAll();
    await tick();
    expect(calls.waiting.map((w) => w.key)).toEqual(['c', 'd']);
    calls.releaseAll();
    await q.idle();
  });

  it('retries failures with growing delays, then forgets the key once it succeeds', async () => {
    const attempts: number[] = [];
    const delays: number[] = [];
    let fail = 3;
    const q = new WorkQueue(
      async () => {
        attempts.push(Date.now());
        if (fail-- > 0) throw new Error('conflict');
      },
      { concurrency: 1, baseDelayMs: 20, maxDelayMs: 1000, onError: (_k, _e, retryInMs) => delays.push(retryInMs) },
    );
    q.start();
    q.add('k');
    await q.idle();
    expect(attempts).toHaveLength(4);
    expect(delays).toEqual([20, 40, 80]);
    // The failure count was reset: the next failure starts from the base delay again.
    fail = 1;
    q.add('k');
    await q.idle();
    expect(delays).toEqual([20, 40, 80, 20]);
  });

  it('caps the backoff', async () => {
    const delays: number[] = [];
    let fail = 5;
    const q = new WorkQueue(
      async () => {
        if (fail-- > 0) throw new Error('down');
      },
      { concurrency: 1, baseDelayMs: 1, maxDelayMs: 4, onError: (_k, _e, d) => delays.push(d) },
    );
    q.start();
    q.add('k');
    await q.idle();
    expect(delays).toEqual([1, 2, 4, 4, 4]);
  });

  it('stop() waits for in-flight work and drops the rest', async () => {
    const calls = heldCalls();
    const q = new WorkQueue(calls.handler, { concurrency: 1, baseDelayMs: 1, maxDelayMs: 10 });
    q.start();
    q.add('a');
    q.add('b');
    let stopped = false;
    const stopping = q.stop().then(() => (stopped = true));
    await tick();
    // 'a' is still running: stop waits for it.
    expect(stopped).toBe(false);
    expect(calls.waiting.map((w) => w.key)).toEqual(['a']);
    calls.releaseAll();
    await stopping;
    // 'b' was dropped; a key added after stop never runs.
    q.add('c');
    await tick();
    expect(calls.waiting).toEqual([]);
  });
});
