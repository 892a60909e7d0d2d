/**
 * GPU check (scripts/gpu-check.sh runs it on a machine with an NVIDIA GPU): one server on
 * `--execution_providers cuda` (no cpu fallback, so a silent CPU run cannot pass), one on
 * cpu; the same inputs to conv_small and mlp_64x8 on both must agree within tolerance; then
 * conv_small over REST binary and gRPC raw at concurrency 1 and 8, GPU vs CPU, in one table.
 * Env: CUDA_LIB_DIR (LD_LIBRARY_PATH for the CUDA server), GPU_CHECK_SECONDS (default 5).
 */
import { probes, sampleData } from './payloads.js';
import { onnxRepository, startKserveTs, type ServerProcess } from './servers.js';
import { CONV, MLP } from './suite-report.js';

const SECONDS = Number(process.env.GPU_CHECK_SECONDS ?? 5);
const TOLERANCE = 1e-3; // relative to the largest |value|: cuDNN picks other conv algorithms
const libDir = process.env.CUDA_LIB_DIR ?? '';

async function outputOf(s: ServerProcess, model: string, shape: readonly number[], data: Float32Array): Promise<number[]> {
  const r = await fetch(`${s.base}/v2/models/${model}/infer`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ inputs: [{ name: 'input', shape, datatype: 'FP32', data: Array.from(data) }] }),
  });
  if (r.status !== 200) throw new Error(`${model}: HTTP ${r.status} ${await r.text()}`);
  const body = (await r.json()) as { outputs: { data: number[] }[] };
  return body.outputs[0]?.data ?? [];
}

const repo = onnxRepository({ conv: CONV.file, mlp: MLP.file });
const env = { ...process.env, LD_LIBRARY_PATH: `${libDir}${process.env.LD_LIBRARY_PATH ? `:${process.env.LD_LIBRARY_PATH}` : ''}` };
const gpu = await startKserveTs({ repo: repo.dir, models: ['conv', 'mlp'], args: ['--execution_providers', 'cuda', '--inline_max_us', '0'], env, stdio: 'inherit' });
const cpu = await startKserveTs({ repo: repo.dir, models: ['conv', 'mlp'], args: ['--execution_providers', 'cpu', '--intra_op_threads', '0', '--inline_max_us', '0'] });
let failed = false;
try {
  for (const m of [CONV, MLP]) {
    const data = sampleData(m.tensor.shape);
    const [a, b] = await Promise.all([outputOf(gpu, m.tensor.model, m.tensor.shape, data), outputOf(cpu, m.tensor.model, m.tensor.shape, data)]);
    const scale = Math.max(1e-6, ...b.map(Math.abs));
    const diff = Math.max(...a.map((v, i) => Math.abs(v - (b[i] ?? NaN))));
    const ok = a.length === b.length && diff / scale <= TOLERANCE;
    failed ||= !ok;
    console.log(`${m.label}: ${a.length} outputs, max |gpu - cpu| = ${diff.toExponential(2)} (${(diff / scale).toExponential(2)} relative) ${ok ? 'OK' : 'MISMATCH'}`);
  }
  const rows: string[] = ['| conv_small 1×3×224×224 | c | GPU req/s | GPU p50 ms | GPU p99 ms | CPU req/s | CPU p50 ms | CPU p99 ms |', '|---|---|---|---|---|---|---|---|'];
  const data = sampleData(CONV.tensor.shape);
  for (const protocol of ['V2 binary', 'gRPC raw'] as const) {
    for (const c of [1, 8]) {
      const [g, k] = [gpu, cpu].map((s) => probes(s, CONV.tensor, data).find((p) => p.protocol === protocol));
      if (g === undefined || k === undefined) throw new Error(`no ${protocol} probe`);
      const rg = await g.load(c, SECONDS);
      const rk = await k.load(c, SECONDS);
      failed ||= rg.errors > 0 || rk.errors > 0;
      rows.push(`| ${protocol} | ${c} | ${rg.rps.toFixed(0)} | ${rg.p50.toFixed(2)} | ${rg.p99.toFixed(2)} | ${rk.rps.toFixed(0)} | ${rk.p50.toFixed(2)} | ${rk.p99.toFixed(2)} |`);
    }
  }
  console.log(rows.join('\n'));
} finally {
  await gpu.stop();
  await cpu.stop();
  repo.remove();
}
process.exitCode = failed ? 1 : 0;
