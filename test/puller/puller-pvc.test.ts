/**
 * pvc:// models under the puller: the claim is mounted (here a folder standing for
 * `--pvc_mount_root/<claim>`), and the model's folder is copied into `--model_dir/<name>` as a
 * local path, as the storage-initializer copies a mounted path. A URI that would leave the
 * claim is refused and reported.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, json, post } from '../helpers/http.js';
import { fixture } from '../helpers/server.js';
import { waitFor } from '../helpers/wait-for.js';
import { ConfigMapDir, type PullerServer, startPullerServer } from './helpers.js';

describe('the model puller with pvc:// models', () => {
  const cm = new ConfigMapDir();
  const mounts = mkdtempSync(path.join(tmpdir(), 'puller-pvc-'));
  let t: PullerServer;

  beforeAll(async () => {
    mkdirSync(path.join(mounts, 'claim-a/models/scale/1'), { recursive: true });
    copyFileSync(fixture('scale2_fp32'), path.join(mounts, 'claim-a/models/scale/1/model.onnx'));
    cm.write([
      { modelName: 'scale', modelSpec: { storageUri: 'pvc://claim-a/models/scale', framework: 'onnx' } },
      { modelName: 'escape', modelSpec: { storageUri: 'pvc://claim-a/../../etc', framework: 'onnx' } },
    ]);
    t = await startPullerServer(cm.file, ['--pvc_mount_root', mounts]);
  });
  afterAll(async () => {
    await t?.close();
    cm.cleanup();
    rmSync(mounts, { recursive: true, force: true });
  });

  it('copies the claim’s folder into place and serves it; a URI leaving the claim is reported', async () => {
    await waitFor(async () => (await get(`${t.url}/v2/health/ready`)).status === 200, { description: 'ready' });
    const r = await post(`${t.url}/v2/models/scale/infer`, { inputs: [{ name: 'INPUT0', shape: [1, 2], datatype: 'FP32', data: [[1, 2]] }] });
    expect(r.status, r.text).toBe(200);
    expect(json(r)).toMatchObject({ model_version: '1', outputs: [{ data: [2, 4] }] });
    const ix = json(await post(`${t.url}/v2/repository/index`)) as Array<{ name: string; state: string; reason?: string }>;
    expect(ix.find((e) => e.name === 'escape')).toEqual({
      name: 'escape',
      state: 'UNAVAILABLE',
      reason: "Failed to download pvc://claim-a/../../etc: not a valid pvc:// URI (a '..' segment)",
    });
  });
});
