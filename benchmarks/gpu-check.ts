/**
 * The GPU check's runner (scripts/gpu-check.sh bundles it with esbuild into one file that
 * the GPU machine runs with the bundled Node; it needs nothing else there). Two servers of
 * the same build side by side: one on `--execution_providers cuda` (no cpu fallback, so a
 * silent CPU run cannot pass), one on the cpu. Then:
 *
 * 1. correctness: the same batch-2 request to both, outputs within TOLERANCE relative to the
 *    largest CPU output (TF32, on by default in onnxruntime, moves FP32 results by ~1e-3),
 *    and `kserve_model_info` must say `execution_provider="cuda"` for every GPU model;
 * 2. load: ResNet-50 (one FP32 input) and BERT-base (two INT64 inputs), each with dynamic
 *    batching off (no config.pbtxt) and on (`<name>_batched`), over V2 binary REST and
 *    gRPC raw, batch 1 and 8 per request, at several concurrencies, GPU vs CPU;
 * 3. memory: the CUDA server's RSS idle and after load, and its GPU memory (nvidia-smi).
 *
 * Everything goes to OUT/gpu-results.md and stdout; exit 0 only when every check held and no
 * request failed. `--local` swaps in small fixture models and the cpu for both servers, to
 * check the runner and the bundles on a machine without a GPU (scripts/gpu-check.sh --smoke).
 *
 * Usage: node gpu-check.mjs --app APP_DIR --models MODELS_DIR --out OUT_DIR [--seconds 3] [--local]
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, copyFileSync, linkSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { encodeInfer, inferConnections } from './grpc/pre-encoded-client.js';
import { type LoadResult, closedLoop, runLoad, untilAnswered } from './load.js';
import { type ServerProcess, startKserveTs } from './servers.js';

const TOLERANCE = 1e-2;

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
function required(name: string): string {
  const v = arg(name);
  if (v === undefined) throw new Error(`--${name} is required (usage: gpu-check.mjs --app DIR --models DIR --out DIR [--seconds N] [--local])`);
  return path.resolve(v);
}

interface InputSpec {
  readonly name: string;
  readonly datatype: 'FP32' | 'INT64';
  /** Dims after the batch dim. */
  readonly item: readonly number[];
  /** FP32: uniform in [-1, 1); INT64: token ids below `max`, or all ones (an attention mask). */
  readonly values: 'uniform' | 'ids' | 'ones';
  readonly max?: number;
}

interface ModelCase {
  /** The folder under --models holding model.onnx. */
  readonly file: string;
  readonly inputs: readonly InputSpec[];
  readonly output: string;
}

const MODELS: Readonly<Record<string, ModelCase>> = {
  resnet50: { file: 'resnet50', inputs: [{ name: 'input', datatype: 'FP32', item: [3, 224, 224], values: 'uniform' }], output: 'output' },
  bert: {
    file: 'bert',
    inputs: [
      { name: 'input_ids', datatype: 'INT64', item: [128], values: 'ids', max: 30_000 },
      { name: 'attention_mask', datatype: 'INT64', item: [128], values: 'ones' },
    ],
    output: 'pooler_output',
  },
};

/** --local: fixture models of the same input kinds (scripts/gpu-check.sh --smoke copies them in). */
const LOCAL_MODELS: Readonly<Record<string, ModelCase>> = {
  resnet50: { file: 'conv_small', inputs: [{ name: 'input', datatype: 'FP32', item: [3, 224, 224], values: 'uniform' }], output: 'output' },
  bert: { file: 'identity_int64', inputs: [{ name: 'INPUT0', datatype: 'INT64', item: [128], values: 'ids', max: 30_000 }], output: 'OUTPUT0' },
};

/** Dynamic batching on: Triton's config, batches up to 32 rows, preferring full ones. */
const BATCHED_CONFIG = 'max_batch_size: 32\ndynamic_batching { preferred_batch_size: [ 8, 16, 32 ] }\n';

interface Point {
  readonly batching: boolean;
  readonly batch: number;
  readonly path: 'V2 binary' | 'gRPC raw';
  readonly concurrency: number;
}

/**
 * Batching off: batch 1 and 8 per request, REST at c = 1, 8, 32 and gRPC at c = 8, 32.
 * Batching on: batch-1 requests (what it exists for) at c = 8 and 32 on both (at c = 1 it
 * never forms a batch: a request that finds the model idle runs alone).
 */
const POINTS: readonly Point[] = [
  ...[1, 8].flatMap((batch) => [
    ...[1, 8, 32].map((concurrency): Point => ({ batching: false, batch, path: 'V2 binary', concurrency })),
    ...[8, 32].map((concurrency): Point => ({ batching: false, batch, path: 'gRPC raw', concurrency })),
  ]),
  ...(['V2 binary', 'gRPC raw'] as const).flatMap((p) => [8, 32].map((concurrency): Point => ({ batching: true, batch: 1, path: p, concurrency }))),
];

/** --local: one point per path, batch size and batching mode, enough to run every code path. */
const LOCAL_POINTS: readonly Point[] = [
  { batching: false, batch: 1, path: 'V2 binary', concurrency: 8 },
  { batching: false, batch: 8, path: 'V2 binary', concurrency: 1 },
  { batching: false, batch: 1, path: 'gRPC raw', concurrency: 8 },
  { batching: true, batch: 1, path: 'V2 binary', concurrency: 8 },
  { batching: true, batch: 1, path: 'gRPC raw', concurrency: 8 },
];

/** Deterministic input bytes for `batch` rows (a linear congruential generator per seed). */
function tensorBytes(input: InputSpec, batch: number, seed: number): Buffer {
  const n = batch * input.item.reduce((a, b) => a * b, 1);
  let s = seed >>> 0;
  const next = () => (s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0) / 2 ** 32;
  if (input.datatype === 'FP32') return Buffer.from(Float32Array.from({ length: n }, () => next() * 2 - 1).buffer);
  const ints = BigInt64Array.from({ length: n }, () => (input.values === 'ones' ? 1n : BigInt(Math.floor(next() * (input.max ?? 2)))));
  return Buffer.from(ints.buffer);
}

interface Request {
  readonly rest: { readonly body: Buffer; readonly headers: Record<string, string> };
  /** Framed gRPC ModelInfer with raw contents. */
  readonly grpc: Buffer;
}

function request(model: string, spec: ModelCase, batch: number, seed: number): Request {
  const raws = spec.inputs.map((i) => tensorBytes(i, batch, seed));
  const header = Buffer.from(
    JSON.stringify({
      inputs: spec.inputs.map((i, k) => ({ name: i.name, shape: [batch, ...i.item], datatype: i.datatype, parameters: { binary_data_size: raws[k]?.byteLength } })),
      outputs: [{ name: spec.output, parameters: { binary_data: true } }],
    }),
  );
  const grpc = encodeInfer({
    model_name: model,
    inputs: spec.inputs.map((i) => ({ name: i.name, datatype: i.datatype, shape: [batch, ...i.item] })),
    outputs: [{ name: spec.output }],
    raw_input_contents: raws,
  });
  return {
    rest: {
      body: Buffer.concat([header, ...raws]),
      headers: { 'content-type': 'application/octet-stream', 'inference-header-content-length': String(header.byteLength) },
    },
    grpc,
  };
}

/** The first output of a V2 binary response, as numbers. */
async function outputOf(base: string, model: string, req: Request): Promise<number[]> {
  const r = await fetch(`${base}/v2/models/${model}/infer`, { method: 'POST', body: req.rest.body, headers: req.rest.headers });
  const bytes = Buffer.from(await r.arrayBuffer());
  if (r.status !== 200) throw new Error(`${model}: HTTP ${r.status} ${bytes.toString().slice(0, 300)}`);
  const headerLength = Number(r.headers.get('inference-header-content-length'));
  const header = JSON.parse(bytes.subarray(0, headerLength).toString()) as { outputs: { datatype: string }[] };
  const raw = Buffer.from(bytes.subarray(headerLength));
  const datatype = header.outputs[0]?.datatype;
  if (datatype === 'FP32') return Array.from(new Float32Array(raw.buffer, raw.byteOffset, raw.byteLength / 4));
  if (datatype === 'INT64') return Array.from(new BigInt64Array(raw.buffer, raw.byteOffset, raw.byteLength / 8), Number);
  throw new Error(`${model}: output datatype ${datatype} is not one this check compares`);
}

/** One load point; a window that saw no answer and no error is measured again, longer (load.ts). */
function load(server: ServerProcess, model: string, req: Request, p: Point, seconds: number): Promise<LoadResult> {
  return untilAnswered((s) => loadFor(server, model, req, p, s), seconds);
}

async function loadFor(server: ServerProcess, model: string, req: Request, p: Point, seconds: number): Promise<LoadResult> {
  if (p.path === 'V2 binary') {
    return runLoad({ name: p.path, url: `${server.base}/v2/models/${model}/infer`, method: 'POST', ...req.rest, connections: p.concurrency, seconds });
  }
  const conns = inferConnections(`127.0.0.1:${server.grpcPort}`, Math.ceil(p.concurrency / 16));
  try {
    return await closedLoop(p.path, p.concurrency, seconds, () => conns.call(req.grpc));
  } finally {
    conns.close();
  }
}

function nvidiaSmi(args: readonly string[]): string | undefined {
  try {
    return execFileSync('nvidia-smi', [...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

/** GPU memory (MiB) the process `pid` holds, per nvidia-smi; else the whole GPU's use. */
function gpuMemory(pid: number): string {
  const apps = nvidiaSmi(['--query-compute-apps=pid,used_memory', '--format=csv,noheader,nounits']);
  const mine = apps
    ?.split('\n')
    .map((l) => l.split(',').map((x) => x.trim()))
    .find(([p]) => Number(p) === pid);
  if (mine?.[1] !== undefined) return `${mine[1]} MiB (the CUDA server's process)`;
  const total = nvidiaSmi(['--query-gpu=memory.used', '--format=csv,noheader']);
  return total === undefined ? 'n/a (no nvidia-smi)' : `${total} (the whole GPU; the process is not listed)`;
}

/** `from` at `to`: a hard link (the models are hundreds of MB), a copy across file systems. */
function place(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch {
    copyFileSync(from, to);
  }
}

/** A repository of both variants of each model: `<name>` (no config) and `<name>_batched`. */
function repository(modelsDir: string, cases: Readonly<Record<string, ModelCase>>): { dir: string; remove(): void } {
  // Beside the models, so the links stay on one file system.
  const dir = mkdtempSync(path.join(path.dirname(modelsDir), 'repository-'));
  for (const [name, spec] of Object.entries(cases)) {
    for (const variant of [name, `${name}_batched`]) {
      mkdirSync(path.join(dir, variant));
      place(path.join(modelsDir, spec.file, 'model.onnx'), path.join(dir, variant, 'model.onnx'));
    }
    writeFileSync(path.join(dir, `${name}_batched`, 'config.pbtxt'), BATCHED_CONFIG);
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

async function main(): Promise<boolean> {
  const app = required('app');
  const out = required('out');
  const local = process.argv.includes('--local');
  const seconds = Number(arg('seconds') ?? 3);
  const cases = local ? LOCAL_MODELS : MODELS;
  const results = path.join(out, 'gpu-results.md');
  mkdirSync(out, { recursive: true });
  writeFileSync(results, '');
  const log = (line: string) => {
    console.log(line);
    appendFileSync(results, `${line}\n`);
  };
  const gpuProviders = local ? 'cpu' : 'cuda';
  log(`GPU: ${nvidiaSmi(['--query-gpu=name,driver_version,memory.total,compute_cap', '--format=csv,noheader']) ?? 'none (no nvidia-smi)'}`);
  const repo = repository(required('models'), cases);
  const models = Object.keys(cases).flatMap((n) => [n, `${n}_batched`]);
  const common = { repo: repo.dir, models, root: app, stdio: 'inherit' as const };
  // intra_op_threads 0: every CPU for the CPU server (and the GPU server's CPU side), inline off: every request takes the worker path.
  const args = (providers: string) => ['--execution_providers', providers, '--intra_op_threads', '0', '--inline_max_us', '0'];
  let ok = true;
  const gpu = await startKserveTs({ ...common, args: args(gpuProviders) });
  const cpu = await startKserveTs({ ...common, args: args('cpu') });
  try {
    log(`ready (spawn to every model ready): ${gpuProviders} server ${gpu.coldStartMs.toFixed(0)} ms, cpu server ${cpu.coldStartMs.toFixed(0)} ms`);
    log(`${gpuProviders} server idle: RSS ${gpu.rssMiB().toFixed(0)} MiB, GPU memory ${gpuMemory(gpu.child.pid as number)}`);
    const info = (await fetch(`${gpu.base}/metrics`).then((r) => r.text())).split('\n').filter((l) => l.startsWith('kserve_model_info'));
    for (const m of models) {
      const where = info.find((l) => l.includes(`model_name="${m}"`))?.match(/execution_provider="(\w+)"/)?.[1];
      const held = where === gpuProviders;
      ok &&= held;
      log(`${m}: runs on ${where ?? 'unknown'} ${held ? 'OK' : `MISMATCH (expected ${gpuProviders})`}`);
    }
    for (const [name, spec] of Object.entries(cases)) {
      const req = request(name, spec, 2, 7);
      const [a, b] = await Promise.all([outputOf(gpu.base, name, req), outputOf(cpu.base, name, req)]);
      const scale = Math.max(1e-6, ...b.map(Math.abs));
      const diff = Math.max(0, ...a.map((v, i) => Math.abs(v - (b[i] ?? Number.NaN))));
      const agree = a.length === b.length && diff / scale <= TOLERANCE;
      ok &&= agree;
      log(`${name}: ${a.length} outputs, max |${gpuProviders} - cpu| = ${diff.toExponential(2)}, ${(diff / scale).toExponential(2)} of max |cpu| ${agree ? 'OK' : 'MISMATCH'}`);
    }
    log('');
    log(
      `| model | batching | batch | path | c | ${gpuProviders} req/s | ${gpuProviders} items/s | ${gpuProviders} p50 ms | ${gpuProviders} p99 ms | cpu req/s | cpu p50 ms | cpu p99 ms | × items/s |`,
    );
    log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
    for (const [name, spec] of Object.entries(cases)) {
      for (const p of local ? LOCAL_POINTS : POINTS) {
        const model = p.batching ? `${name}_batched` : name;
        const req = request(model, spec, p.batch, 11);
        const g = await load(gpu, model, req, p, seconds);
        const k = await load(cpu, model, req, p, seconds);
        ok &&= g.errors === 0 && k.errors === 0;
        const errors = g.errors > 0 || k.errors > 0 ? ` errors ${g.errors}/${k.errors}` : '';
        const ratio = g.rps > 0 && k.rps > 0 ? (g.rps / k.rps).toFixed(1) : '–';
        log(
          `| ${name} | ${p.batching ? 'on' : 'off'} | ${p.batch} | ${p.path} | ${p.concurrency} | ${g.rps.toFixed(0)} | ${(g.rps * p.batch).toFixed(0)} | ${g.p50.toFixed(2)} | ${g.p99.toFixed(2)} | ${k.rps.toFixed(1)} | ${k.p50.toFixed(2)} | ${k.p99.toFixed(2)} | ${ratio} |${errors}`,
        );
      }
    }
    log('');
    log(`${gpuProviders} server after load: RSS ${gpu.rssMiB().toFixed(0)} MiB, GPU memory ${gpuMemory(gpu.child.pid as number)}; cpu server RSS ${cpu.rssMiB().toFixed(0)} MiB`);
  } catch (e) {
    log(`FAILED: ${(e as Error).stack ?? String(e)}`);
    ok = false;
  } finally {
    await Promise.all([gpu.stop(), cpu.stop()]);
    repo.remove();
  }
  log(ok ? 'RESULT: OK' : 'RESULT: FAILED');
  return ok;
}

process.exitCode = (await main()) ? 0 : 1;
