/**
 * Inference runs off the main thread: while a long (~0.5 s or more) inference is in
 * progress, health probes and other requests still answer within milliseconds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binaryInferBody } from '../../../test/helpers/binary.js';
import { type TestServer, makeRepository, startServer } from '../../../test/helpers/server.js';

async function slowRequest(url: string, rows: number): Promise<{ ms: number; status: number }> {
  const x = new Float32Array(rows * 1024).fill(1);
  const { body, headerLength } = binaryInferBody([
    { name: 'X', datatype: 'FP32', shape: [rows, 1024], bytes: new Uint8Array(x.buffer) },
  ], { parameters: { binary_data_output: true } });
  const start = performance.now();
  const res = await fetch(`${url}/v2/models/slow/infer`, {
    method: 'POST',
    headers: { 'inference-header-content-length': String(headerLength), 'content-type': 'application/octet-stream' },
    body,
  });
  await res.arrayBuffer();
  return { ms: performance.now() - start, status: res.status };
}

describe('inference off the event loop', () => {
  let t: TestServer;
  let repo: ReturnType<typeof makeRepository>;
  beforeAll(async () => {
    repo = makeRepository({ slow: 'slow_matmul', other: 'add_sub' });
    t = await startServer(['--model_repository', repo.dir]);
  });
  afterAll(async () => {
    await t.close();
    repo.cleanup();
  });

  it('answers health probes in well under 100 ms while a long inference runs', async () => {
    // Size the slow request from a measured warm-up so it lasts at least ~0.5 s here.
    const warm = await slowRequest(t.url, 256);
    expect(warm.status).toBe(200);
    const rows = Math.min(8192, Math.max(256, Math.ceil((256 * 600) / Math.max(warm.ms, 1))));

    const slow = slowRequest(t.url, rows);
    // Let the request reach the worker before probing.
    await new Promise((r) => setTimeout(r, 100));
    const probes: number[] = [];
    for (let i = 0; i < 5; i++) {
      const start = performance.now();
      const res = await fetch(`${t.url}/v2/health/ready`);
      expect(res.status).toBe(200);
      await res.json();
      probes.push(performance.now() - start);
    }
    const done = await slow;
    expect(done.status).toBe(200);
    // The probes ran while the inference was still busy, and each was fast.
    expect(done.ms).toBeGreaterThan(probes.reduce((a, b) => a + b, 0) + 100);
    const median = [...probes].sort((a, b) => a - b)[Math.floor(probes.length / 2)] as number;
    expect(median).toBeLessThan(100);
  });
});
