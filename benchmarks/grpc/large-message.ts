/**
 * Large gRPC messages (issue 34): gRPC raw ModelInfer against kserve-ts, an earlier build of
 * it (before/after), the anchor when its virtualenv is cached, and the two ceilings of
 * bare-server.ts (bare node:http2, bare grpc-js), all up at once and pinned to CPU 1, the
 * load generator (pre-encoded calls over node:http2, as the suite's) on CPU 0. Every point is
 * measured in `--rounds` rounds, the servers alternating, so load from other processes hits
 * all alike; the table gives medians.
 *
 * Besides throughput and latency, each point reports what does not depend on how busy the
 * machine is: CPU time per call of the server's process (all its threads, /proc) and, for
 * kserve-ts, the main-thread garbage collections per 1000 calls by kind (prom-client's
 * nodejs_gc_duration_seconds counts, scraped before and after).
 *
 *   npm run build && node --import tsx benchmarks/grpc/large-message.ts [--baseline DIR[,DIR...]]
 *     [--anchor | --anchor_python PATH] [--model conv|mlp] [--no-ceilings] [--seconds 5] [--rounds 3] [--concurrency 1,8,32]
 *     [--node_args '--flag ...']   more Node flags for this checkout's server
 *     [--baseline_node_flags]      launch the baselines with server/heap-tuning.ts's NODE_FLAGS too (default: Node's defaults)
 *
 * `--anchor` takes the compatibility virtualenv (test/compat/venv.sh, built on first use);
 * `--anchor_python` names another interpreter with the same kserve release and onnxruntime.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { numberArg } from '../harness.js';
import { type LoadResult, closedLoop } from '../load.js';
import { machineLine } from '../machine.js';
import { grpcRaw, sampleData } from '../payloads.js';
import { anchorPython, onnxRepository, pinLoadGenerator, type ServerProcess, startAnchor, startBareGrpc, startKserveTs } from '../servers.js';
import { CONV, MLP } from '../suite-report.js';
import { CALLS_PER_CONNECTION, encodeInfer, inferConnections } from './pre-encoded-client.js';

const MODELS = { conv: CONV, mlp: MLP } as const;
const GC_KINDS = ['minor', 'major', 'incremental'] as const;
const CLOCK_TICKS = 100;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const progress = (s: string) => process.stderr.write(`[large-message] ${s}\n`);
function stringArg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** CPU seconds of `pid` (every thread), from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** Main-thread GC counts by kind from a kserve-ts server's /metrics; undefined for the others. */
async function gcCounts(s: ServerProcess): Promise<Record<string, number> | undefined> {
  const r = await fetch(`${s.base}/metrics`).catch(() => undefined);
  if (r?.status !== 200) return undefined;
  const text = await r.text();
  if (!text.includes('nodejs_gc_duration_seconds_count')) return undefined;
  const out: Record<string, number> = {};
  for (const kind of GC_KINDS) out[kind] = Number(new RegExp(`nodejs_gc_duration_seconds_count\\{kind="${kind}"\\} (\\d+)`).exec(text)?.[1] ?? 0);
  return out;
}

interface Point {
  readonly load: LoadResult;
  readonly cpuMsPerCall: number;
  /** Per 1000 calls, by kind. */
  readonly gc?: Record<string, number>;
}

async function measure(s: ServerProcess, framed: Buffer, c: number, seconds: number): Promise<Point> {
  const connections = inferConnections(`127.0.0.1:${s.grpcPort}`, Math.ceil(c / CALLS_PER_CONNECTION));
  try {
    await closedLoop('warm-up', c, 0.5, () => connections.call(framed));
    const pid = s.child.pid as number;
    const gc0 = await gcCounts(s);
    const cpu0 = cpuSeconds(pid);
    let answered = 0;
    const load = await closedLoop(s.name, c, seconds, () => connections.call(framed).then(() => answered++));
    const cpu1 = cpuSeconds(pid);
    const gc1 = await gcCounts(s);
    const calls = Math.max(1, answered);
    const gc = gc0 === undefined || gc1 === undefined ? undefined : Object.fromEntries(GC_KINDS.map((k) => [k, ((gc1[k] ?? 0) - (gc0[k] ?? 0)) * (1000 / calls)]));
    return { load, cpuMsPerCall: ((cpu1 - cpu0) * 1000) / calls, ...(gc === undefined ? {} : { gc }) };
  } finally {
    connections.close();
  }
}

async function main(): Promise<void> {
  const seconds = numberArg('seconds', 5);
  const rounds = numberArg('rounds', 3);
  const sweep = (stringArg('concurrency') ?? '1,8,32').split(',').map(Number);
  const model = MODELS[(stringArg('model') ?? 'conv') as keyof typeof MODELS];
  if (model === undefined) throw new Error(`--model: one of ${Object.keys(MODELS).join(', ')}`);
  const baseline = stringArg('baseline');
  const started = new Date();
  const load0 = loadavg()[0] as number;
  const pinned = pinLoadGenerator();
  const repo = onnxRepository({ [model.tensor.model]: model.file });
  const models = [model.tensor.model];
  const servers: ServerProcess[] = [];
  try {
    const nodeArgs = stringArg('node_args')?.split(' ').filter(Boolean);
    servers.push(await startKserveTs({ repo: repo.dir, models, pinned, ...(nodeArgs === undefined ? {} : { nodeArgs }) }));
    // A baseline is launched with Node's defaults, as builds before NODE_FLAGS were; `--baseline_node_flags` launches it as this one.
    const baselineDefaults = !process.argv.includes('--baseline_node_flags');
    for (const root of baseline?.split(',') ?? []) servers.push(await startKserveTs({ repo: repo.dir, models, pinned, root, defaultNode: baselineDefaults }));
    const python = stringArg('anchor_python') ?? (process.argv.includes('--anchor') ? anchorPython() : undefined);
    if (python !== undefined) servers.push(await startAnchor({ python, repo: repo.dir, models, pinned }));
    if (!process.argv.includes('--no-ceilings')) servers.push(await startBareGrpc({ kind: 'http2', pinned }), await startBareGrpc({ kind: 'grpc-js', pinned }));
    const framed = encodeInfer(grpcRaw(model.tensor, sampleData(model.tensor.shape)));
    const points = new Map<string, Point[]>();
    for (let round = 0; round < rounds; round++) {
      for (const c of sweep) {
        const order = round % 2 === 0 ? servers : [...servers].reverse();
        for (const s of order) {
          progress(`round ${round + 1}/${rounds}, c=${c}, ${s.name}`);
          const p = await measure(s, framed, c, seconds);
          if (p.load.errors > 0) throw new Error(`${s.name} c=${c}: ${p.load.errors} errors`);
          const key = `${s.name}\u0000${c}`;
          points.set(key, [...(points.get(key) ?? []), p]);
        }
      }
    }
    const fmt = (x: number, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : '–');
    const lines = [
      `Run ${started.toISOString()}; ${machineLine()}; load average ${load0.toFixed(2)} at the start, ${(loadavg()[0] as number).toFixed(2)} at the end (1 min).`,
      `${model.label}, gRPC raw (${framed.byteLength - 5} B message); ${seconds} s per point, ${rounds} rounds alternating, medians; servers pinned to CPU 1, load generator to CPU 0.`,
      '',
      '| server | c | req/s | p50 ms | p99 ms | CPU ms / call | GC / 1000 calls (minor, major, incremental) |',
      '|---|---:|---:|---:|---:|---:|---|',
    ];
    for (const s of servers) {
      for (const c of sweep) {
        const ps = points.get(`${s.name}\u0000${c}`) ?? [];
        const gcs = ps.map((p) => p.gc).filter((g) => g !== undefined);
        const gc = gcs.length === 0 ? '–' : GC_KINDS.map((k) => fmt(median(gcs.map((g) => g[k] ?? 0)), 1)).join(', ');
        lines.push(
          `| ${s.name} | ${c} | ${fmt(median(ps.map((p) => p.load.rps)), 0)} | ${fmt(median(ps.map((p) => p.load.p50)))} | ${fmt(median(ps.map((p) => p.load.p99)))} | ${fmt(median(ps.map((p) => p.cpuMsPerCall)), 3)} | ${gc} |`,
        );
      }
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    for (const s of servers) await s.stop();
    repo.remove();
  }
}

await main();
