/**
 * Summarises V8 CPU profiles (`node --cpu-prof`, one .cpuprofile per thread): self time
 * per function and per code origin (this project's folders, each npm package, Node's
 * internals, V8's pseudo-frames such as the garbage collector), as Markdown tables.
 *
 *   node --import tsx benchmarks/profile-summary.ts FILE.cpuprofile... [--top 15]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ROOT, numberArg } from './harness.js';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface SelfTime {
  readonly name: string;
  readonly ms: number;
  readonly share: number;
}

export interface ProfileSummary {
  /** Sampled time without `(idle)` (ms). */
  readonly busyMs: number;
  readonly wallMs: number;
  readonly functions: SelfTime[];
  readonly origins: SelfTime[];
}

/** Where a frame's code comes from: a project folder, an npm package, Node itself, or V8. */
function origin(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node internals';
  const file = url.startsWith('file://') ? fileURLToPath(url) : url;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
  if (pkg) return pkg[1] as string;
  const rel = path.relative(ROOT, file);
  if (!rel.startsWith('..'))
    return rel
      .split(path.sep)
      .slice(0, rel.startsWith('dist') ? 2 : 1)
      .join('/');
  return file;
}

function frameName(n: ProfileNode): string {
  const { functionName, url, lineNumber } = n.callFrame;
  if (url === '') return functionName || '(anonymous)';
  const file = url.startsWith('file://') ? path.relative(ROOT, fileURLToPath(url)) : url;
  return `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`;
}

function ranked(totals: Map<string, number>, busyUs: number): SelfTime[] {
  return [...totals.entries()].map(([name, us]) => ({ name, ms: us / 1000, share: us / busyUs })).sort((a, b) => b.ms - a.ms);
}

export function summarise(profile: CpuProfile): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const functions = new Map<string, number>();
  const origins = new Map<string, number>();
  let busyUs = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    // A sample's time is the delta to the next sample.
    const us = profile.timeDeltas[i + 1] ?? 0;
    if (node === undefined || node.callFrame.functionName === '(idle)') return;
    busyUs += us;
    const f = frameName(node);
    functions.set(f, (functions.get(f) ?? 0) + us);
    const o = origin(node.callFrame.url, node.callFrame.functionName);
    origins.set(o, (origins.get(o) ?? 0) + us);
  });
  return {
    busyMs: busyUs / 1000,
    wallMs: (profile.endTime - profile.startTime) / 1000,
    functions: ranked(functions, busyUs),
    origins: ranked(origins, busyUs),
  };
}

export function readProfile(file: string): CpuProfile {
  return JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
}

export function summaryMarkdown(title: string, s: ProfileSummary, top: number): string {
  const rows = (xs: SelfTime[]) => xs.slice(0, top).map((x) => `| ${x.name.replaceAll('|', '\\|')} | ${x.ms.toFixed(0)} | ${(100 * x.share).toFixed(1)}% |`);
  return [
    `${title}: busy ${s.busyMs.toFixed(0)} ms of ${s.wallMs.toFixed(0)} ms sampled.`,
    '',
    '| by origin | self ms | share of busy |',
    '|---|---:|---:|',
    ...rows(s.origins),
    '',
    '| top functions (self time) | self ms | share of busy |',
    '|---|---:|---:|',
    ...rows(s.functions),
  ].join('\n');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const top = numberArg('top', 15);
  const files = process.argv.slice(2).filter((a, i, all) => a.endsWith('.cpuprofile') && all[i - 1] !== '--top');
  for (const f of files) process.stdout.write(`${summaryMarkdown(path.basename(f), summarise(readProfile(f)), top)}\n\n`);
}
