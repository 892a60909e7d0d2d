/**
 * REST benchmark (issue 2): V2 JSON and V2 binary throughput and latency on the small MLP
 * (64→8, batch 1) at concurrency 32, side by side with the in-process onnxruntime-node
 * ceiling and a fastify hello-world route, all measured in one run on one machine.
 *
 *   npm run build && node --import tsx benchmarks/run-rest.ts [--seconds 10] [--connections 32] [--write]
 *
 * `--write` replaces the REST section of benchmarks/RESULTS.md with this run's table.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { cpus } from 'node:os';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ort from 'onnxruntime-node';
import { type LoadResult, runLoad } from './load.js';
import { machineLine } from './machine.js';
import { ROOT, numberArg, stopChild, writeResultsSection } from './harness.js';

const MODEL = path.join(ROOT, 'test/fixtures/models/mlp_64x8.onnx');

const SECONDS = numberArg('seconds', 10);
const CONNECTIONS = numberArg('connections', 32);

/**
 * On a machine with taskset and at least two CPUs, servers run on CPU 1 and this process
 * (the load generator) on CPU 0, so every server measured gets the same single core and the
 * generator does not steal it.
 */
const PINNED = cpus().length >= 2 && spawnSync('taskset', ['-p', '-c', '0', String(process.pid)], { stdio: 'ignore' }).status === 0;

/** Starts a child process and resolves with the port from its first stdout line that has one. */
function startChild(cmd: string[], portOf: (line: string) => number | undefined): Promise<{ child: ChildProcess; port: number }> {
  const [file, args] = PINNED ? ['taskset', ['-c', '1', process.execPath, ...cmd]] : [process.execPath, cmd];
  const child = spawn(file, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let buf = '';
    child.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      for (const line of buf.split('\n')) {
        const port = portOf(line);
        if (port !== undefined) {
          child.stdout?.removeAllListeners('data');
          child.stdout?.resume();
          resolve({ child, port });
          return;
        }
      }
    });
    child.on('exit', (code) => reject(new Error(`${cmd.join(' ')} exited with ${code}`)));
  });
}

async function inProcessCeiling(seconds: number): Promise<LoadResult> {
  const session = await ort.InferenceSession.create(MODEL, { intraOpNumThreads: 1, interOpNumThreads: 1 });
  const input = new ort.Tensor('float32', new Float32Array(64).fill(0.5), [1, 64]);
  const lat: number[] = [];
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    const t = performance.now();
    await session.run({ input });
    lat.push(performance.now() - t);
  }
  await session.release();
  lat.sort((a, b) => a - b);
  const q = (p: number) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))] ?? 0;
  return { name: 'onnxruntime-node in-process (sequential)', rps: lat.length / seconds, p50: q(0.5), p99: q(0.99), errors: 0, non2xx: 0 };
}

function table(rows: LoadResult[], hello: number): string {
  const fmt = (n: number, d = 2) => n.toFixed(d);
  return [
    '| workload | req/s | p50 ms | p99 ms | vs hello-world | errors |',
    '|---|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.name} | ${fmt(r.rps, 0)} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${fmt((100 * r.rps) / hello, 0)}% | ${r.errors + r.non2xx} |`),
  ].join('\n');
}

async function main(): Promise<void> {
  const repo = mkdtempSync(path.join(tmpdir(), 'kserve-ts-bench-'));
  mkdirSync(path.join(repo, 'mlp'));
  cpSync(MODEL, path.join(repo, 'mlp', 'model.onnx'));

  const server = await startChild(
    ['dist/bin/kserve-ts.js', 'serve', '--model_repository', repo, '--http_host', '127.0.0.1', '--http_port', '0', '--enable_grpc', 'false', '--intra_op_threads', '1', '--log_level', 'info'],
    (line) => {
      const m = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(line);
      return m ? Number(m[1]) : undefined;
    },
  );
  const hello = await startChild(['--import', 'tsx', 'benchmarks/hello-server.ts'], (line) => {
    try {
      return (JSON.parse(line) as { port?: number }).port;
    } catch {
      return undefined;
    }
  });
  // Wait until the model is ready.
  for (;;) {
    const r = await fetch(`http://127.0.0.1:${server.port}/v2/health/ready`).catch(() => undefined);
    if (r?.status === 200) break;
    await new Promise((res) => setTimeout(res, 100));
  }

  const vector = Array.from({ length: 64 }, (_, i) => (i % 7) / 7);
  const jsonBody = JSON.stringify({ inputs: [{ name: 'input', shape: [1, 64], datatype: 'FP32', data: vector }] });
  const header = Buffer.from(
    JSON.stringify({
      inputs: [{ name: 'input', shape: [1, 64], datatype: 'FP32', parameters: { binary_data_size: 256 } }],
      parameters: { binary_data_output: true },
    }),
  );
  const binaryBody = Buffer.concat([header, Buffer.from(Float32Array.from(vector).buffer)]);
  const base = `http://127.0.0.1:${server.port}`;
  const common = { connections: CONNECTIONS, seconds: SECONDS };

  const results: LoadResult[] = [];
  const helloResult = await runLoad({ name: 'fastify hello-world GET (framework ceiling)', url: `http://127.0.0.1:${hello.port}/`, ...common });
  results.push(helloResult);
  results.push(
    await runLoad({
      name: 'fastify POST, same body in, fixed V2-sized JSON out (traffic-shape ceiling)',
      url: `http://127.0.0.1:${hello.port}/echo`,
      method: 'POST',
      body: jsonBody,
      headers: { 'content-type': 'application/json' },
      ...common,
    }),
  );
  results.push(
    await runLoad({ name: 'V2 JSON infer, mlp_64x8 batch 1', url: `${base}/v2/models/mlp/infer`, method: 'POST', body: jsonBody, headers: { 'content-type': 'application/json' }, ...common }),
  );
  results.push(
    await runLoad({
      name: 'V2 binary infer, mlp_64x8 batch 1',
      url: `${base}/v2/models/mlp/infer`,
      method: 'POST',
      body: binaryBody,
      headers: { 'content-type': 'application/octet-stream', 'inference-header-content-length': String(header.byteLength) },
      ...common,
    }),
  );
  results.push(await runLoad({ name: 'V2 health/ready GET (server, no model)', url: `${base}/v2/health/ready`, ...common }));
  await stopChild(server.child);
  await stopChild(hello.child);
  results.push(await inProcessCeiling(Math.min(SECONDS, 5)));
  rmSync(repo, { recursive: true, force: true });

  const out = [
    `Run ${new Date().toISOString()} on ${machineLine()}; ${CONNECTIONS} connections, ${SECONDS} s per workload; load generator (autocannon) on the same machine${PINNED ? ', pinned to CPU 0, every server pinned to CPU 1' : ''}.`,
    '',
    table(results, helloResult.rps),
  ].join('\n');
  process.stdout.write(`${out}\n`);

  if (process.argv.includes('--write')) writeResultsSection('rest', out);
}

await main();
