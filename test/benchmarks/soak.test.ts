/**
 * The soak benchmark's smoke: a 6-second soak (0.1 minute) against a real server run from
 * source, checking that the report is complete: every phase measured, every minute and
 * protocol present, RSS sampled. The numbers are not judged (a loaded CI machine moves them).
 */
import { describe, expect, it } from 'vitest';
import { SOAK_PROTOCOLS, runSoak, slope, soakMarkdown } from '../../benchmarks/soak.js';

describe('soak benchmark', () => {
  it('fits a least-squares slope', () => {
    expect(
      slope([
        [0, 1],
        [1, 3],
        [2, 5],
      ]),
    ).toBeCloseTo(2);
    expect(slope([[0, 7]])).toBe(0);
  });

  it('runs a short soak and reports every part', { timeout: 180_000 }, async () => {
    const phases: string[] = [];
    const r = await runSoak({ minutes: 0.1, capacitySeconds: 1, idleSeconds: 1, sampleSeconds: 1, loadShare: 0.8, tsx: true, pin: false }, (l) => phases.push(l));
    expect(phases.some((l) => l.startsWith('soak done'))).toBe(true);
    for (const p of SOAK_PROTOCOLS) {
      expect(r.capacity[p].rps).toBeGreaterThan(0);
      expect(r.targetRps[p]).toBeGreaterThan(0);
      expect(r.achieved[p].sent).toBeGreaterThan(0);
      expect(Number.isFinite(r.achieved[p].p99)).toBe(true);
    }
    expect(r.minutes).toHaveLength(1);
    expect(Object.keys(r.minutes[0]?.perProtocol ?? {})).toEqual([...SOAK_PROTOCOLS]);
    // Samples at the start, every second, and at the end.
    expect(r.rss.length).toBeGreaterThanOrEqual(3);
    expect(r.rss.every(([, m]) => m > 0)).toBe(true);
    expect(r.warmIdleMiB).toBeGreaterThan(0);
    expect(r.afterIdleMiB).toBeGreaterThan(0);
    expect(Number.isFinite(r.rssSlopeMiBPerMin)).toBe(true);
    expect(typeof r.errors).toBe('number');
    const md = soakMarkdown(r);
    expect(md).toMatch(/^Run .* load average/);
    expect(md).toMatch(/\| minute \| V2 JSON req\/s .* RSS MiB \|/);
    expect(md.split('\n').filter((l) => /^\| 1 \|/.test(l))).toHaveLength(1);
    expect(md).toMatch(/slope -?\d+\.\d\d MiB\/min/);
  });
});
