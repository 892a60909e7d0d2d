import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MARKING_TRIGGERS, NODE_FLAGS, operatorSetMarking, tuneIncrementalMarking } from './heap-tuning.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

describe('NODE_FLAGS', () => {
  it('are the flags every image and npm start launch the server with', () => {
    // Every image entrypoint that runs `kserve-ts serve` (the server images, custom model, transformer).
    const entrypoints = readdirSync(path.join(ROOT, 'images'))
      .filter((f) => f.endsWith('Dockerfile'))
      .flatMap((f) => [...readFileSync(path.join(ROOT, 'images', f), 'utf8').matchAll(/^ENTRYPOINT (\[.*\])$/gm)].map((m) => JSON.parse(m[1] as string) as string[]))
      .filter((e) => e.includes('/app/dist/bin/kserve-ts.js'));
    expect(entrypoints.length).toBe(3);
    for (const e of entrypoints) expect(e.slice(0, NODE_FLAGS.length + 3)).toEqual(['node', ...NODE_FLAGS, '/app/dist/bin/kserve-ts.js', 'serve']);
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts['start']).toMatch(new RegExp(`^node ${NODE_FLAGS.join(' ')} dist/bin/kserve-ts\\.js serve `));
  });

  it('keep the young generation small where Node would let it grow to 32 MiB', () => {
    // Young objects that survive a while make V8 grow the young generation to its cap.
    const script = `const v8 = require('node:v8'); const ring = new Array(64).fill(null); let max = 0;
      for (let n = 0; n < 3000; n++) {
        const b = []; for (let j = 0; j < 500; j++) b.push({ j, n }); ring[n % 64] = b;
        if (n % 100 === 0) max = Math.max(max, v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size);
      }
      console.log(max);`;
    const youngMax = (flags: readonly string[]) => {
      const r = spawnSync(productNode(), [...flags, '-e', script], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      return Number(r.stdout.trim());
    };
    const MiB = 1024 * 1024;
    // Both semi-spaces plus V8's page rounding: a few MiB, not the default's 32.
    expect(youngMax(NODE_FLAGS)).toBeLessThanOrEqual(6 * MiB);
    expect(youngMax([])).toBeGreaterThan(16 * MiB);
  });
});

describe('operatorSetMarking', () => {
  it('sees the marking flags in either spelling, and only those', () => {
    expect(operatorSetMarking(['--incremental-marking-soft-trigger=50'])).toBe(true);
    expect(operatorSetMarking(['--incremental_marking_hard_trigger=90'])).toBe(true);
    expect(operatorSetMarking(['--no-incremental-marking'])).toBe(true);
    expect(operatorSetMarking(['--max-old-space-size=512', '--import', 'tsx', '--enable-source-maps'])).toBe(false);
    expect(operatorSetMarking([])).toBe(false);
  });

  it('leaves V8 alone when the operator decided (command line or NODE_OPTIONS)', () => {
    expect(tuneIncrementalMarking(['--incremental-marking-soft-trigger=60'], undefined)).toEqual([]);
    expect(tuneIncrementalMarking([], '--max-old-space-size=256 --no-incremental-marking')).toEqual([]);
  });
});

/**
 * The product runs on Node 24 (the images; package.json's engines say >=22): the check runs
 * there, on this Node when it is one of those, else on the cached Node 24 (scripts/node24.sh).
 */
function productNode(): string {
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  const r = spawnSync('bash', [path.join(ROOT, 'scripts/node24.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status !== 0) throw new Error('scripts/node24.sh failed');
  return path.join(r.stdout.trim().split('\n').pop() as string, 'node');
}

// A small steady old generation with a part that grows and is dropped again, and short-lived
// young batches that keep the young generation busy: the shape of a server taking large bodies.
const WORKLOAD = `
import { tuneIncrementalMarking } from ${JSON.stringify(path.join(ROOT, 'server/heap-tuning.ts'))};
console.log('set ' + tuneIncrementalMarking([], undefined).length);
const live = []; for (let i = 0; i < 20000; i++) live.push({ i, s: 'x' + i });
const grow = []; const ring = new Array(16).fill(null);
for (let n = 0; n < 15000; n++) {
  const batch = []; for (let j = 0; j < 2000; j++) batch.push({ j, n, a: [j, n] });
  ring[n % ring.length] = batch;
  if (n % 10 === 0) { grow.push(batch); if (grow.length > 150) grow.length = 0; }
  if (n % 50 === 0) await new Promise((r) => setImmediate(r));
}
console.log('live ' + live.length);
`;

describe('tuneIncrementalMarking in V8', () => {
  it('marking started by the heuristics starts at the soft trigger, not below it', () => {
    const r = spawnSync(productNode(), ['--trace-incremental-marking', '--import', 'tsx', '--input-type=module', '-e', WORKLOAD], {
      cwd: ROOT,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('set 2');
    // "[IncrementalMarking] Start (task): (size/waste/limit/slack) v8: 46MB / 0MB / 51MB / 5MB"
    // (Node 24); the memory reducer's starts are not the heuristics' and are left out.
    const starts = [...r.stdout.matchAll(/Start \((task|allocation limit)\): \([^)]*\) v8: (\d+)MB \/ (?:\d+MB \/ )?(\d+)MB/g)].map((m) => ({
      reason: m[1],
      size: Number(m[2]),
      limit: Number(m[3]),
    }));
    expect(starts.length).toBeGreaterThan(0);
    // Sizes are printed in whole MiB: a start at 80 % of a 20 MiB limit may print as 78 %.
    for (const s of starts) expect(s.size / s.limit, JSON.stringify(s)).toBeGreaterThanOrEqual((MARKING_TRIGGERS.soft - 3) / 100);
  });
});
