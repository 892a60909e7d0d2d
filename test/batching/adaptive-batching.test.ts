/**
 * Adaptive dynamic batching on a real server with a real, compute-bound model
 * (slow_matmul: 16 chained 1024×1024 MatMuls, in the ONNX worker): a request that finds
 * the model idle goes at once, batches form only from requests that queued while it was
 * busy. max_queue_delay_microseconds is ten minutes, longer than any test may run, so a
 * request that waited for it would time the test out; the assertions are on the batch
 * sizes the server reports in /metrics, never on timings. The model is kept busy by a
 * request held at it (test/helpers/model-gate.ts) until the others have queued, not by
 * the time an inference takes.
 */
import { describe, expect, it } from 'vitest';
import { get, json, post } from '../helpers/http.js';
import { useGrpcFixture } from '../helpers/grpc-fixture.js';
import { ModelGate } from '../helpers/model-gate.js';

const TEN_MINUTES = 'max_batch_size: 16\ndynamic_batching { max_queue_delay_microseconds: 600000000 }\n';
const WIDTH = 1024;

const gate = new ModelGate();
const f = useGrpcFixture(
  {
    sequential: { file: 'slow_matmul', config: TEN_MINUTES },
    concurrent: { file: 'slow_matmul', config: TEN_MINUTES },
  },
  [],
  { backends: () => gate.backends() },
);

/** A row of k's: every MatMul replaces each element by the row's mean, so k comes back. */
async function infer(model: string, k: number): Promise<number[]> {
  const r = await post(`${f.server.url}/v2/models/${model}/infer`, {
    inputs: [{ name: 'X', datatype: 'FP32', shape: [1, WIDTH], data: new Array<number>(WIDTH).fill(k) }],
  });
  expect(r.status).toBe(200);
  const out = (json(r) as { outputs: Array<{ shape: number[]; data: number[] }> }).outputs[0];
  expect(out?.shape).toEqual([1, WIDTH]);
  return out?.data ?? [];
}

/** The model's kserve_batch_size histogram: count, sum and the cumulative bucket counts. */
async function batchSizes(model: string): Promise<{ count: number; sum: number; le: Map<string, number> }> {
  const text = (await get(`${f.server.url}/metrics`)).text;
  const le = new Map<string, number>();
  let count = 0;
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = /^kserve_batch_size_(bucket|count|sum)\{([^}]*)\} (\S+)$/.exec(line);
    if (m === null || !(m[2] as string).includes(`model_name="${model}"`)) continue;
    const value = Number(m[3]);
    if (m[1] === 'count') count = value;
    else if (m[1] === 'sum') sum = value;
    else le.set(/le="([^"]+)"/.exec(m[2] as string)?.[1] ?? '', value);
  }
  return { count, sum, le };
}

describe('adaptive dynamic batching', () => {
  it('runs every request of a sequential client alone and at once, never waiting for max_queue_delay', async () => {
    for (let k = 1; k <= 12; k++) {
      const out = await infer('sequential', k);
      expect(out.every((v) => Math.abs(v - k) < 1e-3)).toBe(true);
    }
    const sizes = await batchSizes('sequential');
    expect(sizes.count).toBe(12);
    expect(sizes.sum).toBe(12);
    // Every inference ran at batch size 1: nothing queued behind an idle model.
    expect(sizes.le.get('1')).toBe(12);
  });

  it('stacks requests that queue while the model is busy, each caller still getting its own rows', async () => {
    const callers = 48;
    const { first, rest: outs } = await gate.behindHeld(
      f.server.server,
      'concurrent',
      () => infer('concurrent', 100),
      () => Array.from({ length: callers }, (_, i) => infer('concurrent', i + 1)),
    );
    expect(first.every((v) => Math.abs(v - 100) < 1e-3)).toBe(true);
    outs.forEach((out, i) => expect(out.every((v) => Math.abs(v - (i + 1)) < 1e-3)).toBe(true));
    const sizes = await batchSizes('concurrent');
    // The busy one alone; the 48 that queued behind it in three batches of max_batch_size.
    expect(sizes.sum).toBe(1 + callers);
    expect(sizes.count).toBe(4);
    expect(sizes.le.get('1')).toBe(1);
    expect(sizes.le.get('8')).toBe(1);
    expect(sizes.le.get('16')).toBe(4);
  });
});
