/**
 * The project's TypeScript import graph, read the way the compiler reads imports
 * (`ts.preProcessFile`: import and export declarations, `import type` included, and literal
 * `import()` calls), for checks that keep the house's shape: no circular imports (STYLE.md,
 * as grpc-js's `madge -c`) and the dependency directions of docs/architecture.md.
 *
 * Only relative specifiers are edges; a `.js` specifier names the `.ts` file beside it, as
 * under `moduleResolution: nodenext`. Files are the ones git tracks, so a stray local file
 * never decides the result.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** file → the files it imports, paths relative to `root` with forward slashes. */
export type ImportGraph = ReadonlyMap<string, ReadonlySet<string>>;

const SOURCE = /\.(?:ts|mts|cts)$/;

function resolve(root: string, from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = path.posix.join(path.posix.dirname(from), specifier);
  const candidates = [
    base
      .replace(/\.js$/, '.ts')
      .replace(/\.mjs$/, '.mts')
      .replace(/\.cjs$/, '.cts'),
    base,
    `${base}.ts`,
    `${base}/index.ts`,
  ];
  return candidates.find((c) => SOURCE.test(c) && existsSync(path.join(root, c)));
}

/** The graph of every TypeScript file git tracks under `root` (declaration files excluded). */
export function importGraph(root: string): ImportGraph {
  const files = execFileSync('git', ['ls-files', '-z', '--', '*.ts', '*.mts', '*.cts'], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f !== '' && !f.endsWith('.d.ts') && existsSync(path.join(root, f)));
  const graph = new Map<string, Set<string>>();
  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(path.join(root, file), 'utf8'), true, true);
    const edges = new Set<string>();
    for (const { fileName } of info.importedFiles) {
      const target = resolve(root, file, fileName);
      if (target !== undefined) edges.add(target);
    }
    graph.set(file, edges);
  }
  return graph;
}

/**
 * The circles of the graph: each strongly connected component of two files or more, and
 * each file that imports itself (Tarjan's algorithm, iterative so deep chains cannot
 * overflow the stack). Files in each circle are sorted; circles by their first file.
 */
export function importCycles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const circles: string[][] = [];
  let next = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: Array<{ node: string; edges: Iterator<string> }> = [];
    const enter = (node: string) => {
      index.set(node, next);
      low.set(node, next);
      next++;
      stack.push(node);
      onStack.add(node);
      work.push({ node, edges: (graph.get(node) ?? new Set<string>()).values() });
    };
    enter(start);
    while (work.length > 0) {
      const frame = work[work.length - 1] as { node: string; edges: Iterator<string> };
      const step = frame.edges.next();
      if (!step.done) {
        const to = step.value;
        if (!index.has(to)) enter(to);
        else if (onStack.has(to)) low.set(frame.node, Math.min(low.get(frame.node) as number, index.get(to) as number));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined) low.set(parent.node, Math.min(low.get(parent.node) as number, low.get(frame.node) as number));
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.node);
      if (component.length > 1 || graph.get(frame.node)?.has(frame.node) === true) circles.push(component.sort());
    }
  }
  return circles.sort((a, b) => (a[0] as string).localeCompare(b[0] as string));
}

/** Imports from a file under one of `from` to a file under one of `to` (folder prefixes), as "a -> b". */
export function importsBetween(graph: ImportGraph, from: readonly string[], to: readonly string[]): string[] {
  const under = (file: string, prefixes: readonly string[]) => prefixes.some((p) => file.startsWith(p));
  const found: string[] = [];
  for (const [file, edges] of graph) {
    if (!under(file, from)) continue;
    for (const target of edges) if (under(target, to)) found.push(`${file} -> ${target}`);
  }
  return found.sort();
}
