/**
 * config.pbtxt `instance_group` on a real server with real onnxruntime sessions: N instances
 * of a version, each a session on its own worker thread, and each request going to the first
 * free one. Concurrency is shown by construction: the test holds one instance's call at the
 * gate (test/helpers/model-gate.ts, which sits where each instance sits) and a second request
 * completes meanwhile, which it can only do on another instance; with count: 1 the second
 * request reaches the held instance as well. No outcome depends on how long anything takes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, json, metricValue, post } from './helpers/http.js';
import { ModelGate } from './helpers/model-gate.js';
import { type TestServer, makeRepository, startServer } from './helpers/server.js';

const gate = new ModelGate();
let served: TestServer;
let cleanup: () => void;

beforeAll(async () => {
  const repo = makeRepository({
    one: { file: 'mlp_64x8', config: 'instance_group [ { count: 1, kind: KIND_CPU } ]\n' },
    two: { file: 'mlp_64x8', config: 'instance_group [ { count: 2, kind: KIND_CPU } ]\n' },
    batched: { file: 'mlp_64x8', config: 'max_batch_size: 8\ndynamic_batching { }\ninstance_group [ { count: 2 } ]\n' },
    // No CUDA here: the KIND_GPU instance falls back to the cpu along cuda,cpu with a warning, as a model listing them would.
    gpu: { file: 'mlp_64x8', config: 'instance_group [ { count: 1, kind: KIND_GPU, gpus: [ 1 ] } ]\n' },
  });
  cleanup = repo.cleanup;
  served = await startServer(['--model_repository', repo.dir], { backends: gate.backends() });
});

afterAll(async () => {
  gate.release();
  await served?.close();
  cleanup?.();
});

const row = (k: number): number[] => Array.from({ length: 64 }, (_, i) => Math.sin(k + i));

async function infer(model: string, k: number): Promise<number[]> {
  const r = await post(`${served.url}/v2/models/${model}/infer`, { inputs: [{ name: 'input', datatype: 'FP32', shape: [1, 64], data: row(k) }] });
  expect(r.status).toBe(200);
  return (json(r) as { outputs: Array<{ data: number[] }> }).outputs[0]?.data ?? [];
}

describe('instance_group', () => {
  it('count: 2 runs a second request while the first is held on instance 0', async () => {
    gate.hold(0);
    try {
      const first = infer('two', 1);
      const held = await gate.untilHeld(1);
      expect(held.map((c) => [c.model, c.instance])).toEqual([['two', 0]]);
      // Instance 0 is busy with the first request: the second can only answer from instance 1.
      const second = await infer('two', 2);
      expect(second).toHaveLength(8);
      expect(gate.held).toHaveLength(1);
      gate.release();
      expect(await first).toHaveLength(8);
    } finally {
      gate.release();
    }
  });

  it('count: 1 sends the second request to the same, held instance', async () => {
    gate.hold(0);
    try {
      const both = [infer('one', 1), infer('one', 2)];
      const held = await gate.untilHeld(2);
      expect(held.map((c) => [c.model, c.instance])).toEqual([
        ['one', 0],
        ['one', 0],
      ]);
      gate.release();
      await Promise.all(both);
    } finally {
      gate.release();
    }
  });

  it('answers exactly what count: 1 answers, whichever instance runs the request', async () => {
    for (let k = 0; k < 6; k++) expect(await infer('two', k)).toEqual(await infer('one', k));
    const pair = await Promise.all([infer('two', 7), infer('two', 8)]);
    expect(pair).toEqual([await infer('one', 7), await infer('one', 8)]);
  });

  it('with dynamic batching, a request that finds one instance idle runs there at once while the other is held', async () => {
    // Computed first: the gate holds instance 0 of every model, 'one's too.
    const expected = [await infer('one', 1), await infer('one', 2)];
    gate.hold(0);
    try {
      const first = infer('batched', 1);
      await gate.untilHeld(1);
      expect(await infer('batched', 2)).toEqual(expected[1]);
      expect(gate.held.map((c) => [c.model, c.instance])).toEqual([['batched', 0]]);
      gate.release();
      expect(await first).toEqual(expected[0]);
    } finally {
      gate.release();
    }
  });

  it("reports the groups each version was loaded with in Triton's model configuration (GET /v2/models/{m}/config)", async () => {
    const groups = async (model: string): Promise<unknown> => (json(await get(`${served.url}/v2/models/${model}/config`)) as { instance_group: unknown }).instance_group;
    expect(await groups('two')).toEqual([{ name: 'two_0', kind: 'KIND_CPU', count: 2 }]);
    // KIND_AUTO reports where the instances went: the cpu here.
    expect(await groups('batched')).toEqual([{ name: 'batched_0', kind: 'KIND_CPU', count: 2 }]);
    // No CUDA here: the KIND_GPU instance runs on the cpu, and says so.
    expect(await groups('gpu')).toEqual([{ name: 'gpu_0', kind: 'KIND_CPU', count: 1 }]);
  });

  it('keeps one kserve_model_info series per version, with where its instances run', async () => {
    const text = (await get(`${served.url}/metrics`)).text;
    const info = text.split('\n').filter((l) => l.startsWith('kserve_model_info{'));
    for (const model of ['one', 'two', 'batched', 'gpu']) {
      expect(info.filter((l) => l.includes(`model_name="${model}"`))).toHaveLength(1);
      expect(metricValue(text, 'kserve_model_info', { model_name: model, model_version: '', platform: 'onnxruntime_onnx', execution_provider: 'cpu' })).toBe(1);
    }
  });
});
