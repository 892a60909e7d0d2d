/**
 * TensorFlow in the images: a SavedModel on kserve-ts-server-tensorflow (native libtensorflow)
 * and the same model converted to TF.js on the plain kserve-ts-server (WASM). Answers are
 * checked against test/fixtures/tf/expected.json, which TensorFlow itself computed when the
 * fixtures were generated (test/fixtures/generate_tf_models.py).
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TF_FIXTURES, expected } from '../../server/backends/tensorflow/tf-fixtures.test-helper.js';
import { freePort } from '../helpers/free-port.js';
import { json, post } from '../helpers/http.js';
import { runDetached, docker, imageName, removeContainer, requireImage, volumeCopy } from './docker.js';

const names: string[] = [];
const dirs: string[] = [];

afterAll(async () => {
  for (const n of names) await removeContainer(n);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A copy of a fixture readable by the image's UID 1000, as a pod's volume would be. */
function modelCopy(fixture: string): string {
  const dir = volumeCopy(path.join(TF_FIXTURES, fixture));
  dirs.push(dir);
  return dir;
}

async function serve(image: string, fixture: string): Promise<string> {
  await requireImage(image);
  const port = await freePort();
  const grpcPort = await freePort();
  const name = `kserve-ts-tf-test-${process.pid}-${names.length}`;
  names.push(name);
  const r = await docker([
    ...runDetached(name),
    '-v',
    `${modelCopy(fixture)}:/mnt/models:ro`,
    image,
    '--model_name=dense',
    '--model_dir=/mnt/models',
    `--http_port=${port}`,
    `--grpc_port=${grpcPort}`,
  ]);
  expect(r.code, r.stderr).toBe(0);
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    const ready = await fetch(`${base}/v2/health/ready`).then(
      (x) => x.status === 200,
      () => false,
    );
    if (ready) return base;
    await new Promise((res) => setTimeout(res, 200));
  }
  const logs = await docker(['logs', name]);
  throw new Error(`${image} not ready: ${logs.stdout}${logs.stderr}`);
}

async function expectProbabilities(base: string): Promise<void> {
  const r = await post(`${base}/v2/models/dense/infer`, { inputs: [{ name: 'x', datatype: 'FP32', shape: [2, 4], data: expected.x.flat() }] });
  expect(r.status, r.text).toBe(200);
  const out = (json(r) as { outputs: Array<{ name: string; shape: number[]; data: number[] }> }).outputs.find((o) => o.name === 'probabilities');
  expect(out?.shape).toEqual([2, 3]);
  const want = expected.probabilities.flat();
  out!.data.forEach((v, i) => expect(v).toBeCloseTo(want[i]!, 5));
}

describe('TensorFlow models in the images', () => {
  it('kserve-ts-server-tensorflow serves a SavedModel on native libtensorflow', async () => {
    await expectProbabilities(await serve(imageName('server-tensorflow'), 'dense_classifier'));
  });

  it('kserve-ts-server serves a TF.js graph model on WASM', async () => {
    await expectProbabilities(await serve(imageName('server'), 'dense_classifier_tfjs'));
  });
});
