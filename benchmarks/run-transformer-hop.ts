/**
 * The transformer-hop workload on its own (the suite runs it too):
 *
 *   npm run build && node --import tsx benchmarks/run-transformer-hop.ts [--seconds 5] [--smoke] [--no-anchor] [--write]
 *
 * Fails (exit 1) unless every planned row is present, error-free and measured; nothing judges
 * the numbers. `--write` replaces the transformer section of benchmarks/RESULTS.md.
 */
import { loadavg } from 'node:os';
import { numberArg, writeResultsSection } from './harness.js';
import { machineLine } from './machine.js';
import { anchorPython, pinLoadGenerator } from './servers.js';
import { hopLines, hopRows, renderTable, tableProblems } from './suite-report.js';
import { transformerHop } from './transformer-hop.js';

const SMOKE = process.argv.includes('--smoke');
const plan = { sweep: SMOKE ? [1, 8] : [1, 8, 32], anchor: !process.argv.includes('--no-anchor') };
const seconds = numberArg('seconds', SMOKE ? 1 : 5);
const warmSeconds = SMOKE ? 0.5 : 2;

const load0 = loadavg()[0] as number;
const started = new Date();
const pinned = pinLoadGenerator();
const rows = await transformerHop({
  python: plan.anchor ? anchorPython() : undefined,
  pinned,
  sweep: plan.sweep,
  seconds,
  warmSeconds,
  progress: (line) => process.stderr.write(`[bench] ${line}\n`),
});
const table = renderTable(rows);
const out = [
  `Run ${started.toISOString()} on ${machineLine()}; load average ${load0.toFixed(2)} at the start, ${(loadavg()[0] as number).toFixed(2)} at the end (1 min).`,
  `${SMOKE ? 'Smoke run: ' : ''}${seconds} s per point after ${warmSeconds} s warm-up per path; ${
    pinned ? 'load generator pinned to CPU 0, predictors and transformers together on CPU 1' : 'nothing pinned'
  }. Pass-through transformers (nothing overridden) on both sides; RSS: the predictor alone, or the predictor plus both of its transformers.`,
  '',
  table,
  '',
  ...hopLines(rows),
].join('\n');
process.stdout.write(`${out}\n`);
const problems = tableProblems(table, plan, hopRows(plan));
if (problems.length > 0) {
  process.stderr.write(`[bench] the table is incomplete:\n${problems.map((p) => `  ${p}`).join('\n')}\n`);
  process.exitCode = 1;
} else if (process.argv.includes('--write')) writeResultsSection('transformer', out);
