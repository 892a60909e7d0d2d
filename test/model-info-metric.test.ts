/**
 * kserve_model_info: one series per loaded model version, naming the platform and the
 * execution provider it runs on (a model behind the dynamic batcher too), and none for
 * models that are not loaded.
 */
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tfRepository } from '../server/backends/tensorflow/tf-fixtures.test-helper.js';
import { type TestServer, fixture, startServer } from './helpers/server.js';

let s: TestServer;
let repo: ReturnType<typeof tfRepository>;

beforeAll(async () => {
  repo = tfRepository({ tfjs: 'dense_classifier_tfjs' });
  for (const v of ['1', '2']) {
    mkdirSync(path.join(repo.dir, 'mlp', v), { recursive: true });
    cpSync(fixture('mlp_64x8'), path.join(repo.dir, 'mlp', v, 'model.onnx'));
  }
  mkdirSync(path.join(repo.dir, 'mlp_batched'));
  cpSync(fixture('mlp_64x8'), path.join(repo.dir, 'mlp_batched', 'model.onnx'));
  writeFileSync(path.join(repo.dir, 'mlp_batched', 'config.pbtxt'), 'max_batch_size: 8\ndynamic_batching { }\n');
  s = await startServer(['--model_repository', repo.dir]);
});

afterAll(async () => {
  await s?.close();
  repo?.cleanup();
});

const infoLines = async (): Promise<string[]> =>
  (await fetch(`${s.url}/metrics`).then((r) => r.text()))
    .split('\n')
    .filter((l) => l.startsWith('kserve_model_info{'))
    .sort();

describe('kserve_model_info', () => {
  it('names every loaded version, its platform and where it runs', async () => {
    expect(await infoLines()).toEqual([
      'kserve_model_info{model_name="mlp",model_version="1",platform="onnxruntime_onnx",execution_provider="cpu"} 1',
      'kserve_model_info{model_name="mlp",model_version="2",platform="onnxruntime_onnx",execution_provider="cpu"} 1',
      'kserve_model_info{model_name="mlp_batched",model_version="",platform="onnxruntime_onnx",execution_provider="cpu"} 1',
      'kserve_model_info{model_name="tfjs",model_version="",platform="tensorflow_tfjs",execution_provider="wasm"} 1',
    ]);
  });

  it('drops the series of a model once it is unloaded', async () => {
    const r = await fetch(`${s.url}/v2/repository/models/tfjs/unload`, { method: 'POST' });
    expect(r.status).toBe(200);
    const lines = await infoLines();
    expect(lines.some((l) => l.includes('model_name="tfjs"'))).toBe(false);
    expect(lines).toHaveLength(3);
  });
});
