/**
 * BatchingInstance and its parts against a fake ModelInstance whose calls we hold and
 * release by hand, so batch composition is deterministic (no timing).
 */
import { describe, expect, it } from 'vitest';
import type { Tensor } from '../../protocols/tensor.js';
import type { ModelInstance } from '../backend/backend.js';
import { BatchingInstance } from './batching-instance.js';
import { batchContext, batchKey, splitOutputs, stackInputs } from './stacking.js';

interface Call {
  readonly inputs: readonly Tensor[];
  release(): void;
}

/** Echoes INPUT0 as OUTPUT0 (×2 for FP32); fails any call holding the value 13. Calls wait for `release`. */
function fakeInstance(opts: { hold: boolean } = { hold: true }) {
  const calls: Call[] = [];
  const instance: ModelInstance = {
    platform: 'fake',
    executionProvider: 'cuda',
    inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [-1, -1] }],
    outputs: [{ name: 'OUTPUT0', datatype: 'FP32', shape: [-1, -1] }],
    infer: async (inputs: readonly Tensor[], outputNames: readonly string[], _signature?: string) => {
      await new Promise<void>((release) => {
        calls.push({ inputs, release });
        if (!opts.hold) release();
      });
      const x = inputs[0] as Tensor;
      if (x.datatype === 'FP32' && Array.from(x.data as Float32Array).includes(13)) throw new Error('13 is unlucky');
      const data = x.datatype === 'FP32' ? (x.data as Float32Array).map((v) => v * 2) : x.data;
      return outputNames.map((name) => ({ name, datatype: x.datatype, shape: x.shape, data }));
    },
    unload: async () => undefined,
    onFailure: () => undefined,
  };
  return { instance, calls };
}

const fp32 = (rows: number[][]): Tensor => ({
  name: 'INPUT0',
  datatype: 'FP32',
  shape: [rows.length, rows[0]?.length ?? 0],
  data: Float32Array.from(rows.flat()),
});

/** Lets queued promise callbacks run. */
const tick = () => new Promise<void>((r) => setImmediate(r));

async function releaseAll(calls: Call[]): Promise<void> {
  for (let i = 0; i < 100; i++) {
    for (const c of calls.splice(0)) c.release();
    await tick();
  }
}

function batching(inner: ModelInstance, extra: Partial<{ maxBatchSize: number; preferred: number[]; delayUs: number; inFlight: number; instances: number }> = {}) {
  const sizes: number[] = [];
  const queued: number[] = [];
  const executed: number[] = [];
  const b = new BatchingInstance(inner, {
    modelName: 'm',
    maxBatchSize: extra.maxBatchSize ?? 8,
    preferredBatchSizes: extra.preferred ?? [],
    maxQueueDelayMicroseconds: extra.delayUs ?? 0,
    maxInFlight: extra.inFlight,
    instances: extra.instances,
    observer: { batchSize: (n) => sizes.push(n), queueSeconds: (s) => queued.push(s), executed: (rows) => executed.push(rows) },
  });
  return { b, sizes, queued, executed };
}

describe('stacking', () => {
  it('keys requests by the parameters the instance computes with, and only those; a batch runs with them alone', () => {
    const x = [fp32([[1, 2]])];
    const key = (parameters: Record<string, string | number | bigint | boolean> | undefined) => batchKey(x, ['OUTPUT0'], undefined, parameters, ['dimensions']);
    // A JSON number and a gRPC int64 of one value are one key; a string of it, another value, or none are not.
    expect(key({ dimensions: 8 })).toBe(key({ dimensions: 8n, user: 'a' }));
    expect(new Set([key({ dimensions: 8 }), key({ dimensions: '8' }), key({ dimensions: 4 }), key(undefined)]).size).toBe(4);
    // Without batchParameters, parameters never split batches (as before they existed).
    expect(batchKey(x, ['OUTPUT0'], undefined, { dimensions: 8 })).toBe(batchKey(x, ['OUTPUT0'], undefined, { dimensions: 4 }));
    expect(batchContext({ dimensions: 8, user: 'a' }, ['dimensions'])).toEqual({ id: undefined, parameters: { dimensions: 8 }, headers: {}, responseHeaders: {} });
    expect(batchContext({ dimensions: 8 }, [])).toBeUndefined();
  });

  it('stacks numeric, 64-bit and BYTES tensors along dim 0 and splits them back as copies', () => {
    const a: Tensor[] = [
      { name: 'X', datatype: 'INT64', shape: [1, 2], data: BigInt64Array.from([1n, 2n]) },
      { name: 'S', datatype: 'BYTES', shape: [1, 1], data: [Uint8Array.from([97])] },
    ];
    const b: Tensor[] = [
      { name: 'S', datatype: 'BYTES', shape: [2, 1], data: [Uint8Array.from([98]), Uint8Array.from([99])] },
      { name: 'X', datatype: 'INT64', shape: [2, 2], data: BigInt64Array.from([3n, 4n, 5n, 6n]) },
    ];
    expect(batchKey(a, ['Y'], 'sig_a')).toBe(batchKey(b, ['Y'], 'sig_a'));
    expect(batchKey(a, ['Y'], 'sig_a')).not.toBe(batchKey(b, ['Y'], 'sig_b'));
    expect(batchKey(a, ['Y'], undefined)).not.toBe(batchKey(b, ['Z'], undefined));
    const stacked = stackInputs([a, b]);
    expect(stacked.map((t) => t.shape)).toEqual([
      [3, 2],
      [3, 1],
    ]);
    expect(Array.from(stacked[0]?.data as BigInt64Array)).toEqual([1n, 2n, 3n, 4n, 5n, 6n]);
    expect((stacked[1]?.data as Uint8Array[]).map((e) => e[0])).toEqual([97, 98, 99]);

    const [first, second] = splitOutputs(stacked, [1, 2]);
    expect(first?.map((t) => t.shape)).toEqual([
      [1, 2],
      [1, 1],
    ]);
    expect(Array.from(second?.[0]?.data as BigInt64Array)).toEqual([3n, 4n, 5n, 6n]);
    expect((second?.[0]?.data as BigInt64Array).buffer).not.toBe((stacked[0]?.data as BigInt64Array).buffer);
    expect(() => splitOutputs(stacked, [1, 1])).toThrow(/dim 0/);
  });
});

describe('BatchingInstance', () => {
  it('stacks requests that arrive while a batch runs, and each caller gets exactly its rows', async () => {
    const { instance, calls } = fakeInstance();
    const { b, sizes, queued } = batching(instance, { inFlight: 1 });
    const results = Array.from({ length: 9 }, (_, i) => b.infer([fp32([[i, i + 0.5]])], ['OUTPUT0']));
    await tick();
    // The first ran alone at once (zero delay); the other 8 filled one batch meanwhile.
    await releaseAll(calls);
    const outs = await Promise.all(results);
    outs.forEach((o, i) => {
      expect(o[0]?.shape).toEqual([1, 2]);
      expect(Array.from(o[0]?.data as Float32Array)).toEqual([2 * i, 2 * i + 1]);
    });
    expect(sizes).toEqual([1, 8]);
    expect(queued).toHaveLength(9);
  });

  it('reports each successful inner call as an execution of its rows; a failed one is none', async () => {
    const { instance, calls } = fakeInstance();
    const { b, executed } = batching(instance, { inFlight: 1 });
    // The first runs alone; the next three (one failing) queue into one batch, which fails
    // and is retried request by request: two of those succeed.
    const settling = Promise.allSettled([
      b.infer([fp32([[1, 2]])], ['OUTPUT0']),
      b.infer([fp32([[3, 4]])], ['OUTPUT0']),
      b.infer([fp32([[13, 0]])], ['OUTPUT0']),
      b.infer(
        [
          fp32([
            [5, 6],
            [7, 8],
          ]),
        ],
        ['OUTPUT0'],
      ),
    ]);
    await tick();
    await releaseAll(calls);
    const settled = await settling;
    expect(settled.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(executed).toEqual([1, 1, 2]);
    // Too many rows to batch: run alone, still an execution.
    const big = b.infer([fp32(Array.from({ length: 9 }, () => [1, 1]))], ['OUTPUT0']);
    await releaseAll(calls);
    await big;
    expect(executed).toEqual([1, 1, 2, 9]);
  });

  it('runs a request that finds the model idle at once, alone, even with a long max_queue_delay', async () => {
    const { instance, calls } = fakeInstance();
    const { b, sizes } = batching(instance, { delayUs: 60_000_000 });
    for (const v of [1, 2, 3]) {
      const out = b.infer([fp32([[v]])], ['OUTPUT0']);
      await tick();
      // Handed to the model before any timer could fire: nothing else was in flight.
      expect(calls).toHaveLength(1);
      await releaseAll(calls);
      expect(Array.from((await out)[0]?.data as Float32Array)).toEqual([2 * v]);
    }
    expect(sizes).toEqual([1, 1, 1]);
  });

  it('batches what queued behind a running batch and sends it when the model goes idle, not before', async () => {
    const { instance, calls } = fakeInstance();
    const { b, sizes } = batching(instance, { delayUs: 60_000_000 });
    const outs = [1, 2, 3].map((v) => b.infer([fp32([[v]])], ['OUTPUT0']));
    await tick();
    // The first went at once; a slot is free, but [2, 3] is not full: it keeps filling.
    expect(calls).toHaveLength(1);
    const fourth = b.infer([fp32([[4]])], ['OUTPUT0']);
    await tick();
    expect(calls).toHaveLength(1);
    outs.push(fourth);
    await releaseAll(calls);
    expect((await Promise.all(outs)).map((o) => Array.from(o[0]?.data as Float32Array))).toEqual([[2], [4], [6], [8]]);
    expect(sizes).toEqual([1, 3]);
  });

  it('counts a request too large to batch as the model being busy: later ones queue behind it', async () => {
    const { instance, calls } = fakeInstance();
    const { b, sizes } = batching(instance, { maxBatchSize: 4 });
    const big = b.infer([fp32([[1], [2], [3], [4], [5]])], ['OUTPUT0']);
    const small = [6, 7].map((v) => b.infer([fp32([[v]])], ['OUTPUT0']));
    await tick();
    expect(calls.map((c) => c.inputs[0]?.shape[0])).toEqual([5]);
    await releaseAll(calls);
    expect(Array.from((await big)[0]?.data as Float32Array)).toEqual([2, 4, 6, 8, 10]);
    expect((await Promise.all(small)).map((o) => Array.from(o[0]?.data as Float32Array))).toEqual([[12], [14]]);
    expect(sizes).toEqual([5, 2]);
  });

  it('with one batch in flight, sends a full batch at once; with two, batches wait and fill', async () => {
    const { instance, calls } = fakeInstance();
    const { b, sizes } = batching(instance, { maxBatchSize: 4, delayUs: 60_000_000 });
    const outs = Array.from({ length: 13 }, (_, i) => b.infer([fp32([[i]])], ['OUTPUT0']));
    await tick();
    // [0] alone (idle), [1..4] full; then both slots are taken: [5..8] and [9..12] wait, full.
    expect(calls.map((c) => c.inputs[0]?.shape[0] ?? 0).sort((x, y) => x - y)).toEqual([1, 4]);
    await releaseAll(calls);
    (await Promise.all(outs)).forEach((o, i) => expect(Array.from(o[0]?.data as Float32Array)).toEqual([2 * i]));
    expect(sizes).toEqual([1, 4, 4, 4]);
  });

  it('with two instances, sends a second request at once while one runs, and stages one full batch behind them', async () => {
    const { instance, calls } = fakeInstance();
    const { b, sizes } = batching(instance, { maxBatchSize: 4, delayUs: 60_000_000, instances: 2 });
    const first = b.infer([fp32([[0]])], ['OUTPUT0']);
    await tick();
    const second = b.infer([fp32([[1]])], ['OUTPUT0']);
    await tick();
    // Each found an instance idle: both run alone, side by side.
    expect(calls.map((c) => c.inputs[0]?.shape[0])).toEqual([1, 1]);
    const rest = Array.from({ length: 9 }, (_, i) => b.infer([fp32([[i + 2]])], ['OUTPUT0']));
    await tick();
    // Both instances busy: one full batch is staged (three in flight), the rest fill and wait.
    expect(calls.map((c) => c.inputs[0]?.shape[0])).toEqual([1, 1, 4]);
    await releaseAll(calls);
    expect([await first, await second, ...(await Promise.all(rest))].map((o) => Array.from(o[0]?.data as Float32Array))).toEqual(Array.from({ length: 11 }, (_, i) => [2 * i]));
    expect(sizes).toEqual([1, 1, 4, 4, 1]);
  });

  it('never exceeds max_batch_size and dispatches at the largest preferred size', async () => {
    const { instance, calls } = fakeInstance();
    const { b, sizes } = batching(instance, { maxBatchSize: 4, preferred: [2, 3], inFlight: 1 });
    const blocker = b.infer([fp32([[0]])], ['OUTPUT0']);
    const results = Array.from({ length: 7 }, (_, i) => b.infer([fp32([[i + 1], [i + 100]])], ['OUTPUT0']));
    await releaseAll(calls);
    await blocker;
    const outs = await Promise.all(results);
    outs.forEach((o, i) => expect(Array.from(o[0]?.data as Float32Array)).toEqual([2 * (i + 1), 2 * (i + 100)]));
    // Two-row requests: 2+2 would pass the target of 3 without exceeding 4.
    expect(sizes).toEqual([1, 4, 4, 4, 2]);
  });

  it('keeps requests with other trailing dims, outputs or signature out of a batch, yet runs them all', async () => {
    const { instance, calls } = fakeInstance();
    const { b, sizes } = batching(instance, { inFlight: 1 });
    const blocker = b.infer([fp32([[0]])], ['OUTPUT0']);
    const p = [
      b.infer([fp32([[1, 1]])], ['OUTPUT0']),
      b.infer([fp32([[2, 2, 2]])], ['OUTPUT0']),
      b.infer([fp32([[3, 3]])], ['OUTPUT0'], 'other_signature'),
      b.infer([fp32([[4, 4]])], ['OUTPUT0']),
      b.infer([fp32([[5, 5, 5]])], ['OUTPUT0']),
    ];
    await releaseAll(calls);
    await blocker;
    const outs = await Promise.all(p);
    expect(outs.map((o) => Array.from(o[0]?.data as Float32Array))).toEqual([
      [2, 2],
      [4, 4, 4],
      [6, 6],
      [8, 8],
      [10, 10, 10],
    ]);
    expect(sizes).toEqual([1, 2, 2, 1]);
  });

  it('isolates a failing request: the batch is retried one by one and only the offender fails', async () => {
    const { instance, calls } = fakeInstance();
    const { b, sizes } = batching(instance, { inFlight: 1 });
    const blocker = b.infer([fp32([[0]])], ['OUTPUT0']);
    const settled = Promise.allSettled([1, 13, 3].map((v) => b.infer([fp32([[v]])], ['OUTPUT0'])));
    await releaseAll(calls);
    await blocker;
    const [one, bad, three] = await settled;
    expect(one).toMatchObject({ status: 'fulfilled' });
    expect(Array.from((one as PromiseFulfilledResult<Tensor[]>).value[0]?.data as Float32Array)).toEqual([2]);
    expect(bad).toMatchObject({ status: 'rejected', reason: { message: '13 is unlucky' } });
    expect(Array.from((three as PromiseFulfilledResult<Tensor[]>).value[0]?.data as Float32Array)).toEqual([6]);
    expect(sizes).toEqual([1, 3, 1, 1, 1]);
  });

  it('runs a request without a batch dimension alone and passes the inner metadata through', async () => {
    const { instance } = fakeInstance({ hold: false });
    const { b } = batching(instance);
    const scalar: Tensor = { name: 'INPUT0', datatype: 'FP32', shape: [], data: Float32Array.from([7]) };
    const out = await b.infer([scalar], ['OUTPUT0']);
    expect(Array.from(out[0]?.data as Float32Array)).toEqual([14]);
    expect(b.platform).toBe('fake');
    expect(b.executionProvider).toBe('cuda');
    expect(b.inputs).toBe(instance.inputs);
    expect(b.signatures).toBeUndefined();
  });

  it('rejects queued requests on unload', async () => {
    const { instance, calls } = fakeInstance();
    const { b } = batching(instance, { delayUs: 60_000_000, inFlight: 1 });
    void b.infer([fp32([[0]])], ['OUTPUT0']);
    const queued = b.infer([fp32([[1]])], ['OUTPUT0']);
    await tick();
    await b.unload();
    await expect(queued).rejects.toMatchObject({ message: expect.stringMatching(/unloading/) });
    // Only the first, which found the model idle, reached it.
    expect(calls).toHaveLength(1);
  });
});
