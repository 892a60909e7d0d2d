/**
 * Inference runs off the main thread: while a long inference is in progress, the event loop
 * answers other requests (the metrics scrape that sees it in flight, health probes), and the
 * inference's CPU time is spent on another thread, not the main one.
 *
 * Checked without a clock, by the server's own queue-depth gauge: a health probe whose
 * answer is preceded and followed by a scrape (three round trips, one after the other, each
 * answered on the main thread) that still counts the inference in flight. An inference on
 * the main thread blocks it from the run's start to its end, leaving room for at most one
 * round trip before the run begins. The inference is 275 GFLOP (on one intra-op thread, a
 * second or more on any processor), against three loopback round trips. How fast the
 * probes are answered meanwhile, and the main thread's share of the CPU time, are printed
 * and recorded in benchmarks/RESULTS.md, not judged here.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binaryInferBody } from '../../../test/helpers/binary.js';
import { metricValue } from '../../../test/helpers/http.js';
import { type TestServer, makeRepository, startServer } from '../../../test/helpers/server.js';
import { waitFor } from '../../../test/helpers/wait-for.js';

/** 8192 rows of slow_matmul: 16 chained [8192,1024]×[1024,1024] products, about 275 GFLOP. */
const ROWS = 8192;

function slowRequest(url: string): Promise<number> {
  const x = new Float32Array(ROWS * 1024).fill(1);
  const { body, headerLength } = binaryInferBody([{ name: 'X', datatype: 'FP32', shape: [ROWS, 1024], bytes: new Uint8Array(x.buffer) }], {
    parameters: { binary_data_output: true },
  });
  return fetch(`${url}/v2/models/slow/infer`, {
    method: 'POST',
    headers: { 'inference-header-content-length': String(headerLength), 'content-type': 'application/octet-stream' },
    body,
  }).then(async (res) => (await res.arrayBuffer(), res.status));
}

/** CPU time (µs) of this process's main thread, which runs the server's event loop here. */
function mainThreadCpuMicros(): number {
  return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1000;
}

function processCpuMicros(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
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

  it('answers health probes while a long inference runs', async () => {
    const depth = async () => metricValue(await (await fetch(`${t.url}/metrics`)).text(), 'kserve_model_queue_depth', { model_name: 'slow' });
    const main0 = mainThreadCpuMicros();
    const all0 = processCpuMicros();
    let finished = false;
    const slow = slowRequest(t.url).finally(() => (finished = true));
    await waitFor(async () => (await depth()) === 1 || finished, { intervalMs: 5, timeoutMs: 120_000, description: 'the inference to be in flight' });
    const probes: number[] = [];
    let during = 0;
    while (!finished && probes.length < 20) {
      const start = performance.now();
      const res = await fetch(`${t.url}/v2/health/ready`);
      expect(res.status).toBe(200);
      await res.json();
      probes.push(performance.now() - start);
      // Still in flight after the probe's answer: that probe was answered during the inference.
      if ((await depth()) === 1) during++;
    }
    expect(await slow).toBe(200);
    const main = mainThreadCpuMicros() - main0;
    const all = processCpuMicros() - all0;
    const sorted = [...probes].sort((a, b) => a - b);
    const ms = (v: number | undefined) => (v === undefined ? '–' : v.toFixed(1));
    console.log(
      `off-thread: ${probes.length} probes during the inference (${during} answered with it still in flight), ` +
        `median ${ms(sorted[Math.floor(sorted.length / 2)])} ms, max ${ms(sorted[sorted.length - 1])} ms; ` +
        `CPU: main thread ${(main / 1000).toFixed(0)} ms of ${(all / 1000).toFixed(0)} ms`,
    );
    expect(during).toBeGreaterThan(0);
  });
});
