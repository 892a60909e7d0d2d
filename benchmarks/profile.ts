/**
 * Where the server's CPU goes on the hot paths: kserve-ts runs under `node --cpu-prof`
 * (pinned to CPU 1, one intra-op thread) while this process drives V2 JSON, V2 binary and
 * gRPC raw in turn at concurrency 32 on mlp_64x8 batch 1; each run's profiles (the main thread and the
 * model's worker thread) are summarised by profile-summary.ts.
 *
 *   npm run build && node --import tsx benchmarks/profile.ts [--seconds 10] [--top 12] [--keep DIR] [--no-pin] [--only 'V2 JSON'] [--write]
 *
 * `--keep DIR` leaves the .cpuprofile files there (open them in Chrome DevTools or
 * speedscope for flame graphs); `--no-pin` lets the server and the generator use every CPU;
 * `--write` replaces the profile section of RESULTS.md.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { numberArg, writeResultsSection } from './harness.js';
import { machineLine } from './machine.js';
import { type Protocol, probes, sampleData } from './payloads.js';
import { readProfile, summarise, summaryMarkdown } from './profile-summary.js';
import { onnxRepository, pinLoadGenerator, startKserveTs } from './servers.js';
import { MLP } from './suite-report.js';

const SECONDS = numberArg('seconds', 10);
const TOP = numberArg('top', 12);
const CONNECTIONS = 32;
/** The server's default inline budget (100 µs) with room for the profiler's overhead. */
const INLINE_MAX_US_PROFILED = 400;
const keepAt = process.argv.indexOf('--keep');

async function profileOne(protocol: Protocol, dir: string, pinned: boolean): Promise<string[]> {
  mkdirSync(dir, { recursive: true });
  const repo = onnxRepository({ [MLP.tensor.model]: MLP.file });
  const server = await startKserveTs({
    repo: repo.dir,
    models: [MLP.tensor.model],
    grpc: protocol.startsWith('gRPC'),
    pinned,
    nodeArgs: ['--cpu-prof', '--cpu-prof-dir', dir],
    // The profiler slows the inline warm-up measurement (about 40 → 80 µs here, more on a busy
    // core), which could move the model to its worker thread: keep the unprofiled decision.
    args: ['--inline_max_us', String(INLINE_MAX_US_PROFILED)],
  });
  let rps: number;
  try {
    const probe = probes(server, MLP.tensor, sampleData(MLP.tensor.shape)).find((p) => p.protocol === protocol);
    if (probe === undefined) throw new Error(`no ${protocol} probe`);
    await probe.check();
    rps = (await probe.load(CONNECTIONS, SECONDS)).rps;
  } finally {
    // The profiles are written when the threads exit.
    await server.stop();
    repo.remove();
  }
  // Largest first: the main thread, then the model's worker thread.
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => path.join(dir, f))
    .sort((a, b) => statSync(b).size - statSync(a).size);
  return [
    `### ${protocol}, mlp_64x8 batch 1, ${CONNECTIONS} connections, ${SECONDS} s: ${rps.toFixed(0)} req/s under the profiler`,
    '',
    ...files.map((f, i) => summaryMarkdown(i === 0 ? 'Main thread' : `Thread ${i + 1} (${path.basename(f)})`, summarise(readProfile(f)), TOP)).flatMap((t) => [t, '']),
  ];
}

async function main(): Promise<void> {
  const pinned = !process.argv.includes('--no-pin') && pinLoadGenerator();
  const root = keepAt >= 0 ? path.resolve(process.argv[keepAt + 1] as string) : mkdtempSync(path.join(tmpdir(), 'kserve-ts-prof-'));
  const lines = [
    `Run ${new Date().toISOString()} on ${machineLine()}; \`node --cpu-prof\`, server ${pinned ? 'pinned to CPU 1, autocannon to CPU 0' : 'not pinned'}; self time per origin and per function, idle excluded.`,
    '',
  ];
  try {
    const only = process.argv.indexOf('--only');
    const protocols = (['V2 JSON', 'V2 binary', 'gRPC raw'] as const).filter((p) => only < 0 || p === process.argv[only + 1]);
    for (const protocol of protocols) lines.push(...(await profileOne(protocol, path.join(root, protocol.replace(' ', '-')), pinned)));
  } finally {
    if (keepAt < 0) rmSync(root, { recursive: true, force: true });
  }
  const out = lines.join('\n').trimEnd();
  process.stdout.write(`${out}\n`);
  if (process.argv.includes('--write')) writeResultsSection('profile', out);
}

await main();
