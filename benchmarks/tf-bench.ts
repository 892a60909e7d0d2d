/**
 * TensorFlow benchmark (issue 5): throughput and latency of the dense classifier
 * (x FP32 [1,4] -> probabilities [1,3]) through each available path of the tensorflow
 * backend: native (SavedModel on libtensorflow via tfjs-node, when scripts/build-tfjs-node.sh
 * has run) and portable (TF.js graph model on WASM). Each path is measured over V2 JSON and
 * over V1 (TF Serving row format), closed loop, against a server in a child process.
 *
 *   node --import tsx benchmarks/tf-bench.ts [--seconds 5] [--connections 8]
 *
 * Prints a Markdown table; it does not edit benchmarks/RESULTS.md.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { nativeStatus } from '../server/backends/tensorflow/tf-backend.js';
import { type LoadResult, runLoad } from './load.js';
import { machineLine } from './machine.js';
import { ROOT, numberArg } from './harness.js';
import { startKserveTs } from './servers.js';

const FIXTURES = path.join(ROOT, 'test/fixtures/tf');

const SECONDS = numberArg('seconds', 5);
const CONNECTIONS = numberArg('connections', 8);

async function main(): Promise<void> {
  const native = nativeStatus();
  const models: Array<{ name: string; fixture: string; label: string }> = [{ name: 'portable', fixture: 'dense_classifier_tfjs', label: 'portable (TF.js graph model, WASM)' }];
  if (native.available) models.unshift({ name: 'native', fixture: 'dense_classifier', label: 'native (SavedModel, libtensorflow via tfjs-node)' });
  else console.error(`native path not measured: ${native.reason}`);

  const repo = mkdtempSync(path.join(tmpdir(), 'kserve-ts-tf-bench-'));
  for (const m of models) cpSync(path.join(FIXTURES, m.fixture), path.join(repo, m.name), { recursive: true });
  const server = await startKserveTs({ repo, models: models.map((m) => m.name), tsx: true, grpc: false, env: { TF_CPP_MIN_LOG_LEVEL: '2' } });
  const base = server.base;
  const x = [0.5, -1.25, 2, 0.75];
  const common = { method: 'POST' as const, headers: { 'content-type': 'application/json' }, connections: CONNECTIONS, seconds: SECONDS };
  const results: Array<LoadResult & { path: string }> = [];
  try {
    for (const m of models) {
      // Warm up (first requests compile kernels), then measure.
      await runLoad({ name: 'warm-up', url: `${base}/v1/models/${m.name}:predict`, body: JSON.stringify({ instances: [x] }), ...common, seconds: 1 });
      const v2 = JSON.stringify({ inputs: [{ name: 'x', datatype: 'FP32', shape: [1, 4], data: x }] });
      results.push({ path: m.label, ...(await runLoad({ name: 'V2 JSON infer', url: `${base}/v2/models/${m.name}/infer`, body: v2, ...common })) });
      const v1 = JSON.stringify({ instances: [x] });
      results.push({ path: m.label, ...(await runLoad({ name: 'V1 predict (TF Serving row)', url: `${base}/v1/models/${m.name}:predict`, body: v1, ...common })) });
    }
  } finally {
    await server.stop();
    rmSync(repo, { recursive: true, force: true });
  }
  console.log(`\n${machineLine()}; ${SECONDS}s per row, ${CONNECTIONS} connections, batch 1\n`);
  console.log('| path | request | req/s | p50 ms | p99 ms | errors |');
  console.log('|---|---|---:|---:|---:|---:|');
  for (const r of results) {
    console.log(`| ${r.path} | ${r.name} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${r.errors} |`);
  }
}

await main();
