/**
 * REST benchmark (issue 2): V2 JSON and V2 binary throughput and latency on the small MLP
 * (64→8, batch 1) at one concurrency, side by side with the in-process onnxruntime-node
 * ceiling and the fastify ceilings, all measured in one run on one machine. The suite
 * (suite.ts) measures the same paths over a concurrency sweep; this is the quick version.
 *
 *   npm run build && node --import tsx benchmarks/run-rest.ts [--seconds 10] [--connections 32] [--write]
 *
 * `--write` replaces the REST section of benchmarks/RESULTS.md with this run's table.
 */
import { numberArg, writeResultsSection } from './harness.js';
import { inProcessCeiling } from './in-process.js';
import { type LoadResult, runLoad } from './load.js';
import { machineLine } from './machine.js';
import { probes, sampleData, v2Json } from './payloads.js';
import { onnxRepository, pinLoadGenerator, startHello, startKserveTs } from './servers.js';
import { MLP, PATHS } from './suite-report.js';

const SECONDS = numberArg('seconds', 10);
const CONNECTIONS = numberArg('connections', 32);

function table(rows: LoadResult[], hello: number): string {
  const fmt = (n: number, d = 2) => n.toFixed(d);
  return [
    '| workload | req/s | p50 ms | p99 ms | vs hello-world | errors |',
    '|---|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.name} | ${fmt(r.rps, 0)} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${fmt((100 * r.rps) / hello, 0)}% | ${r.errors} |`),
  ].join('\n');
}

async function main(): Promise<void> {
  const pinned = pinLoadGenerator();
  const repo = onnxRepository({ [MLP.tensor.model]: MLP.file });
  const server = await startKserveTs({ repo: repo.dir, models: [MLP.tensor.model], grpc: false, pinned });
  const hello = await startHello({ pinned });
  const data = sampleData(MLP.tensor.shape);
  const common = { connections: CONNECTIONS, seconds: SECONDS };
  const results: LoadResult[] = [];
  try {
    results.push(await runLoad({ name: `${PATHS.hello} (framework ceiling)`, url: `${hello.base}/`, ...common }));
    const json = v2Json(MLP.tensor, data);
    results.push(await runLoad({ name: `${PATHS.echo} (traffic-shape ceiling)`, url: `${hello.base}/echo`, method: 'POST', body: json.body, headers: json.headers, ...common }));
    for (const p of probes({ base: server.base, grpcPort: 0 }, MLP.tensor, data)) {
      await p.check();
      results.push({ ...(await p.load(CONNECTIONS, SECONDS)), name: `${p.protocol} infer, mlp_64x8 batch 1` });
    }
    results.push(await runLoad({ name: 'V2 health/ready GET (server, no model)', url: `${server.base}/v2/health/ready`, ...common }));
  } finally {
    await server.stop();
    await hello.stop();
    repo.remove();
  }
  results.push(await inProcessCeiling(MLP.file, MLP.tensor, data, Math.min(SECONDS, 5), 1));

  const out = [
    `Run ${new Date().toISOString()} on ${machineLine()}; ${CONNECTIONS} connections, ${SECONDS} s per workload; load generator (autocannon) on the same machine${pinned ? ', pinned to CPU 0, every server pinned to CPU 1' : ''}.`,
    '',
    table(results, (results[0] as LoadResult).rps),
  ].join('\n');
  process.stdout.write(`${out}\n`);
  if (process.argv.includes('--write')) writeResultsSection('rest', out);
}

await main();
