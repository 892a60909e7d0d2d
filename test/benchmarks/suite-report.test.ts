/**
 * The benchmark suite's report: the completeness check a smoke run ends with (CI runs the
 * suite itself; this checks the checker), and the CPU-profile summariser. No load, no timing.
 */
import { describe, expect, it } from 'vitest';
import { summarise } from '../../benchmarks/profile-summary.js';
import {
  BARE_GRPC,
  HOP,
  HOP_PATHS,
  type Measure,
  PATHS,
  type Plan,
  type Row,
  hopLines,
  hopRows,
  plannedRows,
  renderTable,
  tableProblems,
  targetLines,
} from '../../benchmarks/suite-report.js';

const MEASURE: Measure = { rps: 100, p50: 1, p99: 2, rss: 50, errors: 0 };

function rowsFor(plan: Plan, change: (r: Row) => Row = (r) => r): Row[] {
  return plannedRows(plan).map((p) => change({ workload: p.workload, path: p.path, c: p.c, ours: MEASURE, ...(p.anchor ? { anchor: MEASURE } : {}) }));
}

describe('the suite table', () => {
  const plan: Plan = { sweep: [1, 8], anchor: true };

  it('plans a row per workload, protocol and concurrency, and the start-up row', () => {
    const rows = plannedRows(plan);
    for (const protocol of ['V2 JSON', 'V2 binary', 'gRPC typed', 'gRPC raw']) {
      for (const workload of ['mlp_64x8, 1×64', 'conv_small, 1×3×224×224']) {
        expect(rows.filter((r) => r.workload === workload && r.path === protocol).map((r) => r.c)).toEqual(['1', '8']);
      }
    }
    expect(rows.filter((r) => r.path === PATHS.batchingOn)).toHaveLength(2);
    expect(rows.filter((r) => r.path === PATHS.bareSession).map((r) => [r.workload, r.c, r.anchor])).toEqual([
      ['mlp_64x8, 1×64', '1', false],
      ['mlp_64x8, 1×64', '8', false],
    ]);
    for (const bare of BARE_GRPC) {
      expect(rows.filter((r) => r.path === bare.path).map((r) => [r.workload, r.c, r.anchor])).toEqual([
        ['mlp_64x8, 1×64', '1', false],
        ['mlp_64x8, 1×64', '8', false],
        ['conv_small, 1×3×224×224', '1', false],
        ['conv_small, 1×3×224×224', '8', false],
      ]);
    }
    expect(rows.find((r) => r.path === PATHS.start)?.anchor).toBe(true);
    expect(plannedRows({ sweep: [1], anchor: false }).every((r) => !r.anchor)).toBe(true);
  });

  it('finds nothing to report in a complete table', () => {
    expect(tableProblems(renderTable(rowsFor(plan)), plan)).toEqual([]);
  });

  it.each([
    ['a missing row', (rows: Row[]) => rows.filter((r) => !(r.path === 'gRPC raw' && r.c === '8' && r.workload.startsWith('conv'))), /missing row: conv_small.*gRPC raw.*c=8/],
    ['errors', (rows: Row[]) => rows.map((r) => (r.path === 'V2 JSON' && r.c === '1' ? { ...r, ours: { ...MEASURE, errors: 3 } } : r)), /errors in row: mlp.*V2 JSON.*3 errors/],
    ['no throughput', (rows: Row[]) => rows.map((r) => (r.path === PATHS.hello ? { ...r, ours: { ...MEASURE, rps: 0 } } : r)), /no measurement in row: fastify.*req\/s = 0/],
    ['no anchor side', (rows: Row[]) => rows.map((r) => (r.path === 'V2 binary' ? { workload: r.workload, path: r.path, c: r.c, ours: r.ours } : r)), /anchor req\/s = –/],
    ['no start time', (rows: Row[]) => rows.map((r) => (r.path === PATHS.start ? { ...r, ours: { rss: 10 } } : r)), /start-up.*p50 ms = –/],
  ])('reports %s', (_what, change, problem) => {
    const problems = tableProblems(renderTable(change(rowsFor(plan))), plan);
    expect(problems.join('\n')).toMatch(problem);
  });

  it('states the targets as ratios from the rows', () => {
    const lines = targetLines(rowsFor(plan)).join('\n');
    // c=32 rows are not in this plan, so (1) is absent; the others come from equal measures.
    expect(lines).not.toMatch(/\(1\)/);
    expect(lines).toMatch(/\(3\) slow_matmul.*1\.00×.*not met/);
    expect(lines).toMatch(/\(4\) cold start: 1\.00×/);
  });

  it("states issue 19's targets from a full sweep", () => {
    const full: Plan = { sweep: [1, 8, 32, 128], anchor: true };
    const rows = rowsFor(full, (r) => {
      if (r.path === PATHS.bareSession) return { ...r, ours: { ...MEASURE, rps: 200 } };
      if (r.path === PATHS.hello) return { ...r, ours: { ...MEASURE, rps: 400 } };
      if (r.path === BARE_GRPC[0].path) return { ...r, ours: { ...MEASURE, rps: 400 } };
      if (r.workload.startsWith('conv') && r.path === 'V2 JSON') return { ...r, ours: { ...MEASURE, rps: r.c === '128' ? 300 : 500 } };
      if (r.workload.startsWith('conv') && r.path === 'gRPC raw' && r.c === '1') return { ...r, ours: { ...MEASURE, p99: 9 } };
      if (r.workload.startsWith('mlp') && r.path === 'gRPC typed' && r.c === '32') return { ...r, anchorFailure: 'anchor answered nothing (0 errors)' };
      return r;
    });
    const lines = targetLines(rows).join('\n');
    expect(lines).toMatch(/^- \(1\) V2 JSON mlp c=32: 50% of the bare fastify\+session route, 25% of hello-world \(targets ≥ 100%, ≥ 40%: not met, not met\)\.$/m);
    // The anchor failed that row: no ratio, and no verdict either way.
    expect(lines).not.toMatch(/\(1\) gRPC typed/);
    expect(lines).toMatch(/\(1\) gRPC raw, mlp c=32: 1\.00× the anchor's throughput at 1\.00× its p99 \(targets ≥ 10×, ≤ 0\.2×: not met, not met\)/);
    expect(lines).toMatch(/\(2\) conv gRPC raw: c=1 1\.00× at 4\.50× p99, .*met at 0 of 4/);
    expect(lines).toMatch(
      /^- ceilings, conv_small, 1×3×224×224 gRPC raw: throughput as a share of bare node:http2 \/ bare grpc-js: c=1 25% \/ 100%, c=8 25% \/ 100%, c=32 25% \/ 100%, c=128 25% \/ 100%\.$/m,
    );
    expect(lines).toMatch(/\(2\) conv V2 JSON: c=1 5\.00×, c=8 5\.00×, c=32 5\.00×, c=128 3\.00× .*met at 3 of 4/);
    expect(lines).toMatch(/\(2\) conv tails: V2 binary c=1 p99 2\.00× p50, .*gRPC raw c=1 p99 9\.00× p50.*met at 3 of 4/);
    expect(lines).toMatch(/\(3\) conv_small.*never slower than off, ≥ 1×: met/);
    expect(lines).toMatch(/\(5\) RSS under load: below the anchor's in 0 of 31 rows/);
    expect(lines).toMatch(/The anchor failed 1 row/);
  });
});

describe('the transformer-hop rows', () => {
  const plan: Plan = { sweep: [1, 8], anchor: true };

  it('plans alone and behind the transformer, V2 JSON and gRPC, every concurrency, both sides', () => {
    const rows = hopRows(plan);
    expect(rows).toHaveLength(8);
    expect(rows.every((r) => r.workload === HOP && r.anchor)).toBe(true);
    expect(plannedRows(plan).filter((r) => r.workload === HOP)).toEqual(rows);
    expect(tableProblems(renderTable(rowsFor(plan).filter((r) => r.path !== HOP_PATHS.hop('gRPC typed'))), plan).join('\n')).toMatch(
      /missing row: transformer hop.*gRPC typed, transformer/,
    );
  });

  it('states the hop as a throughput ratio and the added p50 / p99, per side', () => {
    const rows: Row[] = hopRows(plan).map((p) => {
      const behind = p.path.includes('transformer');
      return {
        workload: p.workload,
        path: p.path,
        c: p.c,
        ours: { rps: behind ? 50 : 100, p50: behind ? 1.5 : 1, p99: behind ? 3 : 2 },
        anchor: { rps: behind ? 10 : 40, p50: behind ? 9 : 5, p99: behind ? 20 : 10 },
      };
    });
    const lines = hopLines(rows);
    expect(lines).toHaveLength(4);
    expect(lines[0]).toBe(
      '- hop, V2 JSON (v2 to the predictor), c=1: kserve-ts 0.50× the throughput, +0.50 ms p50, +1.00 ms p99; KServe Python 0.25× the throughput, +4.00 ms p50, +10.00 ms p99.',
    );
    expect(lines[3]).toMatch(/^- hop, gRPC typed \(grpc-v2 to the predictor\), c=8: kserve-ts 0\.50×/);
  });
});

describe('the CPU profile summary', () => {
  it('charges each sample the time to the next one, by function and by origin, without idle', () => {
    const frame = (functionName: string, url = '') => ({ functionName, url, lineNumber: 0 });
    const s = summarise({
      nodes: [
        { id: 1, callFrame: frame('(root)') },
        { id: 2, callFrame: frame('(idle)') },
        { id: 3, callFrame: frame('parse', 'file:///x/node_modules/fastify/lib/a.js') },
        { id: 4, callFrame: frame('postMessage') },
      ],
      startTime: 0,
      endTime: 10_000,
      samples: [3, 4, 2, 3],
      timeDeltas: [0, 3000, 1000, 4000],
    });
    expect(s.busyMs).toBeCloseTo(4);
    expect(s.wallMs).toBeCloseTo(10);
    expect(s.functions.map((f) => [f.name.split(' ')[0], f.ms])).toEqual([
      ['parse', 3],
      ['postMessage', 1],
    ]);
    expect(s.origins.map((o) => o.name)).toEqual(['fastify', '(native)']);
  });
});
