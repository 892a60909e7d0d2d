/**
 * kserve-ts-server-cuda on a machine without an NVIDIA driver (what CI has): the CUDA
 * provider and every CUDA library it needs are in the image and resolve, so the only thing
 * missing is the driver the node's NVIDIA runtime would mount. `cuda,cpu` must serve on the
 * CPU and say exactly that; `cuda` alone must refuse to start the model.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/free-port.js';
import { json, post } from '../helpers/http.js';
import { IRIS_DIR } from '../helpers/server.js';
import { HARDENED, docker, imageName, removeContainer, requireImage, volumeCopy } from './docker.js';

const IMAGE = imageName('server-cuda');
const NO_DRIVER = 'libcuda.so.1: cannot open shared object file: No such file or directory';
const names: string[] = [];
let modelDir: string;

beforeAll(async () => {
  await requireImage(IMAGE);
  modelDir = volumeCopy(path.join(IRIS_DIR, 'model.onnx'));
});

afterAll(async () => {
  for (const n of names) await removeContainer(n);
  rmSync(modelDir, { recursive: true, force: true });
});

async function run(providers: string): Promise<{ name: string; base: string }> {
  const port = await freePort();
  const grpcPort = await freePort();
  const name = `kserve-ts-cuda-test-${process.pid}-${names.length}`;
  names.push(name);
  const r = await docker([
    'run', '-d', '--name', name, '--network', 'host', ...HARDENED, '-v', `${modelDir}:/mnt/models:ro`, IMAGE,
    '--model_name=iris', '--model_dir=/mnt/models', `--http_port=${port}`, `--grpc_port=${grpcPort}`,
    `--execution_providers=${providers}`,
  ]);
  expect(r.code, r.stderr).toBe(0);
  return { name, base: `http://127.0.0.1:${port}` };
}

async function logs(name: string): Promise<string> {
  const r = await docker(['logs', name]);
  return r.stdout + r.stderr;
}

describe('kserve-ts-server-cuda without a GPU', () => {
  it('every library in the image resolves except the driver', async () => {
    const r = await docker([
      'run', '--rm', '--network', 'none', ...HARDENED, '--entrypoint', 'node', IMAGE, '-e',
      // dlopen through the provider library itself: its dependencies resolve from LD_LIBRARY_PATH.
      `const p='/app/node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime_providers_cuda.so';` +
      `try { process.dlopen({exports:{}}, p); console.log('loaded'); } catch (e) { console.log(String(e.message)); }`,
    ]);
    expect(r.code, r.stderr).toBe(0);
    // Loading the provider reaches the driver stub last: no CUDA library is missing.
    expect(r.stdout).toContain('libcuda.so.1');
    expect(r.stdout).not.toMatch(/lib(cudart|cublas|cublasLt|cudnn|curand|cufft)\.so/);
  }, 120_000);

  it('--execution_providers cuda,cpu serves on the cpu and logs why once', async () => {
    const { name, base } = await run('cuda,cpu');
    const deadline = Date.now() + 90_000;
    let ready = false;
    while (!ready && Date.now() < deadline) {
      ready = await fetch(`${base}/v2/models/iris/ready`).then((x) => x.status === 200, () => false);
      if (!ready) await new Promise((res) => setTimeout(res, 200));
    }
    expect(ready, await logs(name)).toBe(true);
    const out = await post(`${base}/v2/models/iris/infer`, {
      inputs: [{ name: 'input', shape: [1, 4], datatype: 'FP32', data: [6.8, 2.8, 4.8, 1.4] }],
      outputs: [{ name: 'label' }],
    });
    expect(out.status, out.text).toBe(200);
    expect((json(out) as { outputs: Array<{ data: unknown[] }> }).outputs[0]?.data).toEqual([1]);
    const text = await logs(name);
    const warnings = text.split('\n').filter((l) => l.includes('CUDA execution provider unavailable'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`CUDA execution provider unavailable (${NO_DRIVER}); the model runs on cpu`);
  }, 120_000);

  it('--execution_providers cuda alone does not start the model and says why', async () => {
    const { name } = await run('cuda');
    const deadline = Date.now() + 90_000;
    let state = '';
    while (Date.now() < deadline) {
      state = (await docker(['inspect', '-f', '{{.State.Status}} {{.State.ExitCode}}', name])).stdout.trim();
      if (state.startsWith('exited')) break;
      await new Promise((res) => setTimeout(res, 200));
    }
    expect(state).toBe('exited 1');
    expect(await logs(name)).toContain(`execution providers [cuda]: the CUDA execution provider cannot be loaded: ${NO_DRIVER}`);
  }, 120_000);
});
