/**
 * Adaptive parallelism (pure): where the plan starts for a node's CPU count, and how it
 * moves for the rates a run measures. Times are given, not measured.
 */
import { describe, expect, it } from 'vitest';
import { AdaptiveConcurrency, initialConcurrency } from '../../storage-initializer/concurrency.js';

describe('initial parallelism', () => {
  it.each([
    // [cpus, max, start]
    [1, 64, 2],
    [2, 64, 2],
    [4, 64, 4],
    [16, 64, 16],
    [64, 64, 16],
    [8, 6, 6],
  ])('%i CPUs, at most %i requests: %i', (cpus, max, want) => {
    expect(initialConcurrency(cpus, max)).toBe(want);
  });
});

/**
 * Runs the plan over windows: `rates[i]` is the MB/s measured while the limit is the one
 * the plan chose for window i; each window is `limit` tasks over 1 s. Returns the limits.
 */
function drive(start: number, max: number, rateAt: (limit: number) => number, demand = 1000, windows = 8): number[] {
  const c = new AdaptiveConcurrency({ start, max, gain: 1.15, minWindowMs: 500 });
  const limits = [c.limit];
  let t = 0;
  let bytes = 0;
  c.taskDone(bytes, t, demand); // opens the first window
  for (let w = 0; w < windows; w++) {
    const limit = c.limit;
    for (let i = 1; i <= limit; i++) {
      t += 1000 / limit;
      bytes += (rateAt(limit) * 1000) / limit;
      c.taskDone(bytes, t, demand);
    }
    limits.push(c.limit);
  }
  return limits;
}

describe('adaptive parallelism', () => {
  it.each([
    ['a per-connection-limited store doubles up to the maximum', 4, 64, (n: number) => 50 * n, [4, 8, 16, 32, 64, 64]],
    ['a CPU-bound client stays where doubling stops paying', 4, 64, (n: number) => (n <= 8 ? 100 * n : 800), [4, 8, 16, 16, 16]],
    ['a doubling that makes it slower is undone', 4, 64, (n: number) => (n <= 4 ? 200 : 150), [4, 8, 4, 4]],
    ['a flat rate keeps the start', 4, 64, () => 300, [4, 8, 8, 8]],
  ])('%s', (_name, start, max, rate, want) => {
    const limits = drive(start, max, rate);
    expect(limits.slice(0, want.length)).toEqual(want);
    // Once settled it stays (no oscillation on a steady rate).
    expect(new Set(limits.slice(want.length)).size).toBeLessThanOrEqual(1);
  });

  it('never asks for more requests than there are tasks, and waits until there are', () => {
    const c = new AdaptiveConcurrency({ start: 4, max: 64, gain: 1.15, minWindowMs: 500 });
    c.taskDone(0, 0, 3);
    for (let i = 1; i <= 8; i++) expect(c.taskDone(i * 1e6, i * 200, 3)).toBeUndefined();
    expect(c.limit).toBe(4);
    expect(c.settled).toBe(false);
  });

  it('judges a window only after enough tasks and enough time', () => {
    const c = new AdaptiveConcurrency({ start: 4, max: 64, gain: 1.15, minWindowMs: 500 });
    c.taskDone(0, 0, 100);
    // Four tasks within 100 ms: too short a window to judge.
    for (let i = 1; i <= 4; i++) expect(c.taskDone(i * 1e6, i * 25, 100)).toBeUndefined();
    expect(c.taskDone(5e6, 600, 100)).toBe(8);
  });
});
