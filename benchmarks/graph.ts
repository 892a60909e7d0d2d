/**
 * The InferenceGraph workload (issue 29): one graph per router type in front of the mlp
 * model (one kserve-ts predictor, pinned to CPU 1), routed by kserve-ts's router and by
 * KServe's Go router (cmd/router of kserve v0.20.0, scripts/graph-oracles.sh) on the same
 * graph JSON, side by side; the routers run on CPU 1 too, the load generator on CPU 0.
 *
 * - Sequence: two steps, both given the request; the answer is the second's.
 * - Switch: two steps, the first one's condition matches (read on the request).
 * - Ensemble: two steps at once, answers merged by step name.
 * - Splitter: two steps, 50 / 50.
 *
 * Protocols: REST V2 JSON (both routers), REST V2 binary and gRPC raw (kserve-ts only:
 * KServe's router passes neither; its columns stay empty there). The Ensemble's binary row
 * sends binary inputs and asks for JSON outputs: ensembles merge JSON answers.
 * KServe's router binds :8080 on every address, so the run happens in a network namespace
 * of its own (benchmarks/graph.sh); one KServe router runs at a time, ours beside it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { ROOT } from './harness.js';
import { type LoadResult } from './load.js';
import { type HttpPayload, type Probe, probes, sampleData } from './payloads.js';
import { type ServerProcess, freePort, launch, onnxRepository, startKserveTs, treeRssMiB } from './servers.js';
import { MLP, type Measure, type Row } from './suite-report.js';

export const GRAPH_WORKLOAD = 'graph router, mlp_64x8 1×64';
export const GRAPH_TYPES = ['Sequence', 'Switch', 'Ensemble', 'Splitter'] as const;
export const GRAPH_PROTOCOLS = ['V2 JSON', 'V2 binary', 'gRPC raw'] as const;
type GraphType = (typeof GRAPH_TYPES)[number];
type GraphProtocol = (typeof GRAPH_PROTOCOLS)[number];

export const graphPath = (type: GraphType, protocol: GraphProtocol): string => `${type}, ${protocol}`;

/** KServe's router: REST JSON only. */
export const kserveServes = (protocol: GraphProtocol): boolean => protocol === 'V2 JSON';

export function graphRows(plan: { sweep: readonly number[]; anchor: boolean }): Array<{ workload: string; path: string; c: string; anchor: boolean }> {
  return GRAPH_TYPES.flatMap((type) =>
    GRAPH_PROTOCOLS.flatMap((protocol) =>
      plan.sweep.map((c) => ({ workload: GRAPH_WORKLOAD, path: graphPath(type, protocol), c: String(c), anchor: plan.anchor && kserveServes(protocol) })),
    ),
  );
}

function graphOf(type: GraphType, stepUrl: string): Record<string, unknown> {
  const step = (name: string, extra: Record<string, unknown> = {}) => ({ name, serviceUrl: stepUrl, ...extra });
  const steps: Record<GraphType, unknown[]> = {
    Sequence: [step('first'), step('second')],
    Switch: [step('fp32', { condition: '[@this].#(inputs.0.datatype=="FP32")' }), step('other', { condition: '[@this].#(inputs.0.datatype=="INT64")' })],
    Ensemble: [step('a'), step('b')],
    Splitter: [step('left', { weight: 50 }), step('right', { weight: 50 })],
  };
  return { nodes: { root: { routerType: type, steps: steps[type] } } };
}

export interface GraphSettings {
  /** KServe's router binary; undefined runs kserve-ts only. */
  readonly kserveRouter: string | undefined;
  readonly pinned: boolean;
  readonly sweep: readonly number[];
  readonly seconds: number;
  readonly warmSeconds: number;
  readonly progress: (line: string) => void;
}

interface Router {
  readonly rssMiB: () => number;
  readonly probes: ReadonlyMap<GraphProtocol, Probe>;
  stop(): Promise<void>;
}

const measured = (r: LoadResult, rss: number): Measure => ({ rps: r.rps, p50: r.p50, p99: r.p99, errors: r.errors, rss });

/** The Ensemble's binary request: binary inputs, JSON outputs (the merge reads JSON). */
function binaryInJsonOut(p: HttpPayload): HttpPayload {
  const length = Number(p.headers['inference-header-content-length']);
  const body = p.body as Buffer;
  const header = JSON.parse(body.subarray(0, length).toString('utf8')) as Record<string, unknown>;
  delete header['parameters'];
  const h = Buffer.from(JSON.stringify(header));
  return { ...p, body: Buffer.concat([h, body.subarray(length)]), headers: { ...p.headers, 'inference-header-content-length': String(h.length) } };
}

function probesFor(type: GraphType, base: string, grpcPort: number): Map<GraphProtocol, Probe> {
  const data = sampleData(MLP.tensor.shape);
  const all = probes({ base, grpcPort }, MLP.tensor, data, type === 'Ensemble' ? { binary: binaryInJsonOut } : {});
  const out = new Map<GraphProtocol, Probe>();
  for (const p of all) if ((GRAPH_PROTOCOLS as readonly string[]).includes(p.protocol)) out.set(p.protocol as GraphProtocol, p);
  return out;
}

async function startOurs(type: GraphType, predictor: ServerProcess, stepUrl: string, pinned: boolean): Promise<Router> {
  const [httpPort, grpcPort] = [await freePort(), await freePort()];
  const server = await launch({
    name: `kserve-ts router (${type})`,
    cmd: [
      'node',
      'dist/bin/router.js',
      '--graph-json',
      JSON.stringify(graphOf(type, stepUrl)),
      '--http_host',
      '127.0.0.1',
      '--http_port',
      String(httpPort),
      '--grpc_port',
      String(grpcPort),
      '--drain_seconds',
      '0',
      '--log_level',
      'warn',
      '--step_grpc_targets',
      JSON.stringify({ [predictor.base]: `127.0.0.1:${predictor.grpcPort}` }),
    ],
    httpPort,
    grpcPort,
    readyPaths: ['/readyz'],
    pinned,
  });
  return { rssMiB: () => server.rssMiB(), probes: probesFor(type, server.base, grpcPort), stop: () => server.stop() };
}

async function startKServe(bin: string, type: GraphType, stepUrl: string, pinned: boolean): Promise<Router> {
  const args = ['--graph-json', JSON.stringify(graphOf(type, stepUrl))];
  const [file, argv] = pinned ? ['taskset', ['-c', '1', bin, ...args]] : [bin, args];
  const child: ChildProcess = spawn(file, argv, { cwd: ROOT, stdio: 'ignore' });
  const base = 'http://127.0.0.1:8080';
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`KServe's router exited (${child.exitCode}) before it listened`);
    if ((await fetch(`${base}/readyz`).catch(() => undefined))?.status === 200) break;
    if (i > 3000) throw new Error("KServe's router did not answer /readyz within 30 s");
    await new Promise((r) => setTimeout(r, 10));
  }
  return {
    rssMiB: () => treeRssMiB(child.pid as number),
    probes: probesFor(type, base, 0),
    // SIGTERM would hold :8080 for its 30 s drain.
    stop: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

export async function graphWorkload(s: GraphSettings): Promise<Row[]> {
  const repo = onnxRepository({ [MLP.tensor.model]: MLP.file });
  let predictor: ServerProcess | undefined;
  const rows: Row[] = [];
  try {
    predictor = await startKserveTs({ repo: repo.dir, models: [MLP.tensor.model], pinned: s.pinned });
    const stepUrl = `${predictor.base}/v2/models/${MLP.tensor.model}/infer`;
    for (const type of GRAPH_TYPES) {
      s.progress(`${GRAPH_WORKLOAD}: ${type}: starting the routers`);
      const ours = await startOurs(type, predictor, stepUrl, s.pinned);
      const theirs = s.kserveRouter === undefined ? undefined : await startKServe(s.kserveRouter, type, stepUrl, s.pinned);
      try {
        for (const p of ours.probes.values()) await p.check();
        await theirs?.probes.get('V2 JSON')?.check();
        for (const p of ours.probes.values()) await p.load(8, s.warmSeconds);
        await theirs?.probes.get('V2 JSON')?.load(8, s.warmSeconds);
        for (const protocol of GRAPH_PROTOCOLS) {
          for (const c of s.sweep) {
            s.progress(`${GRAPH_WORKLOAD}: ${type}, ${protocol}, c=${c}`);
            const mine = measured(await ours.probes.get(protocol)!.load(c, s.seconds), ours.rssMiB());
            const other = theirs !== undefined && kserveServes(protocol) ? measured(await theirs.probes.get(protocol)!.load(c, s.seconds), theirs.rssMiB()) : undefined;
            rows.push({ workload: GRAPH_WORKLOAD, path: graphPath(type, protocol), c: String(c), ours: mine, ...(other === undefined ? {} : { anchor: other }) });
          }
        }
      } finally {
        await Promise.all([ours.stop(), theirs?.stop()]);
      }
    }
    return rows;
  } finally {
    await predictor?.stop();
    repo.remove();
  }
}
