/**
 * InstancePool against fake instances whose calls are held and released by hand: which
 * instance a call reaches is decided by construction (which ones are busy), never by timing.
 */
import { describe, expect, it } from 'vitest';
import { KServeError } from '../../protocols/errors.js';
import type { Tensor } from '../../protocols/tensor.js';
import type { ModelInstance } from '../backend/backend.js';
import { InstancePool } from './instance-pool.js';

interface Held {
  readonly instance: number;
  readonly value: number;
  release(): void;
}

/** Instances that answer their own index and the request's value, each call held until released. */
function fakes(n: number, providers: Array<string | undefined> = []) {
  const held: Held[] = [];
  const failures: Array<(err: Error) => void> = [];
  const unloaded: number[] = [];
  const instances = Array.from({ length: n }, (_, index): ModelInstance => ({
    platform: 'fake',
    ...(providers[index] === undefined ? {} : { executionProvider: providers[index] }),
    inputs: [{ name: 'X', datatype: 'FP32', shape: [1] }],
    outputs: [{ name: 'Y', datatype: 'FP32', shape: [2] }],
    infer: async (inputs: readonly Tensor[]) => {
      const value = (inputs[0]?.data as Float32Array)[0] ?? 0;
      await new Promise<void>((release) => held.push({ instance: index, value, release }));
      return [{ name: 'Y', datatype: 'FP32', shape: [2], data: Float32Array.from([index, value]) }];
    },
    unload: async () => {
      unloaded.push(index);
    },
    onFailure: (l) => {
      failures[index] = l;
    },
  }));
  return { instances, held, failures, unloaded };
}

const x = (v: number): Tensor[] => [{ name: 'X', datatype: 'FP32', shape: [1], data: Float32Array.from([v]) }];
const answer = async (p: Promise<Tensor[]>): Promise<number[]> => Array.from((await p)[0]?.data as Float32Array);
const tick = () => new Promise<void>((r) => setImmediate(r));

describe('InstancePool', () => {
  it('sends each call to the first free instance, so a second call runs while the first is held', async () => {
    const { instances, held } = fakes(2);
    const pool = new InstancePool(instances, 'm');
    const first = pool.infer(x(1), ['Y']);
    await tick();
    const second = pool.infer(x(2), ['Y']);
    await tick();
    expect(held.map((h) => [h.instance, h.value])).toEqual([
      [0, 1],
      [1, 2],
    ]);
    held[1]?.release();
    // The second answers from instance 1 while the first is still held on instance 0.
    expect(await answer(second)).toEqual([1, 2]);
    held[0]?.release();
    expect(await answer(first)).toEqual([0, 1]);
  });

  it('queues calls while every instance is busy, in order, and hands each to the instance that frees', async () => {
    const { instances, held } = fakes(2);
    const pool = new InstancePool(instances, 'm');
    const calls = [1, 2, 3, 4].map((v) => pool.infer(x(v), ['Y']));
    await tick();
    expect(held.map((h) => h.value)).toEqual([1, 2]);
    held[1]?.release(); // instance 1 frees first: the oldest waiting call (3) goes there
    await tick();
    expect(held.slice(2).map((h) => [h.instance, h.value])).toEqual([[1, 3]]);
    held[0]?.release();
    await tick();
    expect(held.slice(3).map((h) => [h.instance, h.value])).toEqual([[0, 4]]);
    held[2]?.release();
    held[3]?.release();
    expect(await Promise.all(calls.map(answer))).toEqual([
      [0, 1],
      [1, 2],
      [1, 3],
      [0, 4],
    ]);
  });

  it('frees an instance whose call fails, even synchronously', async () => {
    const { instances, held } = fakes(1);
    const throwing: ModelInstance = {
      ...(instances[0] as ModelInstance),
      infer: () => {
        throw new KServeError('InvalidInput', 'bad');
      },
    };
    const pool = new InstancePool([throwing, instances[0] as ModelInstance], 'm');
    await expect(pool.infer(x(1), ['Y'])).rejects.toThrow('bad');
    await expect(pool.infer(x(2), ['Y'])).rejects.toThrow('bad');
    expect(held).toEqual([]);
  });

  it('answers a waiting call Cancelled once its client goes, and never runs it', async () => {
    const { instances, held } = fakes(2);
    const pool = new InstancePool(instances, 'm');
    const signal = { aborted: false };
    const running = [pool.infer(x(1), ['Y']), pool.infer(x(2), ['Y'])];
    const waiting = pool.infer(x(3), ['Y'], undefined, { id: undefined, parameters: undefined, headers: {}, responseHeaders: {}, signal });
    signal.aborted = true;
    await expect(waiting).rejects.toMatchObject({ kind: 'Cancelled' });
    for (const h of held) h.release();
    expect(await Promise.all(running.map(answer))).toEqual([
      [0, 1],
      [1, 2],
    ]);
    await tick();
    expect(held.map((h) => h.value)).toEqual([1, 2]);
  });

  it('describes the version by its first instance and lists the distinct providers its instances run on', () => {
    expect(new InstancePool(fakes(3, ['cuda', 'cpu', 'cuda']).instances, 'm').executionProvider).toBe('cuda,cpu');
    expect(new InstancePool(fakes(2, ['cpu', 'cpu']).instances, 'm').executionProvider).toBe('cpu');
    expect(new InstancePool(fakes(2).instances, 'm').executionProvider).toBeUndefined();
    const pool = new InstancePool(fakes(2).instances, 'm');
    expect([pool.platform, pool.inputs, pool.outputs, pool.size]).toEqual([
      'fake',
      [{ name: 'X', datatype: 'FP32', shape: [1] }],
      [{ name: 'Y', datatype: 'FP32', shape: [2] }],
      2,
    ]);
  });

  it('reports the first instance that breaks, once, and unloads every instance, refusing waiting calls', async () => {
    const { instances, failures, unloaded } = fakes(2);
    const pool = new InstancePool(instances, 'm');
    const reported: string[] = [];
    pool.onFailure((e) => reported.push(e.message));
    failures[1]?.(new Error('worker died'));
    failures[0]?.(new Error('worker died too'));
    expect(reported).toEqual(['worker died']);
    void pool.infer(x(1), ['Y']);
    void pool.infer(x(2), ['Y']);
    const waiting = pool.infer(x(3), ['Y']);
    await pool.unload();
    await expect(waiting).rejects.toMatchObject({ kind: 'ModelNotReady' });
    expect(unloaded.sort()).toEqual([0, 1]);
  });
});
