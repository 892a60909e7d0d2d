/**
 * The server side of a modelcar pod: --model_dir=/mnt/models is a symlink the `modelcar`
 * sidecar made, `/proc/<its pid>/root/models`, and the server must follow it as it follows
 * any folder (KServe's runtimes get nothing else). Here a real shell runs the sidecar's
 * command shape (`ln -sf /proc/$$/root/... <link> && sleep`), so the link goes through procfs
 * exactly as in the pod; the model folder sits under this machine's root instead of an
 * image's, since the test shares the mount namespace. A real `kserve-ts serve` (built CLI)
 * serves through the link; when the sidecar is gone the link leads nowhere.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { restPort, runCli } from '../helpers/process.js';
import { IRIS_DIR } from '../helpers/server.js';

const LOOPBACK = ['--http_host', '127.0.0.1', '--http_port', '0', '--enable_grpc', 'false'];

describe('a model folder reached through a modelcar link', () => {
  const cleanups: Array<() => void> = [];
  afterAll(() => cleanups.reverse().forEach((c) => c()));

  it('is served through /proc/<pid>/root, as the modelcar sidecar links it', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'kserve-ts-modelcar-'));
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    // The model image's /models, and the pod's emptyDir mounted at /mnt.
    const imageModels = path.join(root, 'image', 'models');
    mkdirSync(imageModels, { recursive: true });
    cpSync(path.join(IRIS_DIR, 'model.onnx'), path.join(imageModels, 'model.onnx'));
    const mnt = path.join(root, 'mnt');
    mkdirSync(mnt);
    const link = path.join(mnt, 'models');

    const sidecar: ChildProcess = spawn('sh', ['-c', `ln -sf /proc/$$/root${imageModels} ${link} && exec sleep 300`], { stdio: 'ignore' });
    cleanups.push(() => sidecar.kill('SIGKILL'));
    await expect.poll(() => existsSync(link), { timeout: 10_000 }).toBe(true);
    expect(readlinkSync(link)).toBe(`/proc/${sidecar.pid}/root${imageModels}`);

    const server = runCli(['serve', '--model_name', 'iris', '--model_dir', link, ...LOOPBACK]);
    cleanups.push(() => server.child.kill('SIGKILL'));
    await server.waitForLog((l) => l['msg'] === 'server started');
    const port = await restPort(server);
    const res = await fetch(`http://127.0.0.1:${port}/v1/models/iris:predict`, { method: 'POST', body: JSON.stringify({ instances: [[5.1, 3.5, 1.4, 0.2]] }) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ predictions: [0] });
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);

    // The link lives only as long as the sidecar: why KServe keeps it sleeping.
    sidecar.kill('SIGKILL');
    await new Promise((resolve) => sidecar.once('exit', resolve));
    expect(existsSync(link)).toBe(false);
  });
});
