/**
 * gRPC benchmark (issue 3): unary ModelInfer throughput and latency on the small MLP
 * (64→8, batch 1) with typed and with raw contents at concurrency 32, and one
 * 1×3×224×224 FP32 image through conv_small over REST binary vs gRPC raw at concurrency 4.
 * The suite (suite.ts) measures the same paths over a concurrency sweep; this is the quick version.
 *
 *   npm run build && node --import tsx benchmarks/grpc/bench.ts [--seconds 5] [--tsx]
 *
 * The server runs as its own process (dist/, or the sources through tsx with --tsx) with
 * one intra-op thread; the clients (pre-encoded calls over node:http2, autocannon) run in
 * this process on the same machine, sending requests encoded once up front and leaving responses undecoded,
 * so the table compares the server paths rather than client-side encoders. Every path's
 * answer is checked once before it is timed. Prints a markdown table.
 */
import { numberArg } from '../harness.js';
import { machineLine } from '../machine.js';
import { type Protocol, probes, sampleData } from '../payloads.js';
import { onnxRepository, startKserveTs } from '../servers.js';
import { type BenchModel, CONV, MLP } from '../suite-report.js';

const SECONDS = numberArg('seconds', 5);
const WARMUP_SECONDS = 1;

const WORKLOADS: ReadonlyArray<{ model: BenchModel; protocol: Protocol; concurrency: number }> = [
  { model: MLP, protocol: 'gRPC typed', concurrency: 32 },
  { model: MLP, protocol: 'gRPC raw', concurrency: 32 },
  { model: CONV, protocol: 'V2 binary', concurrency: 4 },
  { model: CONV, protocol: 'gRPC raw', concurrency: 4 },
];

async function main(): Promise<void> {
  const repo = onnxRepository({ [MLP.tensor.model]: MLP.file, [CONV.tensor.model]: CONV.file });
  const server = await startKserveTs({ repo: repo.dir, models: [MLP.tensor.model, CONV.tensor.model], tsx: process.argv.includes('--tsx') });
  const rows: string[] = [];
  try {
    for (const w of WORKLOADS) {
      const data = sampleData(w.model.tensor.shape);
      const probe = probes(server, w.model.tensor, data).find((p) => p.protocol === w.protocol);
      if (probe === undefined) throw new Error(`no ${w.protocol} probe`);
      await probe.check();
      await probe.load(w.concurrency, WARMUP_SECONDS);
      const r = await probe.load(w.concurrency, SECONDS);
      const mbps = (r.rps * data.byteLength) / 2 ** 20;
      rows.push(`| ${w.protocol}, ${w.model.label} FP32 | ${w.concurrency} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${mbps.toFixed(1)} | ${r.errors} |`);
    }
  } finally {
    await server.stop();
    repo.remove();
  }
  process.stdout.write(
    [
      `Run ${new Date().toISOString()} on ${machineLine()}; ${SECONDS} s per workload after ${WARMUP_SECONDS} s warm-up; clients in one process on the same machine.`,
      '',
      '| workload | concurrency | req/s | p50 ms | p99 ms | request MiB/s | errors |',
      '|---|---:|---:|---:|---:|---:|---:|',
      ...rows,
      '',
    ].join('\n'),
  );
}

await main();
