/**
 * `npm run build && node --import tsx benchmarks/instance-groups.ts`: throughput of one
 * model version with `instance_group { count: 2 }` against the same model with count: 1 (issue
 * 32), on one server (both models loaded side by side, the rows alternating count 1 / count 2
 * within each round, so drift on a shared machine hits both alike). V2 binary requests (the
 * cheapest decode: the server's main thread stays out of the way of the instances).
 *
 * Both configurations get the same operator-thread budget (`--threads`, the server's
 * --intra_op_threads): one session uses all of it, two sessions half each, as the server
 * divides it among a version's instances. By default the load generator is pinned to CPU 0
 * and the server to CPU 1 (the set-up; on a 2-core machine the instances then share
 * one core); `--no_pin` lets both use every core. Nothing judges the numbers; the run fails
 * only when a point saw errors.
 *
 *   node --import tsx benchmarks/instance-groups.ts [--model matmul|conv] [--seconds 5] [--rounds 3]
 *     [--concurrency 1,4,8] [--threads 2] [--no_pin]
 */
import { loadavg } from 'node:os';
import { numberArg } from './harness.js';
import { machineLine } from './machine.js';
import { type Probe, probes, sampleData } from './payloads.js';
import { onnxRepository, pinLoadGenerator, startKserveTs } from './servers.js';
import { type BenchModel, CONV, MATMUL } from './suite-report.js';

const MODELS: Readonly<Record<string, BenchModel>> = { matmul: MATMUL, conv: CONV };
const COUNTS = [1, 2] as const;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const progress = (s: string) => process.stderr.write(`[instance-groups] ${s}\n`);

function stringArg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const model = MODELS[stringArg('model') ?? 'matmul'];
if (model === undefined) throw new Error(`--model: one of ${Object.keys(MODELS).join(', ')}`);
const seconds = numberArg('seconds', 5);
const rounds = numberArg('rounds', 3);
const threads = numberArg('threads', 2);
const sweep = (stringArg('concurrency') ?? '1,4,8').split(',').map(Number);
const pinned = !process.argv.includes('--no_pin') && pinLoadGenerator();

const started = new Date();
const load0 = loadavg()[0] as number;
const names = COUNTS.map((n) => `count${n}`);
const repo = onnxRepository(
  Object.fromEntries(names.map((name) => [name, model.file])),
  Object.fromEntries(COUNTS.map((n, i) => [names[i] as string, `instance_group { count: ${n} kind: KIND_CPU }\n`])),
);
// No inline session (a tiny model's main-thread runs would bypass the instances).
const server = await startKserveTs({ repo: repo.dir, models: names, pinned, args: ['--intra_op_threads', String(threads), '--inline_max_us', '0'] });
const lines: string[] = [];
let errors = 0;
try {
  const data = sampleData(model.tensor.shape);
  const sides = names.map((name) => probes(server, { ...model.tensor, model: name }, data).find((p) => p.protocol === 'V2 binary') as Probe);
  for (const p of sides) await p.check();
  for (const p of sides) await p.load(8, 2);
  lines.push('| c | count: 1 (req/s) | count: 2 (req/s) | count 2 / count 1, median of rounds (range) | p50 count 1 / count 2 (ms) |', '|---|---|---|---|---|');
  for (const c of sweep) {
    const rps: [number[], number[]] = [[], []];
    const p50: [number[], number[]] = [[], []];
    for (let r = 0; r < rounds; r++) {
      for (const s of r % 2 === 0 ? [0, 1] : [1, 0]) {
        progress(`c=${c}, round ${r + 1}/${rounds}, count: ${COUNTS[s] as number}`);
        const res = await (sides[s] as Probe).load(c, seconds);
        errors += res.errors;
        rps[s as 0 | 1].push(res.rps);
        p50[s as 0 | 1].push(res.p50);
      }
    }
    const ratios = rps[1].map((x, r) => x / (rps[0][r] as number));
    const spread = `${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}`;
    lines.push(
      `| ${c} | ${median(rps[0]).toFixed(0)} | ${median(rps[1]).toFixed(0)} | ${median(ratios).toFixed(2)}× (${spread}) | ${median(p50[0]).toFixed(2)} / ${median(p50[1]).toFixed(2)} |`,
    );
  }
} finally {
  await server.stop();
  repo.remove();
}
process.stdout.write(
  [
    `Run ${started.toISOString()} on ${machineLine()}; load average ${load0.toFixed(2)} at the start, ${(loadavg()[0] as number).toFixed(2)} at the end (1 min).`,
    `${model.label}, V2 binary; ${seconds} s per point, ${rounds} rounds alternating, medians; --intra_op_threads ${threads} (count 1: ${threads} per session, count 2: ${Math.max(1, Math.floor(threads / 2))} each); ${pinned ? 'server pinned to CPU 1, load generator to CPU 0' : 'nothing pinned'}.`,
    '',
    ...lines,
    '',
  ].join('\n'),
);
if (errors > 0) {
  progress(`${errors} failed requests`);
  process.exitCode = 1;
}
