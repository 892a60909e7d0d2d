/**
 * The suite's handling of an anchor that fails mid-run (anchor-retry.ts): a real stand-in
 * server process (fixtures/stand-in-anchor.ts) that dies or stops answering after a number of
 * requests, started through the suite's own launcher, loaded by the suite's own load
 * generator (autocannon, runLoad). Each load is 1 s at 2 connections; nothing is timed. A
 * stand-in that fails does so at its second request (`answers: 1`): the two connections send
 * one each at once, so it fails within its first window however few requests a loaded machine
 * sends in a second.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AnchorOutcome, MIN_ANCHOR_RPS, RestartingServer, rowFailure } from '../../benchmarks/anchor-retry.js';
import { runLoad, untilAnswered } from '../../benchmarks/load.js';
import { freePort, launch, type ServerProcess } from '../../benchmarks/servers.js';
import { type Measure, type Plan, plannedRows, renderTable, type Row, tableProblems } from '../../benchmarks/suite-report.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'kserve-ts-stand-in-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const livesFile = () => path.join(dir, 'lives');
const lives = () => Number(readFileSync(livesFile(), 'utf8'));

function standIn(o: { failingLives: number; answers: number; fail: 'exit' | 'hang'; delayMs?: number }): () => Promise<ServerProcess> {
  return async () => {
    const httpPort = await freePort();
    return launch({
      name: 'stand-in anchor',
      cmd: [
        process.execPath,
        '--import',
        'tsx',
        'test/benchmarks/fixtures/stand-in-anchor.ts',
        String(httpPort),
        '--lives',
        livesFile(),
        '--failing-lives',
        String(o.failingLives),
        '--answers',
        String(o.answers),
        '--fail',
        o.fail,
        ...(o.delayMs === undefined ? [] : ['--delay-ms', String(o.delayMs)]),
      ],
      httpPort,
      grpcPort: 0,
      readyPaths: ['/ready'],
      pinned: false,
    });
  };
}

const load = async (s: ServerProcess): Promise<Measure> => {
  const r = await runLoad({ name: 'stand-in', url: `${s.base}/infer`, method: 'POST', body: '{}', connections: 2, seconds: 1 });
  return { rps: r.rps, p50: r.p50, p99: r.p99, errors: r.errors };
};

async function rows(anchor: RestartingServer, n: number): Promise<{ outcomes: AnchorOutcome[]; prepared: number }> {
  let prepared = 0;
  const outcomes: AnchorOutcome[] = [];
  try {
    for (let i = 0; i < n; i++) outcomes.push(await anchor.row(`row ${i}`, load, async () => void prepared++));
  } finally {
    await anchor.stop();
  }
  return { outcomes, prepared };
}

// Each case starts up to three node processes and runs up to four 1 s loads: room for a slow CI machine.
describe('an anchor row that fails', { timeout: 120_000 }, () => {
  it('is measured again on a restarted anchor when the anchor dies mid-row', async () => {
    const anchor = new RestartingServer(standIn({ failingLives: 1, answers: 1, fail: 'exit' }));
    const { outcomes, prepared } = await rows(anchor, 2);
    expect(outcomes.map((o) => 'measure' in o)).toEqual([true, true]);
    expect((outcomes[0] as { measure: Measure }).measure.rps).toBeGreaterThan(0);
    expect((outcomes[0] as { measure: Measure }).measure.errors).toBe(0);
    // Started twice: the first life died in row 0; the second served its retry and row 1.
    expect([anchor.starts, lives(), prepared]).toEqual([2, 2, 1]);
  });

  it('counts a row with answers slower than once a second (an earlier row draining) as failed, like one with none', async () => {
    const s = await standIn({ failingLives: 0, answers: 0, fail: 'exit' })();
    try {
      expect(rowFailure({ rps: 0.2, p50: 1714, p99: 1714, errors: 0 }, s)).toBe('stand-in anchor answered less than once a second (0.20 req/s)');
      expect(rowFailure({ rps: 0, errors: 0 }, s)).toBe('stand-in anchor answered nothing (0 errors)');
      expect(rowFailure({ rps: MIN_ANCHOR_RPS, p50: 1, p99: 1, errors: 0 }, s)).toBeUndefined();
    } finally {
      await s.stop();
    }
  });

  it('is measured again on a restarted anchor when the anchor answers nothing', async () => {
    const anchor = new RestartingServer(standIn({ failingLives: 1, answers: 0, fail: 'hang' }));
    const { outcomes } = await rows(anchor, 1);
    expect('measure' in (outcomes[0] as AnchorOutcome)).toBe(true);
    expect([anchor.starts, lives()]).toEqual([2, 2]);
  });

  it('becomes the anchor failure, with its error, when the retry fails too; the next row gets a fresh anchor', async () => {
    const anchor = new RestartingServer(standIn({ failingLives: 2, answers: 1, fail: 'exit' }));
    const { outcomes } = await rows(anchor, 2);
    expect(outcomes[0]).toEqual({ failure: expect.stringMatching(/stand-in anchor (exited \(3\) during the row|failed \d+ requests)/) });
    // Lives 1 and 2 failed row 0; life 3 serves row 1.
    expect('measure' in (outcomes[1] as AnchorOutcome)).toBe(true);
    expect([anchor.starts, lives()]).toEqual([3, 3]);
  });

  it('starts a new anchor, and says so, when the last one exited between rows', async () => {
    const logged: string[] = [];
    const anchor = new RestartingServer(standIn({ failingLives: 0, answers: 0, fail: 'exit' }), (l) => logged.push(l));
    try {
      const first = await anchor.current();
      const exited = new Promise((res) => first.child.once('exit', res));
      first.child.kill('SIGKILL');
      await exited;
      const outcome = await anchor.row('row 0', load);
      expect('measure' in outcome).toBe(true);
      expect([anchor.starts, lives()]).toEqual([2, 2]);
      expect(logged).toEqual(['stand-in anchor had exited (SIGKILL) between rows; starting a new one']);
    } finally {
      await anchor.stop();
    }
  });

  it('records a failure to restart as the row failure', async () => {
    let n = 0;
    const anchor = new RestartingServer(async () => {
      if (n++ > 0) throw new Error('could not start again');
      return standIn({ failingLives: 1, answers: 0, fail: 'hang' })();
    });
    const { outcomes } = await rows(anchor, 1);
    expect(outcomes).toEqual([{ failure: 'could not start again' }]);
  });
});

describe('a load window that sees no answer', { timeout: 60_000 }, () => {
  const windows = async (o: Parameters<typeof standIn>[0]) => {
    const s = await standIn(o)();
    const seen: number[] = [];
    const said: string[] = [];
    try {
      const r = await untilAnswered(
        (seconds) => (seen.push(seconds), runLoad({ name: 'stand-in', url: `${s.base}/infer`, method: 'POST', body: '{}', connections: 2, seconds })),
        1,
        4,
        (l) => said.push(l),
      );
      return { r, seen, said };
    } finally {
      await s.stop();
    }
  };

  it('is measured again, longer, when every answer takes longer than the window', async () => {
    const { r, seen, said } = await windows({ failingLives: 0, answers: 0, fail: 'exit', delayMs: 1500 });
    expect(seen).toEqual([1, 4]);
    expect(r.rps).toBeGreaterThan(0);
    expect(r.errors).toBe(0);
    expect(said).toEqual(['stand-in: no answer within 1 s; measuring for 4 s']);
  });

  it('is not measured again when requests failed: errors stand', async () => {
    const { r, seen } = await windows({ failingLives: 1, answers: 0, fail: 'exit' });
    expect(seen).toEqual([1]);
    expect(r.errors).toBeGreaterThan(0);
  });
});

describe('the table with an anchor failure', () => {
  const plan: Plan = { sweep: [1], anchor: true };
  const m: Measure = { rps: 100, p50: 1, p99: 2, rss: 50, errors: 0 };
  const table = (change: (r: Row) => Row) =>
    renderTable(plannedRows(plan).map((p) => change({ workload: p.workload, path: p.path, c: p.c, ours: m, ...(p.anchor ? { anchor: m } : {}) })));
  const isConvRaw = (r: Row) => r.workload.startsWith('conv') && r.path === 'gRPC raw';

  it('marks the row, footnotes the error, and still counts as complete', () => {
    const t = table((r) => (isConvRaw(r) ? { workload: r.workload, path: r.path, c: r.c, ours: r.ours, anchorFailure: 'anchor answered nothing (0 errors)' } : r));
    expect(t).toMatch(/\| conv_small, 1×3×224×224 \| gRPC raw \(anchor failed \[1\]\) \| 1 \| 100 \| .* \| ✗ \[1\] \| – \| – \| – \| – \|/);
    expect(t).toMatch(/^\[1\] anchor failed conv_small, 1×3×224×224 \/ gRPC raw \/ c=1 after a restart and one retry: anchor answered nothing \(0 errors\)$/m);
    expect(tableProblems(t, plan)).toEqual([]);
  });

  it("still fails on kserve-ts's errors in a row the anchor failed", () => {
    const t = table((r) => (isConvRaw(r) ? { workload: r.workload, path: r.path, c: r.c, ours: { ...m, errors: 2 }, anchorFailure: 'x' } : r));
    expect(tableProblems(t, plan).join('\n')).toMatch(/errors in row: conv_small.*gRPC raw \(2 errors\) \(anchor failed \[1\]\)/);
  });
});
