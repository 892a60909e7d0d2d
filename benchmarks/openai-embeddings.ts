/**
 * OpenAI embeddings (issue 33): kserve-ts beside KServe's huggingfaceserver (v0.20.0, its
 * Hugging Face backend on the CPU) on the same random-weight BERT encoder, in one run:
 *
 *   npm run build && node --import tsx benchmarks/openai-embeddings.ts [--seconds 5] [--base | --base-only] [--timeout 60] [--smoke] [--write]
 *
 * The models, the huggingfaceserver source and its virtualenv come from test/compat/hf/
 * (generate-hf-encoders.sh, huggingfaceserver-src.sh, venv.sh; cached under ~/.cache/kserve-ts).
 * `--base` adds a BERT-base-sized encoder (12 layers, hidden 768; generated on first use),
 * `--base-only` runs it alone. `--timeout` is the client's per-request timeout in seconds
 * (default 60: on the BERT-base-sized model eight queued 8-string requests take longer than
 * autocannon's 10 s on one thread, which left that point without numbers).
 * kserve-ts runs twice: as configured by default, and with config.pbtxt dynamic batching
 * (`max_batch_size: 64`, `dynamic_batching {}`).
 * One server at a time, pinned to CPU 1 with one compute thread (kserve-ts
 * `--intra_op_threads 1`, PyTorch `OMP_NUM_THREADS=1`), the load generator on CPU 0; closed
 * loops of `POST /openai/v1/embeddings` at c = 1 and 8 with 1 and 8 strings per request.
 * Start-up: spawn to the model's ready route answering 200. RSS: the server's process tree,
 * idle after start-up and the most seen while loaded (sampled every 100 ms).
 *
 * Fails (exit 1) if any point had errors or no answers. `--write` replaces the
 * openai-embeddings section of benchmarks/RESULTS.md.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, numberArg, writeResultsSection } from './harness.js';
import { type LoadResult, runLoad } from './load.js';
import { machineLine } from './machine.js';
import { type ServerProcess, freePort, launch, pinLoadGenerator, startKserveTs } from './servers.js';

const SMOKE = process.argv.includes('--smoke');
const BASE_ONLY = process.argv.includes('--base-only');
const BASE = BASE_ONLY || process.argv.includes('--base');
const timeoutSeconds = numberArg('timeout', 60);
/** The kserve-ts run with dynamic batching: room for eight 8-string requests in one batch. */
const BATCHING = 'max_batch_size: 64\ndynamic_batching {}\n';
const seconds = numberArg('seconds', SMOKE ? 1 : 5);
const warmSeconds = SMOKE ? 0.5 : 2;
const MODEL = 'm';
const progress = (line: string) => process.stderr.write(`[bench] ${line}\n`);

function script(file: string, ...args: string[]): string {
  const r = spawnSync('bash', [path.join(ROOT, 'test/compat/hf', file), ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status !== 0) throw new Error(`test/compat/hf/${file} failed`);
  return r.stdout.trim().split('\n').at(-1) as string;
}

const TEXT = 'Sentence embeddings map a short passage of text, such as this one, to a vector of a fixed size for search.';
const batches = [1, 8];
const concurrencies = [1, 8];

const SERVERS = ['kserve-ts', 'kserve-ts batching', 'huggingfaceserver'] as const;
type ServerName = (typeof SERVERS)[number];

interface Row {
  readonly model: string;
  readonly server: ServerName;
  readonly startMs: number;
  readonly idleMiB: number;
  readonly loadedMiB: number;
  readonly points: Map<string, LoadResult>;
}

async function measure(model: string, server: ServerProcess, name: ServerName): Promise<Row> {
  const idleMiB = server.rssMiB();
  let loadedMiB = idleMiB;
  const sampler = setInterval(() => (loadedMiB = Math.max(loadedMiB, server.rssMiB())), 100);
  const points = new Map<string, LoadResult>();
  try {
    for (const batch of batches) {
      const body = JSON.stringify({ model: MODEL, input: batch === 1 ? TEXT : Array.from({ length: batch }, (_, i) => `${i}: ${TEXT}`) });
      const spec = { url: `${server.base}/openai/v1/embeddings`, method: 'POST' as const, body, headers: { 'content-type': 'application/json' }, timeoutSeconds };
      await runLoad({ ...spec, name: 'warm-up', connections: 8, seconds: warmSeconds });
      for (const c of concurrencies) {
        const r = await runLoad({ ...spec, name: `${name} b${batch} c${c}`, connections: c, seconds });
        progress(`${model} ${r.name}: ${r.rps.toFixed(1)} req/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, ${r.errors} errors`);
        points.set(`${batch}/${c}`, r);
      }
    }
  } finally {
    clearInterval(sampler);
  }
  return { model, server: name, startMs: server.coldStartMs, idleMiB, loadedMiB, points };
}

async function startHf(python: string, src: string, dir: string): Promise<ServerProcess> {
  const httpPort = await freePort();
  const grpcPort = await freePort();
  return launch({
    name: 'huggingfaceserver',
    cmd: [python, 'test/compat/hf/hf_anchor.py', '--model_dir', dir, '--model_name', MODEL, '--task', 'text_embedding', '--backend', 'huggingface'].concat([
      '--http_port',
      String(httpPort),
      '--grpc_port',
      String(grpcPort),
      '--disable_log_requests',
    ]),
    httpPort,
    grpcPort,
    readyPaths: [`/v2/models/${MODEL}/ready`],
    pinned: true,
    env: { PYTHONPATH: src, KSERVE_LOGLEVEL: 'WARNING', OMP_NUM_THREADS: '1', HF_HUB_OFFLINE: '1', TOKENIZERS_PARALLELISM: 'false', PYTHONDONTWRITEBYTECODE: '1' },
  });
}

const load0 = loadavg()[0] as number;
const started = new Date();
const src = script('huggingfaceserver-src.sh');
const python = path.join(script('venv.sh'), 'bin', 'python');
const models: [string, string][] = BASE_ONLY ? [] : [['tiny (2 layers, hidden 32)', path.join(script('generate-hf-encoders.sh'), 'encoder')]];
if (BASE) models.push(['BERT-base size (12 layers, hidden 768)', path.join(script('generate-hf-encoders.sh', '--base'), 'encoder-base')]);
const pinned = pinLoadGenerator();
const rows: Row[] = [];
for (const [label, dir] of models) {
  const repo = mkdtempSync(path.join(tmpdir(), 'kserve-ts-bench-openai-'));
  try {
    // kserve-ts reads model.onnx and the tokenizer files; the safetensors are huggingfaceserver's.
    cpSync(dir, path.join(repo, MODEL), { recursive: true, filter: (f) => !f.endsWith('.safetensors') });
    const ours = await startKserveTs({ repo, models: [MODEL], pinned, grpc: false });
    try {
      rows.push(await measure(label, ours, 'kserve-ts'));
    } finally {
      await ours.stop();
    }
    writeFileSync(path.join(repo, MODEL, 'config.pbtxt'), BATCHING);
    const batched = await startKserveTs({ repo, models: [MODEL], pinned, grpc: false });
    try {
      rows.push(await measure(label, batched, 'kserve-ts batching'));
    } finally {
      await batched.stop();
    }
    const hf = await startHf(python, src, dir);
    try {
      rows.push(await measure(label, hf, 'huggingfaceserver'));
    } finally {
      await hf.stop();
    }
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
}

const ratio = (a: number, b: number) => (a > 0 && b > 0 ? (a / b).toFixed(2) : '–');
const f = (n: number) => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));
const lines = [
  '| model | strings / request | c | kserve-ts req/s | p50 ms | p99 ms | kserve-ts batching req/s | p50 ms | p99 ms | huggingfaceserver req/s | p50 ms | p99 ms | × req/s | × req/s batching | × p50 |',
  '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
];
const problems: string[] = [];
for (const [label] of models) {
  const [a, d, b] = SERVERS.map((name) => rows.find((r) => r.model === label && r.server === name) as Row);
  for (const batch of batches) {
    for (const c of concurrencies) {
      const [pa, pd, pb] = [a, d, b].map((r) => (r as Row).points.get(`${batch}/${c}`) as LoadResult) as [LoadResult, LoadResult, LoadResult];
      for (const r of [pa, pd, pb]) if (r.errors > 0 || r.rps === 0) problems.push(`${label} ${r.name}: ${r.errors} errors, ${r.rps} req/s`);
      const cells = [pa, pd, pb].flatMap((r) => [f(r.rps), f(r.p50), f(r.p99)]);
      lines.push(`| ${label} | ${batch} | ${c} | ${cells.join(' | ')} | ${ratio(pa.rps, pb.rps)} | ${ratio(pd.rps, pb.rps)} | ${ratio(pa.p50, pb.p50)} |`);
    }
  }
}
lines.push('', '| model | server | start-up s | RSS idle MiB | RSS loaded MiB |', '|---|---|---:|---:|---:|');
for (const r of rows) lines.push(`| ${r.model} | ${r.server} | ${(r.startMs / 1000).toFixed(1)} | ${r.idleMiB.toFixed(0)} | ${r.loadedMiB.toFixed(0)} |`);
const out = [
  `Run ${started.toISOString()} on ${machineLine()}; load average ${load0.toFixed(2)} at the start, ${(loadavg()[0] as number).toFixed(2)} at the end (1 min).`,
  `${SMOKE ? 'Smoke run: ' : ''}${seconds} s per point after ${warmSeconds} s warm-up per request size; ${
    pinned ? 'load generator pinned to CPU 0, the server on CPU 1' : 'nothing pinned'
  }, one server at a time, one compute thread each; client timeout ${timeoutSeconds} s. × = kserve-ts (without, with dynamic batching) / huggingfaceserver.`,
  '',
  ...lines,
].join('\n');
process.stdout.write(`${out}\n`);
if (problems.length > 0) {
  process.stderr.write(`[bench] failed points:\n${problems.map((p) => `  ${p}`).join('\n')}\n`);
  process.exitCode = 1;
} else if (process.argv.includes('--write')) writeResultsSection('openai-embeddings', out);
