/** StallWatch on a fake clock: what expires, when, and what does not count as a stall. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Expiry, StallWatch } from './stall-watch.js';

interface Req {
  bytes: number;
  waiting: boolean;
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function watch(reqs: Set<Req>, deadlineMs = 0): { w: StallWatch<Req>; expired: [Req, Expiry][] } {
  const expired: [Req, Expiry][] = [];
  const w = new StallWatch<Req>({
    stallMs: 1000,
    deadlineMs,
    candidates: () => reqs,
    waiting: (r) => r.waiting,
    progress: (r) => r.bytes,
    expire: (r, why) => {
      expired.push([r, why]);
      reqs.delete(r);
    },
  });
  return { w, expired };
}

describe('StallWatch', () => {
  it('expires a request that moves no byte for the stall time, not one that keeps moving or is not waiting', () => {
    const stalled = { bytes: 6, waiting: true };
    const moving = { bytes: 0, waiting: true };
    const served = { bytes: 0, waiting: false };
    const reqs = new Set([stalled, moving, served]);
    const { w, expired } = watch(reqs);
    w.wake();
    for (let t = 0; t < 10; t++) {
      moving.bytes += 1;
      vi.advanceTimersByTime(500);
    }
    expect(expired).toEqual([[stalled, 'stalled']]);
    w.stop();
  });

  it('expires a request still waiting at the deadline however it trickles', () => {
    const trickle = { bytes: 0, waiting: true };
    const { w, expired } = watch(new Set([trickle]), 3000);
    w.wake();
    for (let t = 0; t < 8 && expired.length === 0; t++) {
      trickle.bytes += 1;
      vi.advanceTimersByTime(500);
    }
    expect(expired).toEqual([[trickle, 'deadline']]);
    w.stop();
  });

  it('does not count time this process was not running (a late sweep) as a stall', () => {
    const req = { bytes: 0, waiting: true };
    const { w, expired } = watch(new Set([req]));
    w.wake();
    vi.advanceTimersByTime(500);
    // The event loop was blocked for 5 s: the next sweep runs late, after the whole stall time.
    vi.setSystemTime(Date.now() + 5000);
    vi.advanceTimersByTime(500);
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(1000);
    expect(expired).toEqual([[req, 'stalled']]);
    w.stop();
  });

  it('stops sampling when no request is in progress, and wakes again', () => {
    const reqs = new Set<Req>();
    const { w } = watch(reqs);
    w.wake();
    vi.advanceTimersByTime(500);
    expect(vi.getTimerCount()).toBe(0);
    reqs.add({ bytes: 0, waiting: true });
    w.wake();
    expect(vi.getTimerCount()).toBe(1);
    w.stop();
  });
});
