/**
 * Dynamic batching on vs off under 64 concurrent clients (issue 8, workload 3): the same
 * server binary and ONNX file, once without and once with `dynamic_batching` in
 * config.pbtxt, V2 binary requests of one row each. Two models: conv_small (one
 * 1×3×224×224 image: compute per row dominates) and mlp_64x8 (64 floats: the per-call cost
 * of the hand-off to the runtime dominates, which batching amortises).
 *
 *   npm run build && node --import tsx benchmarks/batching.ts [--seconds 10]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runLoad } from './load.js';
import { machineLine } from './machine.js';
import { ROOT, numberArg, stopChild } from './harness.js';

interface Workload {
  readonly name: string;
  readonly file: string;
  readonly input: string;
  readonly shape: readonly number[];
}
const WORKLOADS: readonly Workload[] = [
  { name: 'conv_small, 1×3×224×224 FP32', file: 'conv_small.onnx', input: 'input', shape: [1, 3, 224, 224] },
  { name: 'mlp_64x8, 1×64 FP32', file: 'mlp_64x8.onnx', input: 'input', shape: [1, 64] },
];
const SECONDS = numberArg('seconds', 10);
const CLIENTS = 64;

function repository(w: Workload, batching: boolean): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'kserve-ts-batching-'));
  mkdirSync(path.join(dir, 'm'));
  cpSync(path.join(ROOT, 'test/fixtures/models', w.file), path.join(dir, 'm', 'model.onnx'));
  if (batching) {
    writeFileSync(
      path.join(dir, 'm', 'config.pbtxt'),
      'max_batch_size: 16\ndynamic_batching { preferred_batch_size: [ 16 ] max_queue_delay_microseconds: 2000 }\n',
    );
  }
  return dir;
}

async function serve(repo: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(
    process.execPath,
    ['dist/bin/kserve-ts.js', 'serve', '--model_repository', repo, '--http_host', '127.0.0.1', '--http_port', '0', '--enable_grpc', 'false', '--log_level', 'info'],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    let buf = '';
    child.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      const m = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(buf);
      if (m) resolve(Number(m[1]));
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  child.stdout?.resume();
  for (;;) {
    const r = await fetch(`http://127.0.0.1:${port}/v2/models/m/ready`).catch(() => undefined);
    if (r?.status === 200) return { child, port };
    await new Promise((res) => setTimeout(res, 100));
  }
}

/** A V2 binary request carrying one row of `w`'s input. */
function binaryRequest(w: Workload): { body: Buffer; headers: Record<string, string> } {
  const count = w.shape.reduce((a, b) => a * b, 1);
  const row = new Float32Array(count).map((_, i) => (i % 255) / 255);
  const header = Buffer.from(
    JSON.stringify({ inputs: [{ name: w.input, shape: w.shape, datatype: 'FP32', parameters: { binary_data_size: row.byteLength } }] }),
  );
  return {
    body: Buffer.concat([header, Buffer.from(row.buffer)]),
    headers: { 'content-type': 'application/octet-stream', 'inference-header-content-length': String(header.byteLength) },
  };
}

async function measure(w: Workload, batching: boolean): Promise<string> {
  const { body, headers } = binaryRequest(w);
  const repo = repository(w, batching);
  const { child, port } = await serve(repo);
  try {
    const url = `http://127.0.0.1:${port}/v2/models/m/infer`;
    await runLoad({ name: 'warm-up', url, method: 'POST', body, headers, connections: 8, seconds: 2 });
    const r = await runLoad({ name: batching ? 'on' : 'off', url, method: 'POST', body, headers, connections: CLIENTS, seconds: SECONDS });
    return `| ${w.name} | ${batching ? 'on (max 16, 2 ms delay)' : 'off'} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(0)} | ${r.p99.toFixed(0)} | ${r.errors + r.non2xx} |`;
  } finally {
    await stopChild(child);
    rmSync(repo, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const rows: string[] = [];
  for (const w of WORKLOADS) for (const batching of [false, true]) rows.push(await measure(w, batching));
  process.stdout.write(
    [
      `Run ${new Date().toISOString()} on ${machineLine()}; one row per request over V2 binary, ${CLIENTS} clients, ${SECONDS} s each; client on the same machine.`,
      '',
      '| model | dynamic batching | req/s | p50 ms | p99 ms | errors |',
      '|---|---|---:|---:|---:|---:|',
      ...rows,
      '',
    ].join('\n'),
  );
}

await main();
