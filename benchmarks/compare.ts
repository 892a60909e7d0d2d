/**
 * `npm run bench -- --baseline DIR`: this checkout against another build of kserve-ts (a
 * worktree of an earlier commit, built with `npm run build`, e.g. with node_modules linked
 * from here) on the same load, one table of throughput ratios. For a change that must cost
 * no speed: mlp_64x8 batch 1 over V2 JSON and gRPC (typed and raw).
 *
 * Both servers run at once, pinned to CPU 1 where taskset exists (only the one under load is
 * busy), the load generator on CPU 0. Each point is measured in `--rounds` rounds, the two
 * servers alternating within a round (the first server alternating between rounds), so drift
 * on a shared machine hits both alike; the table gives each side's median and the median of
 * the per-round ratios (each from two adjacent measurements, the figure least moved by load
 * from other processes). Nothing judges the numbers; the run fails only when a point saw
 * errors.
 *
 *   npm run build && npm run bench -- --baseline /tmp/base [--seconds 5] [--rounds 3] [--concurrency 1,8,32]
 *     [--protocols 'V2 JSON,gRPC typed'] [--model mlp|conv] [--candidate DIR: another built checkout instead of this one]
 *     [--server_args '--inline_max_us 0': extra `serve` flags for both servers]
 *
 * On a busy machine pass `--inline_max_us` explicitly (0, or a budget far above the model's
 * run time): the server measures the model at start-up to decide whether it runs on the
 * main thread, and a noisy measurement can put the two servers in different modes.
 */
import { loadavg } from 'node:os';
import { numberArg } from './harness.js';
import { machineLine } from './machine.js';
import { type Probe, type Protocol, probes, sampleData } from './payloads.js';
import { onnxRepository, pinLoadGenerator, startKserveTs } from './servers.js';
import { type BenchModel, CONV, MLP } from './suite-report.js';

const MODELS: Readonly<Record<string, BenchModel>> = { mlp: MLP, conv: CONV };

const DEFAULT_PROTOCOLS: readonly Protocol[] = ['V2 JSON', 'gRPC typed', 'gRPC raw'];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const progress = (s: string) => process.stderr.write(`[bench] ${s}\n`);

function stringArg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

export async function compareWithBaseline(baseline: string): Promise<void> {
  const seconds = numberArg('seconds', 5);
  const rounds = numberArg('rounds', 3);
  const sweep = (stringArg('concurrency') ?? '1,8,32').split(',').map(Number);
  const protocolsArg = stringArg('protocols');
  const COMPARED_PROTOCOLS = protocolsArg === undefined ? DEFAULT_PROTOCOLS : (protocolsArg.split(',').map((p) => p.trim()) as Protocol[]);
  const candidate = stringArg('candidate');
  const model = MODELS[stringArg('model') ?? 'mlp'];
  const args = (stringArg('server_args') ?? '').split(' ').filter((a) => a !== '');
  if (model === undefined) throw new Error(`--model: one of ${Object.keys(MODELS).join(', ')}`);
  const started = new Date();
  const load0 = loadavg()[0] as number;
  const pinned = pinLoadGenerator();
  const repo = onnxRepository({ [model.tensor.model]: model.file });
  const models = [model.tensor.model];
  const ours = await startKserveTs({ repo: repo.dir, models, pinned, args, ...(candidate === undefined ? {} : { root: candidate }) });
  const base = await startKserveTs({ repo: repo.dir, models, pinned, args, root: baseline }).catch(async (e: unknown) => {
    await ours.stop();
    throw e;
  });
  const lines: string[] = [];
  let errors = 0;
  try {
    const data = sampleData(model.tensor.shape);
    const pick = (all: Probe[]) => COMPARED_PROTOCOLS.map((p) => all.find((x) => x.protocol === p) as Probe);
    const sides = [pick(probes(ours, model.tensor, data)), pick(probes(base, model.tensor, data))] as const;
    for (const side of sides) for (const p of side) await p.check();
    for (const side of sides) for (const p of side) await p.load(8, 2);
    lines.push('| path | c | this checkout (req/s) | baseline (req/s) | ratio, median of rounds (range) | p50 this / baseline (ms) |', '|---|---|---|---|---|---|');
    for (const [i, protocol] of COMPARED_PROTOCOLS.entries()) {
      for (const c of sweep) {
        const rps: [number[], number[]] = [[], []];
        const p50: [number[], number[]] = [[], []];
        for (let r = 0; r < rounds; r++) {
          const order = r % 2 === 0 ? [0, 1] : [1, 0];
          for (const s of order) {
            progress(`${protocol}, c=${c}, round ${r + 1}/${rounds}, ${s === 0 ? 'this checkout' : 'baseline'}`);
            const res = await (sides[s as 0 | 1][i] as Probe).load(c, seconds);
            errors += res.errors;
            rps[s as 0 | 1].push(res.rps);
            p50[s as 0 | 1].push(res.p50);
          }
        }
        const [a, b] = [median(rps[0]), median(rps[1])];
        const ratios = rps[0].map((x, r) => x / (rps[1][r] as number));
        const spread = `${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}`;
        lines.push(
          `| ${protocol} | ${c} | ${a.toFixed(0)} | ${b.toFixed(0)} | ${median(ratios).toFixed(3)} (${spread}) | ${median(p50[0]).toFixed(3)} / ${median(p50[1]).toFixed(3)} |`,
        );
      }
    }
  } finally {
    await ours.stop();
    await base.stop();
    repo.remove();
  }
  const out = [
    `Run ${started.toISOString()} on ${machineLine()}; load average ${load0.toFixed(2)} at the start, ${(loadavg()[0] as number).toFixed(2)} at the end (1 min).`,
    `${model.label}; ${candidate ?? 'this checkout'} against ${baseline}; ${seconds} s per point, ${rounds} rounds alternating, medians; ${pinned ? 'servers pinned to CPU 1, load generator to CPU 0' : 'nothing pinned'}; one intra-op thread each${args.length > 0 ? `; serve ${args.join(' ')}` : ''}.`,
    '',
    ...lines,
  ].join('\n');
  process.stdout.write(`${out}\n`);
  if (errors > 0) {
    process.stderr.write(`[bench] ${errors} failed requests\n`);
    process.exitCode = 1;
  }
}

export const baselineArg = (): string | undefined => stringArg('baseline');
