/** `--workers N`: processes share the ports, metrics add up across them, a dead worker is replaced. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, restPort } from './helpers/process.js';
import { IRIS_DIR } from './helpers/server.js';

const LOOPBACK = ['--http_host', '127.0.0.1', '--http_port', '0', '--enable_grpc', 'false'];

async function predict(port: number): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}/v1/models/iris:predict`, {
    method: 'POST',
    body: JSON.stringify({ instances: [[5.1, 3.5, 1.4, 0.2]] }),
  });
  expect(await res.json()).toEqual({ predictions: [0] });
  return res.status;
}

describe('--workers', () => {
  const cleanups: Array<() => void> = [];
  afterAll(() => cleanups.forEach((c) => c()));

  it('serves from several processes with metrics aggregated, replaces a dead worker, drains on SIGTERM', async () => {
    const p = runCli(['serve', '--workers', '2', '--model_name', 'iris', '--model_dir', IRIS_DIR, ...LOOPBACK]);
    cleanups.push(() => p.child.kill('SIGKILL'));
    const started = () =>
      p
        .output()
        .split('\n')
        .filter((l) => l.includes('"msg":"server started"'));
    await p.waitForLog((l) => l['msg'] === 'server started');
    await expect.poll(() => started().length, { timeout: 20_000 }).toBe(2);
    const pids = started().map((l) => (JSON.parse(l) as { pid: number }).pid);
    expect(new Set(pids).size).toBe(2);
    expect(pids).not.toContain(p.child.pid);
    // Port 0 with cluster: every worker shares the one port the primary bound.
    const port = await restPort(p);

    for (let i = 0; i < 20; i++) expect(await predict(port)).toBe(200);
    // Whichever worker answers the scrape, it reports every worker's requests.
    for (let i = 0; i < 3; i++) {
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      expect(text).toContain('kserve_inference_requests_total{model_name="iris",protocol="v1",status_code="200"} 20');
    }

    process.kill(pids[0] as number, 'SIGKILL');
    await expect.poll(() => started().length, { timeout: 20_000 }).toBe(3);
    expect(p.output()).toContain('worker died; starting another');
    for (let i = 0; i < 5; i++) expect(await predict(port)).toBe(200);

    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
  });

  it('stops with exit 1 when the workers cannot load any model', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'kserve-ts-empty-'));
    cleanups.push(() => rmSync(empty, { recursive: true, force: true }));
    const p = runCli(['serve', '--workers', '2', '--model_repository', empty, ...LOOPBACK]);
    expect(await p.exited).toBe(1);
    expect(p.output()).toContain('no model is ready');
    expect(p.output()).toContain('worker exited before it started serving; stopping');
  });
});
