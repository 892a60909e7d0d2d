/**
 * What the benchmark suite measures and how it reports it: the models, the rows a run must
 * produce, the one Markdown table, the issue's targets as ratios, and the completeness check
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
  batchingOff: 'V2 binary, batching off',
  batchingOn: 'V2 binary, batching on (max 16, 2 ms)',
  start: 'cold start: spawn → model ready; RSS idle',
  workers: (n: number) => `V2 JSON, --workers ${n}, nothing pinned`,
} as const;
export const FRAMEWORK = 'fastify, no model';

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
  for (const path of [PATHS.hello, PATHS.echo]) for (const c of plan.sweep) rows.push({ workload: FRAMEWORK, path, c: String(c), anchor: false });
  for (const m of BATCHED) {
    for (const path of [PATHS.batchingOff, PATHS.batchingOn]) rows.push({ workload: m.label, path, c: String(BATCH_CLIENTS), anchor: false });
  }
  for (const n of [1, 2]) rows.push({ workload: MLP.label, path: PATHS.workers(n), c: String(WORKERS_CONCURRENCY), anchor: false });
  rows.push(...hopRows(plan));
  return rows;
}

const HEADER = ['workload', 'path', 'c', 'req/s', 'p50 ms', 'p99 ms', 'RSS MiB', 'anchor req/s', 'anchor p50 ms', 'anchor p99 ms', 'anchor RSS MiB', '× req/s', '× p50', '× p99', '× RSS'];

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

export function renderTable(rows: readonly Row[]): string {
  const lines = [`| ${HEADER.join(' | ')} |`, `|---|---|${'---:|'.repeat(HEADER.length - 2)}`];
  for (const r of rows) {
    const errors = (r.ours.errors ?? 0) + (r.anchor?.errors ?? 0);
    const a = r.anchor;
    lines.push(
      `| ${[
        r.workload,
        errors > 0 ? `${r.path} (${errors} errors)` : r.path,
        r.c,
        ...side(r.ours),
        ...side(a),
        ratio(r.ours.rps, a?.rps),
        ratio(r.ours.p50, a?.p50),
        ratio(r.ours.p99, a?.p99),
        ratio(r.ours.rss, a?.rss),
      ].join(' | ')} |`,
    );
  }
  return lines.join('\n');
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
 * start time or memory). Empty when complete. Values are not judged: no timing assertions.
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
    if (row['path'] !== want.path) problems.push(`errors in row: ${key}: ${row['path']}`);
    const sides = want.anchor ? ['', 'anchor '] : [''];
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

/** The issue's targets as ratios from this run's rows (only those whose rows exist). */
export function targetLines(rows: readonly Row[]): string[] {
  const find = (workload: string, path: string, c: string) => rows.find((r) => r.workload === workload && r.path === path && r.c === c);
  const x = (n: number) => `${n.toFixed(2)}×`;
  const verdict = (ok: boolean) => (ok ? 'met' : 'not met');
  const out: string[] = [];
  const hello = find(FRAMEWORK, PATHS.hello, '32')?.ours.rps;
  for (const protocol of ['V2 JSON', 'gRPC typed', 'gRPC raw'] as const) {
    const r = find(MLP.label, protocol, '32');
    if (r?.ours.rps === undefined || r.anchor?.rps === undefined || r.ours.p99 === undefined || r.anchor.p99 === undefined) continue;
    const thr = r.ours.rps / r.anchor.rps;
    const p99 = r.ours.p99 / r.anchor.p99;
    const ceiling = hello === undefined ? '' : `; ${((100 * r.ours.rps) / hello).toFixed(0)}% of fastify hello-world at c=32 (target ≥ 60%: ${verdict(r.ours.rps >= 0.6 * hello)})`;
    out.push(`- (1) ${protocol}, mlp c=32: ${x(thr)} the anchor's throughput (target ≥ 10×: ${verdict(thr >= 10)}) at ${x(p99)} its p99 (target ≤ 0.2×: ${verdict(p99 <= 0.2)})${ceiling}.`);
  }
  const runtime = find(CONV.label, PATHS.inProcess, '1')?.ours.p50;
  for (const protocol of ['V2 binary', 'gRPC raw'] as const) {
    const r = find(CONV.label, protocol, '1');
    if (runtime === undefined || r?.ours.p50 === undefined) continue;
    const overhead = r.ours.p50 / runtime - 1;
    out.push(
      `- (2) ${protocol}, conv c=1: p50 ${r.ours.p50.toFixed(2)} ms vs ${runtime.toFixed(2)} ms in-process: server overhead ${(100 * overhead).toFixed(0)}% (target ≤ 20%: ${verdict(overhead <= 0.2)}).`,
    );
  }
  for (const m of BATCHED) {
    const off = find(m.label, PATHS.batchingOff, String(BATCH_CLIENTS))?.ours;
    const on = find(m.label, PATHS.batchingOn, String(BATCH_CLIENTS))?.ours;
    if (off?.rps === undefined || on?.rps === undefined || off.p99 === undefined || on.p99 === undefined) continue;
    const gain = on.rps / off.rps;
    out.push(`- (3) ${m.label}, ${BATCH_CLIENTS} clients: batching on gives ${x(gain)} the throughput of off (target ≥ 2×: ${verdict(gain >= 2)}), p99 ${on.p99.toFixed(1)} vs ${off.p99.toFixed(1)} ms.`);
  }
  const start = find(START_WORKLOAD, PATHS.start, '–');
  if (start?.ours.p50 !== undefined && start.anchor?.p50 !== undefined) {
    const r = start.ours.p50 / start.anchor.p50;
    out.push(`- (4) cold start: ${x(r)} the anchor's (median; target ≤ 0.33×: ${verdict(r <= 1 / 3)}).`);
  }
  if (start?.ours.rss !== undefined && start.anchor?.rss !== undefined) {
    const r = start.ours.rss / start.anchor.rss;
    out.push(`- (5) RSS with mlp loaded: ${x(r)} the anchor's (target ≤ 0.5×: ${verdict(r <= 0.5)}).`);
  }
  const w1 = find(MLP.label, PATHS.workers(1), String(WORKERS_CONCURRENCY))?.ours.rps;
  const w2 = find(MLP.label, PATHS.workers(2), String(WORKERS_CONCURRENCY))?.ours.rps;
  if (w1 !== undefined && w2 !== undefined) {
    out.push(`- --workers 2 vs 1: ${x(w2 / w1)} (target ≥ 1.6× with the load generator elsewhere; here it shares the cores).`);
  }
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
