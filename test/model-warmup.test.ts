/**
 * config.pbtxt `model_warmup` on a real server with real onnxruntime sessions: the samples
 * run on every instance before the version is READY, with zero, random or file data, and a
 * failing sample fails the load with its reason. "Before READY" is shown by construction:
 * the warm-up calls are held at the gate (test/helpers/model-gate.ts, where each instance
 * sits) while the test reads the model's state, which is LOADING until they are released.
 */
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HeldCall, ModelGate } from './helpers/model-gate.js';
import { expectError, get, json, post } from './helpers/http.js';
import { type TestServer, fixture, makeRepository, startServer } from './helpers/server.js';

const gate = new ModelGate();
let served: TestServer;
let repo: { dir: string; cleanup(): void };

const sample = (name: string, input: string, extra = '') => `model_warmup { name: "${name}" ${extra} inputs { key: "INPUT0" value: { ${input} } } }\n`;

beforeAll(async () => {
  repo = makeRepository({
    warm: {
      file: 'identity_fp32',
      config: 'max_batch_size: 4\ninstance_group { count: 2 }\n' + sample('zeros', 'data_type: TYPE_FP32 dims: [ 16 ] zero_data: true', 'batch_size: 4 count: 3'),
    },
    wrongtype: { file: 'identity_fp32', config: sample('wrong', 'data_type: TYPE_FP64 dims: [ 2, 2 ] zero_data: true') },
    nofile: { file: 'identity_fp32', config: sample('missing', 'data_type: TYPE_FP32 dims: [ 1, 2 ] input_data_file: "nope.bin"') },
  });
  served = await startServer(['--model_repository', repo.dir], { backends: gate.backends() });
});

afterAll(async () => {
  gate.release();
  await served?.close();
  repo?.cleanup();
});

async function index(): Promise<Map<string, { state: string; reason?: string }>> {
  const entries = json(await post(`${served.url}/v2/repository/index`, {})) as Array<{ name: string; state: string; reason?: string }>;
  return new Map(entries.map((e) => [e.name, e]));
}

const values = (c: HeldCall) => Array.from(c.inputs[0]?.data as Float32Array);

describe('model_warmup', () => {
  it('runs on every instance while the model is LOADING, with file data then random data; READY once done', async () => {
    // A versioned model added after start: its data file in the model's warmup/ folder, as Triton reads it.
    const dir = path.join(repo.dir, 'gated');
    mkdirSync(path.join(dir, '1'), { recursive: true });
    mkdirSync(path.join(dir, 'warmup'));
    cpSync(fixture('identity_fp32'), path.join(dir, '1', 'model.onnx'));
    writeFileSync(path.join(dir, 'warmup', 'row.bin'), Buffer.from(Float32Array.from([0.5, -1, 2]).buffer));
    writeFileSync(
      path.join(dir, 'config.pbtxt'),
      'max_batch_size: 2\ninstance_group { count: 2 kind: KIND_CPU }\n' +
        sample('file', 'data_type: TYPE_FP32 dims: [ 3 ] input_data_file: "row.bin"', 'batch_size: 2') +
        sample('random', 'data_type: TYPE_FP32 dims: [ 5 ] random_data: true'),
    );
    gate.hold();
    try {
      const loading = post(`${served.url}/v2/repository/models/gated/load`);
      const file = [...(await gate.untilHeld(2))];
      expect(file.map((c) => c.instance).sort()).toEqual([0, 1]);
      for (const c of file) {
        expect(c.inputs[0]?.shape).toEqual([2, 3]);
        expect(values(c)).toEqual([0.5, -1, 2, 0.5, -1, 2]);
      }
      expect((await index()).get('gated')?.state).toBe('LOADING');
      expectError(await get(`${served.url}/v2/models/gated/ready`), 503);
      // The held calls continue only after hold() again: the next sample's calls are held too.
      gate.release();
      gate.hold();
      const random = [...(await gate.untilHeld(2))];
      expect(random.map((c) => c.instance).sort()).toEqual([0, 1]);
      for (const c of random) {
        expect(c.inputs[0]?.shape).toEqual([1, 5]);
        expect(values(c).every((v) => v >= 0 && v < 1)).toBe(true);
      }
      expect((await index()).get('gated')?.state).toBe('LOADING');
      gate.release();
      expect((await loading).status).toBe(200);
      expect((await get(`${served.url}/v2/models/gated/ready`)).status).toBe(200);
    } finally {
      gate.release();
    }
  });

  it('serves after warming up, and the warm-up counts in no request or batch metric', async () => {
    const r = await post(`${served.url}/v2/models/warm/infer`, { inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 2], data: [1, 2] }] });
    expect(r.status).toBe(200);
    const metrics = (await get(`${served.url}/metrics`)).text.split('\n').filter((l) => l.includes('model_name="warm"'));
    // One request, though 2 instances × 3 runs of the warm-up ran before it.
    expect(metrics.filter((l) => l.startsWith('kserve_inference_requests_total'))).toEqual([
      'kserve_inference_requests_total{model_name="warm",protocol="v2",status_code="200"} 1',
    ]);
    expect(metrics.filter((l) => l.startsWith('request_predict_seconds_count'))).toEqual(['request_predict_seconds_count{model_name="warm"} 1']);
  });

  it.each([
    ['wrongtype', "Failed to load: model_warmup 'wrong' failed: input 'INPUT0': datatype FP64 does not match the model's FP32"],
    ['nofile', /Failed to load: model_warmup 'missing' failed: input 'INPUT0': input_data_file 'nope\.bin' is not in \S+\/nofile\/warmup$/],
  ])('%s: a failing warm-up fails the load with its reason, in the index and the load answer', async (model, reason) => {
    const entry = (await index()).get(model);
    expect(entry?.state).toBe('UNAVAILABLE');
    expect(entry?.reason).toMatch(reason);
    expectError(await post(`${served.url}/v2/repository/models/${model}/load`), 503, reason);
    expectError(await get(`${served.url}/v2/models/${model}/ready`), 503);
  });
});
