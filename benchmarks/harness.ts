/** Pieces every benchmark script shares: flags, child servers, the RESULTS.md sections. */
import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The number after `--name` on the command line, or `dflt`. */
export function numberArg(name: string, dflt: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
}

/** SIGTERM (the servers drain), then SIGKILL if it has not exited after `killAfterMs`. */
export async function stopChild(child: ChildProcess, killAfterMs = 20_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  await exited;
  clearTimeout(timer);
}

/** Replaces the text between `<!-- name:begin -->` and `<!-- name:end -->` in RESULTS.md. */
export function writeResultsSection(name: string, text: string): void {
  const file = path.join(ROOT, 'benchmarks/RESULTS.md');
  const begin = `<!-- ${name}:begin -->`;
  const finish = `<!-- ${name}:end -->`;
  const current = readFileSync(file, 'utf8');
  const a = current.indexOf(begin);
  const b = current.indexOf(finish);
  if (a < 0 || b < 0) throw new Error(`RESULTS.md lacks the ${name} markers`);
  writeFileSync(file, `${current.slice(0, a + begin.length)}\n${text}\n${current.slice(b)}`);
}
