/**
 * What the benchmark suite measures and how it reports it: the models, the rows a run must
 * produce, the one Markdown table, the targets as ratios, and the completeness check
 * a smoke run ends with. No I/O here, so tests can import it cheaply.
 */
import { PROTOCOLS, type TensorSpec } from './payloads.js';

export interface BenchModel {
  readonly label: string;
  /** File name under test/fixtures/models. */
  readonly file: string;
  readonly tensor: TensorSpec;
}

export const MLP: BenchModel = { label: 'mlp_64x8, 1×64', file: 'mlp_64x8.onnx', tensor: { model: 'mlp', input: 'input', shape: [1, 64] } };
export const CONV: BenchModel = {
  label: 'conv_small, 1×3×224×224',
  file: 'conv_small.onnx',
  tensor: { model: 'conv', input: 'input', shape: [1, 3, 224, 224] },
};
/** Compute-bound: 16 chained 1024×1024 MatMuls per row (≈ 34 MFLOP), which batching turns from GEMV into GEMM. */
export const MATMUL: BenchModel = { label: 'slow_matmul, 1×1024', file: 'slow_matmul.onnx', tensor: { model: 'matmul', input: 'X', shape: [1, 1024] } };

/** Workloads (1) and (2): every protocol, every concurrency, against both servers. */
export const COMPARED: readonly BenchModel[] = [MLP, CONV];
/** Workload (3): batching off vs on. */
export const BATCHED: readonly BenchModel[] = [MATMUL, CONV];
export const BATCH_CLIENTS = 64;
export const BATCH_CONFIG = 'max_batch_size: 16\ndynamic_batching { preferred_batch_size: [ 16 ] max_queue_delay_microseconds: 2000 }\n';
export const WORKERS_CONCURRENCY = 32;

export const PATHS = {
  inProcess: 'onnxruntime-node in-process (sequential)',
  hello: 'fastify hello-world GET',
  echo: 'fastify POST, same body in, V2-sized JSON out',
  bareSession: 'bare fastify route: V2 JSON parsed, onnxruntime-node session in process',
  batchingOff: 'V2 binary, batching off',
  batchingOn: 'V2 binary, batching on (max 16, adaptive)',
  start: 'cold start: spawn → model ready; RSS idle',
  workers: (n: number) => `V2 JSON, --workers ${n}, nothing pinned`,
} as const;
export const FRAMEWORK = 'fastify, no model';

/**
 * The gRPC ceilings (issue 34, benchmarks/grpc/bare-server.ts): each model's gRPC raw message
 * answered by a server with no model, so each gRPC row says how far it is from what Node's
 * HTTP/2 and grpc-js allow for the same traffic.
 */
export const BARE_GRPC = [
  { kind: 'http2', path: 'gRPC raw to bare node:http2 (no model, fixed answer)' },
  { kind: 'grpc-js', path: 'gRPC raw to bare grpc-js (no model, fixed answer)' },
] as const;

/**
 * The transformer hop (issue 17): mlp behind a pass-through transformer vs the predictor
 * alone; ours is a TS transformer → kserve-ts, the anchor side KServe's Python transformer →
 * its Python predictor. The client's protocol is also the hop's (V2 JSON → v2, gRPC → grpc-v2).
 */
export const HOP = 'transformer hop, mlp_64x8 1×64';
export const HOP_PROTOCOLS = [
  { client: 'V2 JSON', hop: 'v2' },
  { client: 'gRPC typed', hop: 'grpc-v2' },
] as const;
export const HOP_PATHS = {
  alone: (client: string) => `${client}, predictor alone`,
  hop: (client: string) => `${client}, transformer → predictor`,
} as const;

/** The hop rows a run with `sweep` prints, in order. */
export function hopRows(plan: Plan): Array<{ workload: string; path: string; c: string; anchor: boolean }> {
  const rows: Array<{ workload: string; path: string; c: string; anchor: boolean }> = [];
  for (const p of HOP_PROTOCOLS) {
    for (const c of plan.sweep) {
      for (const path of [HOP_PATHS.alone(p.client), HOP_PATHS.hop(p.client)]) rows.push({ workload: HOP, path, c: String(c), anchor: plan.anchor });
    }
  }
  return rows;
}
export const START_WORKLOAD = 'start-up, mlp_64x8 only';

export interface Measure {
  readonly rps?: number;
  readonly p50?: number;
  readonly p99?: number;
  readonly rss?: number;
  readonly errors?: number;
}

export interface Row {
  readonly workload: string;
  readonly path: string;
  readonly c: string;
  readonly ours: Measure;
  readonly anchor?: Measure;
  /**
   * Why the anchor could not serve this row even after a restart and one retry (its error).
   * The row then has no anchor measure; the table marks it and footnotes the error, and the
   * run still counts as complete: it measures kserve-ts, the anchor only gives the ratio.
   */
  readonly anchorFailure?: string;
}

export interface Plan {
  readonly sweep: readonly number[];
  readonly anchor: boolean;
}

/** The rows a run with `plan` must print, in order; `anchor` says whether that row has an anchor side. */
export function plannedRows(plan: Plan): Array<{ workload: string; path: string; c: string; anchor: boolean }> {
  const rows: Array<{ workload: string; path: string; c: string; anchor: boolean }> = [];
  rows.push({ workload: START_WORKLOAD, path: PATHS.start, c: '–', anchor: plan.anchor });
  for (const m of COMPARED) {
    rows.push({ workload: m.label, path: PATHS.inProcess, c: '1', anchor: false });
    for (const protocol of PROTOCOLS) for (const c of plan.sweep) rows.push({ workload: m.label, path: protocol, c: String(c), anchor: plan.anchor });
  }
  for (const m of COMPARED) for (const b of BARE_GRPC) for (const c of plan.sweep) rows.push({ workload: m.label, path: b.path, c: String(c), anchor: false });
  for (const path of [PATHS.hello, PATHS.echo]) for (const c of plan.sweep) rows.push({ workload: FRAMEWORK, path, c: String(c), anchor: false });
  for (const c of plan.sweep) rows.push({ workload: MLP.label, path: PATHS.bareSession, c: String(c), anchor: false });
  for (const m of BATCHED) {
    for (const path of [PATHS.batchingOff, PATHS.batchingOn]) rows.push({ workload: m.label, path, c: String(BATCH_CLIENTS), anchor: false });
  }
  for (const n of [1, 2]) rows.push({ workload: MLP.label, path: PATHS.workers(n), c: String(WORKERS_CONCURRENCY), anchor: false });
  rows.push(...hopRows(plan));
  return rows;
}

const HEADER = [
  'workload',
  'path',
  'c',
  'req/s',
  'p50 ms',
  'p99 ms',
  'RSS MiB',
  'anchor req/s',
  'anchor p50 ms',
  'anchor p99 ms',
  'anchor RSS MiB',
  '× req/s',
  '× p50',
  '× p99',
  '× RSS',
];

function num(n: number | undefined, kind: 'rps' | 'ms' | 'MiB'): string {
  if (n === undefined) return '–';
  if (kind === 'rps' || kind === 'MiB') return n.toFixed(kind === 'rps' ? 0 : 1);
  return n.toFixed(n >= 100 ? 0 : n >= 10 ? 1 : 2);
}

function ratio(a: number | undefined, b: number | undefined): string {
  return a === undefined || b === undefined || b === 0 ? '–' : `${(a / b).toFixed(2)}`;
}

function side(m: Measure | undefined): string[] {
  return [num(m?.rps, 'rps'), num(m?.p50, 'ms'), num(m?.p99, 'ms'), num(m?.rss, 'MiB')];
}

/** The marker a row's path cell carries when the anchor failed it: footnote `n` says why. */
const failedMarker = (n: number) => `(anchor failed [${n}])`;
const FAILED_MARKER = / \(anchor failed \[\d+\]\)$/;

/**
 * The table, then one footnote per row the anchor failed. Errors counted in a path cell are
 * kserve-ts's, and the anchor's on rows it did not fail.
 */
export function renderTable(rows: readonly Row[]): string {
  const lines = [`| ${HEADER.join(' | ')} |`, `|---|---|${'---:|'.repeat(HEADER.length - 2)}`];
  const notes: string[] = [];
  for (const r of rows) {
    const a = r.anchorFailure === undefined ? r.anchor : undefined;
    const errors = (r.ours.errors ?? 0) + (a?.errors ?? 0);
    let path = errors > 0 ? `${r.path} (${errors} errors)` : r.path;
    let anchorCells = side(a);
    if (r.anchorFailure !== undefined) {
      notes.push(`[${notes.length + 1}] anchor failed ${r.workload} / ${r.path} / c=${r.c} after a restart and one retry: ${oneLine(r.anchorFailure)}`);
      path = `${path} ${failedMarker(notes.length)}`;
      anchorCells = [`✗ [${notes.length}]`, '–', '–', '–'];
    }
    lines.push(
      `| ${[
        r.workload,
        path,
        r.c,
        ...side(r.ours),
        ...anchorCells,
        ratio(r.ours.rps, a?.rps),
        ratio(r.ours.p50, a?.p50),
        ratio(r.ours.p99, a?.p99),
        ratio(r.ours.rss, a?.rss),
      ].join(' | ')} |`,
    );
  }
  return [...lines, ...(notes.length > 0 ? ['', ...notes] : [])].join('\n');
}

/** An error as one table-safe line. */
function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').replace(/\|/g, '/').trim().slice(0, 300);
}

/** The data rows of a table printed by `renderTable`, as header → cell. */
export function parseTable(markdown: string): Array<Record<string, string>> {
  const lines = markdown.split('\n').filter((l) => l.startsWith('| '));
  const cells = (l: string) => l.slice(2, -2).split(' | ');
  const header = lines.findIndex((l) => cells(l)[0] === HEADER[0] && cells(l)[1] === HEADER[1]);
  if (header < 0) return [];
  const names = cells(lines[header] as string);
  return lines.slice(header + 1).map((l) => Object.fromEntries(cells(l).map((c, i) => [names[i] ?? String(i), c])));
}

/**
 * What keeps a printed table from being complete for `plan`: a planned row missing, a row
 * with errors, or a side that measured nothing (no throughput; for the start-up row, no
 * start time or memory). A row the anchor failed (marked, with its footnote) needs only
 * kserve-ts's side. Empty when complete. Values are not judged: no timing assertions.
 */
export function tableProblems(markdown: string, plan: Plan, planned = plannedRows(plan)): string[] {
  const printed = parseTable(markdown);
  const problems: string[] = [];
  for (const want of planned) {
    const key = `${want.workload} / ${want.path} / c=${want.c}`;
    const row = printed.find((r) => r['workload'] === want.workload && r['c'] === want.c && (r['path'] === want.path || r['path']?.startsWith(`${want.path} (`)));
    if (row === undefined) {
      problems.push(`missing row: ${key}`);
      continue;
    }
    const printedPath = row['path'] ?? '';
    const anchorFailed = want.anchor && FAILED_MARKER.test(printedPath);
    if (printedPath.replace(FAILED_MARKER, '') !== want.path) problems.push(`errors in row: ${key}: ${printedPath}`);
    const sides = want.anchor && !anchorFailed ? ['', 'anchor '] : [''];
    for (const s of sides) {
      const fields = want.path === PATHS.start ? [`${s}p50 ms`, `${s}RSS MiB`] : [`${s}req/s`];
      for (const f of fields) {
        const v = Number(row[f]);
        if (!(v > 0)) problems.push(`no measurement in row: ${key}: ${f} = ${row[f] ?? 'absent'}`);
      }
    }
  }
  return problems;
}

/**
 * Issue 19's targets, each as this run's figure and a verdict (only those whose rows exist).
 * Ratios are kserve-ts / anchor from rows measured side by side; rows the anchor failed count
 * as unmeasured, never as met.
 */
export function targetLines(rows: readonly Row[]): string[] {
  const find = (workload: string, path: string, c: string) => rows.find((r) => r.workload === workload && r.path === path && r.c === c);
  const both = (r: Row | undefined) => (r === undefined || r.anchorFailure !== undefined || r.anchor === undefined ? undefined : { ours: r.ours, anchor: r.anchor });
  const x = (n: number) => `${n.toFixed(2)}×`;
  const pct = (n: number) => `${(100 * n).toFixed(0)}%`;
  const verdict = (ok: boolean) => (ok ? 'met' : 'not met');
  const concurrencies = (workload: string, path: string) => rows.filter((r) => r.workload === workload && r.path === path).map((r) => r.c);
  const out: string[] = [];

  const json = find(MLP.label, 'V2 JSON', '32')?.ours.rps;
  const bare = find(MLP.label, PATHS.bareSession, '32')?.ours.rps;
  const hello = find(FRAMEWORK, PATHS.hello, '32')?.ours.rps;
  if (json !== undefined && bare !== undefined && hello !== undefined && bare > 0 && hello > 0) {
    out.push(
      `- (1) V2 JSON mlp c=32: ${pct(json / bare)} of the bare fastify+session route, ${pct(json / hello)} of hello-world (targets ≥ 100%, ≥ 40%: ${verdict(json >= bare)}, ${verdict(json >= 0.4 * hello)}).`,
    );
  }
  for (const protocol of ['gRPC typed', 'gRPC raw'] as const) {
    const r = both(find(MLP.label, protocol, '32'));
    if (r?.ours.rps === undefined || r.anchor.rps === undefined || r.ours.p99 === undefined || r.anchor.p99 === undefined) continue;
    const thr = r.ours.rps / r.anchor.rps;
    const p99 = r.ours.p99 / r.anchor.p99;
    out.push(`- (1) ${protocol}, mlp c=32: ${x(thr)} the anchor's throughput at ${x(p99)} its p99 (targets ≥ 10×, ≤ 0.2×: ${verdict(thr >= 10)}, ${verdict(p99 <= 0.2)}).`);
  }

  for (const protocol of ['gRPC raw', 'gRPC typed'] as const) {
    const parts: string[] = [];
    let met = 0;
    for (const c of concurrencies(CONV.label, protocol)) {
      const r = both(find(CONV.label, protocol, c));
      if (r?.ours.rps === undefined || r.anchor.rps === undefined || r.ours.p99 === undefined || r.anchor.p99 === undefined) continue;
      const thr = r.ours.rps / r.anchor.rps;
      const p99 = r.ours.p99 / r.anchor.p99;
      if (thr >= 1.5 && p99 <= 1) met++;
      parts.push(`c=${c} ${x(thr)} at ${x(p99)} p99`);
    }
    if (parts.length > 0) out.push(`- (2) conv ${protocol}: ${parts.join(', ')} (target ≥ 1.5× at p99 ≤ 1×: met at ${met} of ${parts.length}).`);
  }
  for (const m of COMPARED) {
    const parts: string[] = [];
    for (const c of concurrencies(m.label, 'gRPC raw')) {
      const ours = find(m.label, 'gRPC raw', c)?.ours.rps;
      const shares = BARE_GRPC.map((b) => find(m.label, b.path, c)?.ours.rps).map((bare) => (ours === undefined || bare === undefined || bare === 0 ? '–' : pct(ours / bare)));
      if (shares.some((sh) => sh !== '–')) parts.push(`c=${c} ${shares.join(' / ')}`);
    }
    if (parts.length > 0) out.push(`- ceilings, ${m.label} gRPC raw: throughput as a share of bare node:http2 / bare grpc-js: ${parts.join(', ')}.`);
  }
  {
    const parts: string[] = [];
    let met = 0;
    for (const c of concurrencies(CONV.label, 'V2 JSON')) {
      const r = both(find(CONV.label, 'V2 JSON', c));
      if (r?.ours.rps === undefined || r.anchor.rps === undefined || r.anchor.rps === 0) continue;
      const thr = r.ours.rps / r.anchor.rps;
      if (thr >= 4) met++;
      parts.push(`c=${c} ${x(thr)}`);
    }
    if (parts.length > 0) out.push(`- (2) conv V2 JSON: ${parts.join(', ')} the anchor's throughput (target ≥ 4× at every concurrency: met at ${met} of ${parts.length}).`);
  }
  {
    const parts: string[] = [];
    let met = 0;
    for (const protocol of ['V2 binary', 'gRPC raw'] as const) {
      for (const c of ['1', '8']) {
        const r = find(CONV.label, protocol, c)?.ours;
        if (r?.p50 === undefined || r.p99 === undefined || r.p50 === 0) continue;
        const tail = r.p99 / r.p50;
        if (tail <= 3) met++;
        parts.push(`${protocol} c=${c} p99 ${x(tail)} p50`);
      }
    }
    if (parts.length > 0) out.push(`- (2) conv tails: ${parts.join(', ')} (target ≤ 3×: met at ${met} of ${parts.length}).`);
  }

  for (const m of BATCHED) {
    const off = find(m.label, PATHS.batchingOff, String(BATCH_CLIENTS))?.ours;
    const on = find(m.label, PATHS.batchingOn, String(BATCH_CLIENTS))?.ours;
    if (off?.rps === undefined || on?.rps === undefined || off.p99 === undefined || on.p99 === undefined || off.rps === 0) continue;
    const gain = on.rps / off.rps;
    const goal = m === MATMUL ? 2 : 1;
    const target = m === MATMUL ? 'target ≥ 2× on the compute-bound model' : 'target: never slower than off, ≥ 1×';
    out.push(
      `- (3) ${m.label}, ${BATCH_CLIENTS} clients: batching on gives ${x(gain)} the throughput of off, p99 ${on.p99.toFixed(1)} vs ${off.p99.toFixed(1)} ms (${target}: ${verdict(gain >= goal)}).`,
    );
  }

  const start = both(find(START_WORKLOAD, PATHS.start, '–'));
  if (start?.ours.p50 !== undefined && start.anchor.p50 !== undefined) {
    const r = start.ours.p50 / start.anchor.p50;
    out.push(`- (4) cold start: ${x(r)} the anchor's (median; target ≤ 0.33×: ${verdict(r <= 1 / 3)}).`);
  }
  if (start?.ours.rss !== undefined && start.anchor.rss !== undefined) {
    const r = start.ours.rss / start.anchor.rss;
    out.push(`- (5) RSS idle with mlp loaded: ${x(r)} the anchor's (target ≤ 0.5×: ${verdict(r <= 0.5)}).`);
  }
  const loaded = rows
    .filter((r) => COMPARED.some((m) => m.label === r.workload) && r.path !== PATHS.inProcess)
    .map(both)
    .filter((r): r is NonNullable<typeof r> => r?.ours.rss !== undefined && r.anchor.rss !== undefined && r.anchor.rss > 0);
  if (loaded.length > 0) {
    const ratios = loaded.map((r) => (r.ours.rss as number) / (r.anchor.rss as number));
    const below = ratios.filter((q) => q < 1).length;
    out.push(
      `- (5) RSS under load: below the anchor's in ${below} of ${loaded.length} rows, worst ${x(Math.max(...ratios))} (mlp and conv rows; target: below in every row: ${verdict(below === loaded.length)}).`,
    );
  }

  const w1 = find(MLP.label, PATHS.workers(1), String(WORKERS_CONCURRENCY))?.ours.rps;
  const w2 = find(MLP.label, PATHS.workers(2), String(WORKERS_CONCURRENCY))?.ours.rps;
  if (w1 !== undefined && w2 !== undefined && w1 > 0) out.push(`- --workers 2 vs 1: ${x(w2 / w1)} (no issue-19 target; here the load generator shares the cores).`);
  const failed = rows.filter((r) => r.anchorFailure !== undefined).length;
  if (failed > 0) out.push(`- The anchor failed ${failed} row(s) even after a restart (footnotes under the table); their ratios are missing above.`);
  return out;
}

/**
 * What the hop costs, per side, protocol and concurrency: throughput behind the transformer
 * as a fraction of the predictor alone, and the p50 / p99 it adds (ms).
 */
export function hopLines(rows: readonly Row[]): string[] {
  const out: string[] = [];
  const f = (n: number) => n.toFixed(2);
  const signed = (n: number) => `${n >= 0 ? '+' : '−'}${Math.abs(n).toFixed(2)}`;
  for (const p of HOP_PROTOCOLS) {
    for (const alone of rows.filter((r) => r.workload === HOP && r.path === HOP_PATHS.alone(p.client))) {
      const hop = rows.find((r) => r.workload === HOP && r.path === HOP_PATHS.hop(p.client) && r.c === alone.c);
      if (hop === undefined) continue;
      const parts: string[] = [];
      for (const [label, a, h] of [
        ['kserve-ts', alone.ours, hop.ours],
        ['KServe Python', alone.anchor, hop.anchor],
      ] as const) {
        if (a?.rps === undefined || h?.rps === undefined || a.p50 === undefined || h.p50 === undefined || a.p99 === undefined || h.p99 === undefined) continue;
        parts.push(`${label} ${f(h.rps / a.rps)}× the throughput, ${signed(h.p50 - a.p50)} ms p50, ${signed(h.p99 - a.p99)} ms p99`);
      }
      if (parts.length > 0) out.push(`- hop, ${p.client} (${p.hop} to the predictor), c=${alone.c}: ${parts.join('; ')}.`);
    }
  }
  return out;
}
