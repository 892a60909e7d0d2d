/**
 * The InferenceGraph router workload on its own (benchmarks/graph.ts):
 *
 *   npm run build && bash benchmarks/graph.sh [--seconds 5] [--smoke] [--no-anchor] [--write]
 *
 * graph.sh builds (or takes from the cache) KServe's router and runs this file in a network
 * namespace of its own. Fails (exit 1) unless every planned row is present, error-free and
 * measured; nothing judges the numbers. `--write` replaces the graph section of
 * benchmarks/RESULTS.md.
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { GRAPH_WORKLOAD, graphRows, graphWorkload } from './graph.js';
import { numberArg, writeResultsSection } from './harness.js';
import { machineLine } from './machine.js';
import { pinLoadGenerator } from './servers.js';
import { renderTable, tableProblems } from './suite-report.js';

const SMOKE = process.argv.includes('--smoke');
const plan = { sweep: SMOKE ? [1, 8] : [1, 8, 32], anchor: !process.argv.includes('--no-anchor') };
const seconds = numberArg('seconds', SMOKE ? 1 : 5);
const warmSeconds = SMOKE ? 0.5 : 2;

const kserveRouter = plan.anchor ? execFileSync('bash', ['scripts/graph-oracles.sh', 'kserve-router'], { encoding: 'utf8' }).trim().split('\n').pop() : undefined;
const load0 = loadavg()[0] as number;
const started = new Date();
const pinned = pinLoadGenerator();
const rows = await graphWorkload({ kserveRouter, pinned, sweep: plan.sweep, seconds, warmSeconds, progress: (line) => process.stderr.write(`[bench] ${line}\n`) });
const table = renderTable(rows);
const out = [
  `Run ${started.toISOString()} on ${machineLine()}; load average ${load0.toFixed(2)} at the start, ${(loadavg()[0] as number).toFixed(2)} at the end (1 min).`,
  `${SMOKE ? 'Smoke run: ' : ''}${seconds} s per point after ${warmSeconds} s warm-up per graph; ${
    pinned ? 'load generator pinned to CPU 0, the predictor and the routers on CPU 1' : 'nothing pinned'
  }. "anchor" = KServe's Go router (cmd/router, kserve v0.20.0) on the same graph JSON; RSS: the router process only. Workload: ${GRAPH_WORKLOAD}.`,
  '',
  table,
].join('\n');
process.stdout.write(`${out}\n`);
const problems = tableProblems(table, plan, graphRows(plan));
if (problems.length > 0) {
  process.stderr.write(`[bench] the table is incomplete:\n${problems.map((p) => `  ${p}`).join('\n')}\n`);
  process.exitCode = 1;
} else if (process.argv.includes('--write')) writeResultsSection('graph', out);
