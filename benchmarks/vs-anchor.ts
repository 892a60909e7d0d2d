/**
 * kserve-ts against the anchor (KServe 0.20's Python ModelServer with an onnxruntime model,
 * test/compat/anchor_server.py) on the same machine, the same ONNX file and the same load:
 * cold start (spawn to model ready), RSS with the model loaded, and V2 REST throughput and
 * latency over a concurrency sweep. One server runs at a time; both are pinned to CPU 1 and
 * the load generator to CPU 0 where taskset exists.
 *
 *   npm run build && node --import tsx benchmarks/vs-anchor.ts [--seconds 5] [--write]
 *
 * `--write` replaces the anchor section of benchmarks/RESULTS.md with this run's tables.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { type LoadResult, runLoad } from './load.js';
import { machineLine } from './machine.js';
import { ROOT, numberArg, stopChild, writeResultsSection } from './harness.js';

const MODEL = path.join(ROOT, 'test/fixtures/models/mlp_64x8.onnx');
const SECONDS = numberArg('seconds', 5);
const SWEEP = [1, 8, 32, 128];

const PINNED = cpus().length >= 2 && spawnSync('taskset', ['-p', '-c', '0', String(process.pid)], { stdio: 'ignore' }).status === 0;

interface Server {
  readonly name: string;
  readonly child: ChildProcess;
  readonly base: string;
  readonly coldStartMs: number;
  readonly rssMiB: number;
}

/** Resident memory of a process and its descendants (MiB), from /proc. */
function treeRssMiB(pid: number): number {
  const status = (p: number) => {
    try {
      return readFileSync(`/proc/${p}/status`, 'utf8');
    } catch {
      return '';
    }
  };
  const kib = Number(/VmRSS:\s+(\d+)/.exec(status(pid))?.[1] ?? 0);
  const children = spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean).map(Number);
  return kib / 1024 + children.reduce((sum, c) => sum + treeRssMiB(c), 0);
}

async function waitReady(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode} before ready`);
    const r = await fetch(url).catch(() => undefined);
    if (r?.status === 200) return;
    await new Promise((res) => setTimeout(res, 20));
  }
  throw new Error(`not ready within ${timeoutMs} ms: ${url}`);
}

async function start(name: string, cmd: string[], port: number): Promise<Server> {
  const [file, args] = PINNED ? ['taskset', ['-c', '1', ...cmd]] : [cmd[0] as string, cmd.slice(1)];
  const t0 = performance.now();
  const child = spawn(file, args, { cwd: ROOT, stdio: 'ignore', env: { ...process.env, NO_PROXY: '127.0.0.1' } });
  const base = `http://127.0.0.1:${port}`;
  await waitReady(`${base}/v2/models/mlp/ready`, child, 120_000);
  const coldStartMs = performance.now() - t0;
  // Let start-up garbage settle before reading memory.
  await new Promise((res) => setTimeout(res, 1000));
  return { name, child, base, coldStartMs, rssMiB: treeRssMiB(child.pid as number) };
}

async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

async function measure(s: Server): Promise<Map<string, LoadResult>> {
  const vector = Array.from({ length: 64 }, (_, i) => (i % 7) / 7);
  const json = JSON.stringify({ inputs: [{ name: 'input', shape: [1, 64], datatype: 'FP32', data: vector }] });
  const header = Buffer.from(
    JSON.stringify({
      inputs: [{ name: 'input', shape: [1, 64], datatype: 'FP32', parameters: { binary_data_size: 256 } }],
      parameters: { binary_data_output: true },
    }),
  );
  const binary = Buffer.concat([header, Buffer.from(Float32Array.from(vector).buffer)]);
  const url = `${s.base}/v2/models/mlp/infer`;
  const out = new Map<string, LoadResult>();
  // Warm-up so neither server is measured while compiling hot paths.
  await runLoad({ name: 'warm-up', url, method: 'POST', body: json, headers: { 'content-type': 'application/json' }, connections: 8, seconds: 1 });
  for (const c of SWEEP) {
    out.set(
      `V2 JSON, c=${c}`,
      await runLoad({ name: s.name, url, method: 'POST', body: json, headers: { 'content-type': 'application/json' }, connections: c, seconds: SECONDS }),
    );
  }
  out.set(
    'V2 binary, c=32',
    await runLoad({
      name: s.name,
      url,
      method: 'POST',
      body: binary,
      headers: { 'content-type': 'application/octet-stream', 'inference-header-content-length': String(header.byteLength) },
      connections: 32,
      seconds: SECONDS,
    }),
  );
  return out;
}

async function main(): Promise<void> {
  const repo = mkdtempSync(path.join(tmpdir(), 'kserve-ts-vs-anchor-'));
  mkdirSync(path.join(repo, 'mlp'));
  cpSync(MODEL, path.join(repo, 'mlp', 'model.onnx'));
  const venv = spawnSync('bash', [path.join(ROOT, 'test/compat/venv.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (venv.status !== 0) throw new Error('could not create the compatibility virtualenv (test/compat/venv.sh)');
  const python = path.join(venv.stdout.trim(), 'bin', 'python');

  const results: Array<{ server: Server; loads: Map<string, LoadResult> }> = [];
  for (const which of ['kserve-ts', 'anchor'] as const) {
    const port = await freePort();
    const grpcPort = await freePort();
    const cmd =
      which === 'kserve-ts'
        ? [process.execPath, 'dist/bin/kserve-ts.js', 'serve', '--model_repository', repo, '--http_host', '127.0.0.1', '--http_port', String(port), '--grpc_port', String(grpcPort), '--intra_op_threads', '1', '--log_level', 'warn']
        : [python, 'test/compat/anchor_server.py', '--model_repository', repo, '--http_port', String(port), '--grpc_port', String(grpcPort)];
    const server = await start(which, cmd, port);
    try {
      results.push({ server, loads: await measure(server) });
    } finally {
      await stopChild(server.child);
    }
  }
  rmSync(repo, { recursive: true, force: true });

  const [ours, anchor] = results as [(typeof results)[0], (typeof results)[0]];
  const f = (n: number, d = 1) => n.toFixed(d);
  const lines = [
    `Run ${new Date().toISOString()} on ${machineLine()}; mlp_64x8 batch 1; ${SECONDS} s per workload; autocannon on the same machine${PINNED ? ', pinned to CPU 0, servers to CPU 1' : ''}; kserve-ts with one intra-op thread, the anchor with its defaults.`,
    '',
    '| workload | kserve-ts req/s | anchor req/s | ratio | kserve-ts p50 / p99 ms | anchor p50 / p99 ms | p99 ratio |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...[...ours.loads.keys()].map((k) => {
      const a = ours.loads.get(k) as LoadResult;
      const b = anchor.loads.get(k) as LoadResult;
      const errs = a.errors + a.non2xx + b.errors + b.non2xx;
      return `| ${k}${errs > 0 ? ` (${errs} errors)` : ''} | ${f(a.rps, 0)} | ${f(b.rps, 0)} | ${f(a.rps / Math.max(b.rps, 1e-9))}× | ${f(a.p50)} / ${f(a.p99)} | ${f(b.p50)} / ${f(b.p99)} | ${f(a.p99 / Math.max(b.p99, 1e-9), 2)} |`;
    }),
    '',
    '| | kserve-ts | anchor | ratio |',
    '|---|---:|---:|---:|',
    `| cold start, spawn to model ready (ms) | ${f(ours.server.coldStartMs, 0)} | ${f(anchor.server.coldStartMs, 0)} | ${f(ours.server.coldStartMs / anchor.server.coldStartMs, 2)} |`,
    `| RSS with the model loaded (MiB, process tree) | ${f(ours.server.rssMiB)} | ${f(anchor.server.rssMiB)} | ${f(ours.server.rssMiB / anchor.server.rssMiB, 2)} |`,
  ];
  const out = lines.join('\n');
  process.stdout.write(`${out}\n`);
  if (process.argv.includes('--write')) writeResultsSection('anchor', out);
}

await main();
