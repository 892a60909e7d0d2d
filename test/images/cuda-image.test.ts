/**
 * kserve-ts-server-cuda on a machine without an NVIDIA driver (what CI has): the CUDA
 * provider and every CUDA library it needs are in the image and resolve, so the only thing
 * missing is the driver the node's NVIDIA runtime would mount. With a stub driver mounted
 * where that runtime would put the real one (test/helpers/cuda-stub-driver.ts), onnxruntime
 * loads the provider past symbol resolution and CUDA fails inside it, as far as a CPU
 * machine gets: `cuda,cpu` must serve on the CPU and say why, `cuda` alone must refuse to
 * start the model, and nothing may crash. Without any driver the reason names libcuda.so.1.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/free-port.js';
import { json, post } from '../helpers/http.js';
import { IRIS_DIR } from '../helpers/server.js';
import { STUB_FAILURE, type StubDriver, buildStubDriver } from '../helpers/cuda-stub-driver.js';
import { HARDENED, docker, imageName, removeContainer, requireImage, runDetached, volumeCopy } from './docker.js';

const IMAGE = imageName('server-cuda');
const NO_DRIVER = 'libcuda.so.1: cannot open shared object file: No such file or directory';
const PROVIDER = '/app/node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime_providers_cuda.so';
const LOADER = '/lib64/ld-linux-x86-64.so.2';
const names: string[] = [];
let modelDir: string;
let stub: StubDriver;

beforeAll(async () => {
  await requireImage(IMAGE);
  modelDir = volumeCopy(path.join(IRIS_DIR, 'model.onnx'));
  stub = buildStubDriver();
});

afterAll(async () => {
  for (const n of names) await removeContainer(n);
  rmSync(modelDir, { recursive: true, force: true });
  stub?.cleanup();
});

/** The stub driver mounted read-only and first on the image's LD_LIBRARY_PATH. */
const withStub = (): string[] => ['-v', `${stub.dir}:/opt/cuda-stub:ro`, '-e', 'LD_LIBRARY_PATH=/opt/cuda-stub:/opt/kserve-ts/cuda/lib'];

async function run(providers: string, extra: readonly string[] = []): Promise<{ name: string; base: string }> {
  const port = await freePort();
  const grpcPort = await freePort();
  const name = `kserve-ts-cuda-test-${process.pid}-${names.length}`;
  names.push(name);
  const r = await docker([
    ...runDetached(name),
    '-v',
    `${modelDir}:/mnt/models:ro`,
    ...extra,
    IMAGE,
    '--model_name=iris',
    '--model_dir=/mnt/models',
    `--http_port=${port}`,
    `--grpc_port=${grpcPort}`,
    `--execution_providers=${providers}`,
  ]);
  expect(r.code, r.stderr).toBe(0);
  return { name, base: `http://127.0.0.1:${port}` };
}

/**
 * The model answers ready and its `onnx session ready` line is in the container's log (it is
 * written before the model can answer; docker's log may show it a little after).
 */
async function waitReady(name: string, base: string): Promise<void> {
  const deadline = Date.now() + 90_000;
  let ready = false;
  while (!ready && Date.now() < deadline) {
    ready = await fetch(`${base}/v2/models/iris/ready`).then(
      (x) => x.status === 200,
      () => false,
    );
    if (ready) ready = (await logs(name)).includes('"msg":"onnx session ready"');
    if (!ready) await new Promise((res) => setTimeout(res, 200));
  }
  expect(ready, await logs(name)).toBe(true);
}

async function inferIris(base: string): Promise<void> {
  const out = await post(`${base}/v2/models/iris/infer`, {
    inputs: [{ name: 'input', shape: [1, 4], datatype: 'FP32', data: [6.8, 2.8, 4.8, 1.4] }],
    outputs: [{ name: 'label' }],
  });
  expect(out.status, out.text).toBe(200);
  expect((json(out) as { outputs: Array<{ data: unknown[] }> }).outputs[0]?.data).toEqual([1]);
}

/** Waits for the container to stop; its status and exit code ("exited 1"; a crash shows 139). */
async function waitExited(name: string): Promise<string> {
  const deadline = Date.now() + 90_000;
  let state = '';
  while (Date.now() < deadline) {
    state = (await docker(['inspect', '-f', '{{.State.Status}} {{.State.ExitCode}}', name])).stdout.trim();
    if (state.startsWith('exited')) break;
    await new Promise((res) => setTimeout(res, 200));
  }
  return state;
}

async function logs(name: string): Promise<string> {
  const r = await docker(['logs', name]);
  return r.stdout + r.stderr;
}

describe('kserve-ts-server-cuda without a GPU', () => {
  // The dynamic loader lists the provider's dependencies in the image (nothing of the
  // provider runs; the server never loads it by hand either, only onnxruntime does).
  it('every library in the image resolves; only the driver is missing, and the stub stands in for it', async () => {
    const bare = await docker(['run', '--rm', '--network', 'none', ...HARDENED, '--entrypoint', LOADER, IMAGE, '--list', PROVIDER]);
    expect(bare.stderr).toContain(`error while loading shared libraries: ${NO_DRIVER}`);
    const stubbed = await docker(['run', '--rm', '--network', 'none', ...HARDENED, ...withStub(), '--entrypoint', LOADER, IMAGE, '--list', PROVIDER]);
    expect(stubbed.code, stubbed.stderr).toBe(0);
    expect(stubbed.stdout).not.toContain('not found');
    for (const lib of ['libcuda.so.1 => /opt/cuda-stub/', 'libcudart.so.13 => /opt/kserve-ts/cuda/lib/', 'libcublasLt.so.13 => /opt/kserve-ts/cuda/lib/']) {
      expect(stubbed.stdout).toContain(lib);
    }
  }, 120_000);

  it('stub driver: --execution_providers cuda,cpu serves on the cpu with one warning naming the CUDA failure', async () => {
    const { name, base } = await run('cuda,cpu', withStub());
    await waitReady(name, base);
    await inferIris(base);
    const text = await logs(name);
    const warnings = text.split('\n').filter((l) => l.includes('CUDA execution provider unavailable'));
    expect(warnings, text).toHaveLength(1);
    expect(warnings[0]).toMatch(STUB_FAILURE);
    expect(text).not.toContain('Provider_GetHost');
    const metrics = await fetch(`${base}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(/^kserve_model_info\{model_name="iris",model_version="",platform="onnxruntime_onnx",execution_provider="cpu"\} 1$/m);
    expect((await docker(['inspect', '-f', '{{.State.Status}}', name])).stdout.trim()).toBe('running');
  }, 120_000);

  it('stub driver: --execution_providers cuda alone does not start the model, says why, and exits without crashing', async () => {
    const { name } = await run('cuda', withStub());
    expect(await waitExited(name)).toBe('exited 1');
    const text = await logs(name);
    const line = text.split('\n').find((l) => l.includes('execution providers [cuda]: the CUDA execution provider cannot be loaded: '));
    expect(line, text).toMatch(STUB_FAILURE);
    expect(text).not.toContain('Provider_GetHost');
  }, 120_000);

  it('no driver: --execution_providers cuda,cpu serves on the cpu and the warning names libcuda.so.1', async () => {
    const { name, base } = await run('cuda,cpu');
    await waitReady(name, base);
    await inferIris(base);
    const text = await logs(name);
    const warnings = text.split('\n').filter((l) => l.includes('CUDA execution provider unavailable'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(NO_DRIVER);
  }, 120_000);

  it('no driver: --execution_providers cuda alone does not start the model and says why', async () => {
    const { name } = await run('cuda');
    expect(await waitExited(name)).toBe('exited 1');
    expect(await logs(name)).toMatch(/execution providers \[cuda\]: the CUDA execution provider cannot be loaded: .*libcuda\.so\.1: cannot open shared object file/);
  }, 120_000);
});
