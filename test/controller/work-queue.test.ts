import { describe, expect, it } from 'vitest';
import { WorkQueue } from '../../controller/work-queue.js';

const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

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
    let running = 0;
    let maxRunning = 0;
    let runs = 0;
    const q = new WorkQueue(
      async () => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        runs++;
        await tick(20);
        running--;
      },
      { concurrency: 4, baseDelayMs: 1, maxDelayMs: 10 },
    );
    q.start();
    q.add('k');
    await tick(5);
    q.add('k');
    q.add('k');
    await q.idle();
    expect(maxRunning).toBe(1);
    expect(runs).toBe(2);
  });

  it('runs different keys concurrently up to the limit', async () => {
    let running = 0;
    let maxRunning = 0;
    const q = new WorkQueue(
      async () => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        await tick(10);
        running--;
      },
      { concurrency: 2, baseDelayMs: 1, maxDelayMs: 10 },
    );
    q.start();
    for (const k of ['a', 'b', 'c', 'd']) q.add(k);
    await q.idle();
    expect(maxRunning).toBe(2);
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
    const done: string[] = [];
    const q = new WorkQueue(
      async (k) => {
        await tick(20);
        done.push(k);
      },
      { concurrency: 1, baseDelayMs: 1, maxDelayMs: 10 },
    );
    q.start();
    q.add('a');
    q.add('b');
    await tick(5);
    await q.stop();
    expect(done).toEqual(['a']);
    q.add('c');
    await tick(30);
    expect(done).toEqual(['a']);
  });
});
