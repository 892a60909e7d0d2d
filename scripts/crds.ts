/**
 * `npm run crds`: writes the CRDs described in controller/api (controller/api/crds.ts) to
 * controller/crds/ (what `kubectl apply -f`, `--install-crds`, the controller image and,
 * through symbolic links, the CRD chart read). test/controller/crd-schema.test.ts fails while
 * a written file differs from its description.
 *
 * The YAML is written here rather than by a library: CRDs hold only maps, lists, strings,
 * numbers and booleans, and a fixed small style (flow maps for short leaves, block for the
 * rest, quotes only where a plain scalar would be misread) keeps the files readable and
 * their diffs small.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CRD_FILES } from '../controller/api/crds.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const CRD_DIR = 'controller/crds';
const WIDTH = 120;

type Json = string | number | boolean | null | readonly Json[] | { readonly [k: string]: Json };

const RESERVED = /^(y|n|yes|no|true|false|on|off|null|~)$/i;
const PLAIN = /^[A-Za-z][A-Za-z0-9_./-]*$/;

function str(s: string): string {
  return PLAIN.test(s) && !RESERVED.test(s) ? s : JSON.stringify(s);
}

function scalar(v: Json): string | undefined {
  if (v === null) return 'null';
  if (typeof v === 'string') return str(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

/** The value on one line (`{ a: b }`, `[a, b]`), or undefined when it holds a list of maps. */
function flow(v: Json): string | undefined {
  const s = scalar(v);
  if (s !== undefined) return s;
  if (Array.isArray(v)) {
    const items = (v as readonly Json[]).map((x) => (typeof x === 'object' && x !== null ? undefined : scalar(x)));
    return items.every((x) => x !== undefined) ? `[${items.join(', ')}]` : undefined;
  }
  const entries = Object.entries(v as Record<string, Json>);
  if (entries.length === 0) return '{}';
  const parts = entries.map(([k, x]) => {
    const f = flow(x);
    return f === undefined ? undefined : `${str(k)}: ${f}`;
  });
  return parts.every((p) => p !== undefined) ? `{ ${parts.join(', ')} }` : undefined;
}

function block(v: Json, indent: string, out: string[]): void {
  if (Array.isArray(v)) {
    for (const item of v as readonly Json[]) {
      const f = flow(item);
      if (f !== undefined && (typeof item !== 'object' || item === null || indent.length + 2 + f.length <= WIDTH)) {
        out.push(`${indent}- ${f}`);
        continue;
      }
      // A map item: its first key on the dash's line, the rest under it.
      const lines: string[] = [];
      block(item, `${indent}  `, lines);
      out.push(`${indent}- ${lines[0]!.slice(indent.length + 2)}`, ...lines.slice(1));
    }
    return;
  }
  for (const [k, x] of Object.entries(v as Record<string, Json>)) {
    const head = `${indent}${str(k)}:`;
    const f = flow(x);
    const empty = typeof x === 'object' && x !== null && Object.keys(x).length === 0;
    if (f !== undefined && (empty || typeof x !== 'object' || x === null || head.length + 1 + f.length <= WIDTH)) {
      out.push(`${head} ${f}`);
    } else {
      out.push(head);
      block(x, `${indent}  `, out);
    }
  }
}

export function toYaml(value: unknown, comment: string): string {
  const out = comment.split('\n').map((l) => `# ${l}`.trimEnd());
  out.push('# Written by `npm run crds` from controller/api: edit the description there, not this file.');
  block(value as Json, '', out);
  return `${out.join('\n')}\n`;
}

/** Each CRD file's path (relative to the repository) and its text. */
export function renderCrdFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const { file, comment, crd } of CRD_FILES) {
    files.set(path.join(CRD_DIR, file), toYaml(crd, comment));
  }
  return files;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const [file, text] of renderCrdFiles()) {
    writeFileSync(path.join(ROOT, file), text);
    process.stdout.write(`wrote ${file}\n`);
  }
}
