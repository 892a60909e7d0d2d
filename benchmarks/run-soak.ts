/**
 * The soak benchmark (soak.ts): a benchmark, not a CI test; run it on a quiet machine.
 *
 *   npm run build && node --import tsx benchmarks/run-soak.ts [--minutes 10] [--capacity-seconds 10]
 *       [--idle-seconds 60] [--sample-seconds 5] [--write] [--json FILE]
 *
 * Prints the report as Markdown; `--write` replaces the soak section of RESULTS.md and
 * `--json FILE` keeps the whole report. Exits 1 when any request failed.
 */
import { writeFileSync } from 'node:fs';
import { numberArg, writeResultsSection } from './harness.js';
import { SOAK_DEFAULTS, runSoak, soakMarkdown } from './soak.js';

const options = {
  minutes: numberArg('minutes', SOAK_DEFAULTS.minutes),
  capacitySeconds: numberArg('capacity-seconds', SOAK_DEFAULTS.capacitySeconds),
  idleSeconds: numberArg('idle-seconds', SOAK_DEFAULTS.idleSeconds),
  sampleSeconds: numberArg('sample-seconds', SOAK_DEFAULTS.sampleSeconds),
  loadShare: SOAK_DEFAULTS.loadShare,
};
const report = await runSoak(options, (line) => process.stderr.write(`[soak] ${line}\n`));
const text = soakMarkdown(report);
process.stdout.write(`${text}\n`);
const jsonAt = process.argv.indexOf('--json');
if (jsonAt >= 0) writeFileSync(process.argv[jsonAt + 1] as string, JSON.stringify(report, null, 2));
if (process.argv.includes('--write')) writeResultsSection('soak', text);
if (report.errors > 0) {
  process.stderr.write(`[soak] ${report.errors} requests failed\n`);
  process.exitCode = 1;
}
