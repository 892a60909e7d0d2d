/**
 * `kserve-ts serve --model_config_file` as the container runs it (the built CLI, a child
 * process): a server whose file lists no model yet starts and is ready with none (KServe's
 * multi-model server is; no NoModelReady exit), takes a model when the ConfigMap changes,
 * lists the puller's flags in --help, and stops cleanly on SIGTERM.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, json, post } from '../helpers/http.js';
import { CLI, type CliProcess, restPort, runCli } from '../helpers/process.js';
import { fixture } from '../helpers/server.js';
import { waitFor } from '../helpers/wait-for.js';
import { ConfigMapDir, FileServer } from './helpers.js';

describe('kserve-ts serve --model_config_file', () => {
  const cm = new ConfigMapDir();
  const store = new FileServer();
  const modelDir = mkdtempSync(path.join(tmpdir(), 'puller-cli-'));
  let p: CliProcess;
  let url: string;

  beforeAll(async () => {
    await store.start();
    store.files.set('/iris/model.onnx', readFileSync(fixture('identity_fp32')));
    cm.writeRaw('[]');
    p = runCli([
      'serve',
      '--http_port',
      '0',
      '--http_host',
      '127.0.0.1',
      '--enable_grpc',
      'false',
      '--model_dir',
      modelDir,
      '--model_config_file',
      cm.file,
      '--shutdown_delay_seconds',
      '0',
    ]);
    url = `http://127.0.0.1:${await restPort(p)}`;
  });
  afterAll(async () => {
    if (p.child.exitCode === null) p.child.kill('SIGKILL');
    await store.close();
    cm.cleanup();
    rmSync(modelDir, { recursive: true, force: true });
  });

  it('is ready with no model, then serves the one the ConfigMap adds', async () => {
    await waitFor(async () => (await get(`${url}/v2/health/ready`)).status === 200, { description: 'ready with no model' });
    expect(json(await post(`${url}/v2/repository/index`))).toEqual([]);
    cm.write([{ modelName: 'iris', modelSpec: { storageUri: `${store.url}/iris/model.onnx`, framework: 'onnx', memory: '1Mi' } }]);
    const r = await waitFor(() => post(`${url}/v2/models/iris/infer`, { inputs: [{ name: 'INPUT0', shape: [1, 2], datatype: 'FP32', data: [[3, 4]] }] }), {
      until: (x) => x.status === 200,
      description: 'iris served',
    });
    expect(json(r)).toMatchObject({ model_name: 'iris', outputs: [{ data: [3, 4] }] });
    expect(p.child.exitCode).toBeNull();
  });

  it('stops cleanly on SIGTERM', async () => {
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
  });

  it('--help lists the puller flags', () => {
    const help = execFileSync(process.execPath, [CLI, 'serve', '--help'], { encoding: 'utf8' });
    for (const flag of ['--model_config_file', '--model_memory_limit', '--storage_cache_dir', '--pvc_mount_root']) expect(help).toContain(flag);
  });
});
