/** LimitLog: the first action of a limit is logged at once, the rest of its interval as one summary line. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { logLines } from '../test/helpers/log-lines.js';
import { LimitLog } from './limit-log.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('LimitLog', () => {
  it('logs the first action at once and the next ones of its interval as one line', () => {
    const log = logLines();
    const limits = new LimitLog(log.logger, 10_000);
    for (let i = 0; i < 1000; i++) limits.acted('a', { limit: '--a', max: 1 }, 'a acted');
    limits.acted('b', { limit: '--b' }, 'b acted');
    expect(log.lines.map((l) => [l['limit'], l['msg']])).toEqual([
      ['--a', 'a acted'],
      ['--b', 'b acted'],
    ]);
    vi.advanceTimersByTime(10_000);
    expect(log.lines.slice(2)).toEqual([expect.objectContaining({ level: 40, limit: '--a', max: 1, moreTimes: 999, withinSeconds: 10, msg: 'a acted (999 more times)' })]);
    // A new interval starts with the next action, logged at once again.
    limits.acted('a', { limit: '--a', max: 1 }, 'a acted');
    expect(log.lines).toHaveLength(4);
  });
});
