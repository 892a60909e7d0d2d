/**
 * The server image as a pod runs it: model mounted read-only at /mnt/models, KServe's
 * runtime arguments appended to the entrypoint, read-only root filesystem, UID 1000.
 * Answers are compared with the same server running on the host from dist/.
 */
import { rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/free-port.js';
import { waitFor } from '../helpers/wait-for.js';
import { json, post } from '../helpers/http.js';
import { IRIS_DIR, type TestServer, startServer } from '../helpers/server.js';
import { grpcClient } from '../grpc/client.js';
import { runDetached, docker, imageName, removeContainer, requireImage, volumeCopy } from './docker.js';

const IMAGE = imageName('server');
const NAME = `kserve-ts-server-test-${process.pid}`;
/**
 * After SIGTERM the server reports not ready and keeps serving this long before its listeners
 * close. The drain test's readiness watcher must see the 503 and its client loops stop within
 * it: explicit and long, so only a hang fails there (the default, 2 s, is for endpoints).
 */
const SHUTDOWN_DELAY_S = 20;
const INSTANCES = {
  instances: [
    [6.8, 2.8, 4.8, 1.4],
    [5.1, 3.5, 1.4, 0.2],
  ],
};
const V2 = {
  inputs: [{ name: 'input', shape: [2, 4], datatype: 'FP32', data: [6.8, 2.8, 4.8, 1.4, 5.1, 3.5, 1.4, 0.2] }],
  outputs: [{ name: 'label' }],
};

let modelDir: string;
let httpPort: number;
let grpcPort: number;
let base: string;
let local: TestServer;

async function waitReady(url: string, deadlineMs: number): Promise<number> {
  const start = Date.now();
  while (Date.now() - start < deadlineMs) {
    try {
      if ((await fetch(url)).status === 200) return Date.now() - start;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${url} not ready in ${deadlineMs} ms`);
}

/** Server processes in a running container (docker top: the host's view of its process tree). */
async function serverProcesses(container: string): Promise<number> {
  // docker top needs the pid column; Node 24 names its main thread (comm) MainThread, so the
  // command line is what tells a server process.
  const top = await docker(['top', container, '-o', 'pid,args']);
  expect(top.code, top.stderr).toBe(0);
  return top.stdout.split('\n').filter((l) => l.includes('/app/dist/bin/kserve-ts.js serve')).length;
}

/** The image as a pod runs it, iris mounted read-only; `dockerArgs` go before the image, `serverArgs` after KServe's. */
async function runContainer(name: string, port: number, dockerArgs: readonly string[], serverArgs: readonly string[]): Promise<number> {
  const r = await docker([
    ...runDetached(name),
    ...dockerArgs,
    '-v',
    `${modelDir}:/mnt/models:ro`,
    IMAGE,
    '--model_name=iris',
    '--model_dir=/mnt/models',
    `--http_port=${port}`,
    ...serverArgs,
  ]);
  expect(r.code, r.stderr).toBe(0);
  return waitReady(`http://127.0.0.1:${port}/v2/health/ready`, 60_000);
}

const startContainer = () => runContainer(NAME, httpPort, [], [`--grpc_port=${grpcPort}`, `--shutdown_delay_seconds=${SHUTDOWN_DELAY_S}`]);

beforeAll(async () => {
  await requireImage(IMAGE);
  modelDir = volumeCopy(path.join(IRIS_DIR, 'model.onnx'));
  httpPort = await freePort();
  grpcPort = await freePort();
  base = `http://127.0.0.1:${httpPort}`;
  local = await startServer(['--model_name', 'iris', '--model_dir', modelDir], { grpc: true });
  await removeContainer(NAME);
  const readyMs = await startContainer();
  console.log(`server image: docker run to ready in ${readyMs} ms`);
});

afterAll(async () => {
  await removeContainer(NAME);
  await local?.close();
  if (modelDir) rmSync(modelDir, { recursive: true, force: true });
});

describe('kserve-ts-server image', () => {
  it('runs as UID 1000 with the OCI labels', async () => {
    const user = await docker(['inspect', '-f', '{{.Config.User}}', NAME]);
    expect(user.stdout.trim()).toBe('1000:1000');
    const labels = await docker(['image', 'inspect', '-f', '{{json .Config.Labels}}', IMAGE]);
    const l = JSON.parse(labels.stdout) as Record<string, string>;
    expect(l['org.opencontainers.image.version']).toBe(IMAGE.split(':')[1]);
    expect(l['org.opencontainers.image.source']).toMatch(/^https:\/\//);
  });

  it('answers V1 predict as the host server does', async () => {
    const fromImage = await post(`${base}/v1/models/iris:predict`, INSTANCES);
    const fromHost = await post(`${local.url}/v1/models/iris:predict`, INSTANCES);
    expect(fromImage.status).toBe(200);
    expect(json(fromImage)).toEqual(json(fromHost));
  });

  it('answers V2 REST infer as the host server does', async () => {
    const fromImage = await post(`${base}/v2/models/iris/infer`, V2);
    const fromHost = await post(`${local.url}/v2/models/iris/infer`, V2);
    expect(fromImage.status).toBe(200);
    const a = json(fromImage) as { outputs: unknown[] };
    const b = json(fromHost) as { outputs: unknown[] };
    expect(a.outputs).toEqual(b.outputs);
  });

  it('answers V2 gRPC infer as the host server does', async () => {
    const request = {
      model_name: 'iris',
      inputs: [{ name: 'input', datatype: 'FP32', shape: [2, 4], contents: { fp32_contents: V2.inputs[0]!.data } }],
      outputs: [{ name: 'label' }],
    };
    const image = grpcClient(`127.0.0.1:${grpcPort}`);
    const host = grpcClient(local.grpcAddress!);
    try {
      const a = await image.infer(request);
      const b = await host.infer(request);
      expect(a.outputs).toEqual(b.outputs);
      expect(a.outputs.length).toBeGreaterThan(0);
    } finally {
      image.close();
      host.close();
    }
  });

  it('runs one server process per CPU the container may use (KSERVE_TS_WORKERS=auto), and one under a 1-CPU limit', async () => {
    // The container sees this machine's CPUs: a primary and one worker each where there are two or more.
    const cpus = availableParallelism();
    expect(await serverProcesses(NAME)).toBe(cpus > 1 ? cpus + 1 : 1);
    const one = `${NAME}-1cpu`;
    await removeContainer(one);
    try {
      await runContainer(one, await freePort(), ['--cpus=1'], ['--enable_grpc=false']);
      expect(await serverProcesses(one)).toBe(1);
    } finally {
      await removeContainer(one);
    }
  });

  it('drains on docker stop: readiness false first, no accepted request fails, exit code 0', async () => {
    let ok = 0;
    const failures: string[] = [];
    // Set once readiness answers 503, as the endpoints controller would drop the pod; clients
    // then send nothing new. Every request sent before that must succeed.
    let notReady = false;
    // Bounds the loops as a hang would be caught, never as a result.
    const deadline = Date.now() + 120_000;
    const watcher = (async () => {
      while (!notReady && Date.now() < deadline) {
        try {
          if ((await fetch(`${base}/v2/health/ready`)).status === 503) notReady = true;
        } catch (err) {
          failures.push(`readiness probe: ${String(err)}`);
          return;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    // Four bounded client loops: each ends at the deadline, after 2,000 requests, or once
    // readiness is false.
    const answered = [0, 0, 0, 0];
    const loop = async (n: number): Promise<void> => {
      for (let i = 0; i < 2_000 && Date.now() < deadline && !notReady; i++, answered[n]!++) {
        try {
          const r = await fetch(`${base}/v1/models/iris:predict`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(INSTANCES),
          });
          await r.arrayBuffer();
          if (r.status === 200) ok++;
          else failures.push(`HTTP ${r.status}`);
        } catch (err) {
          failures.push((err as { cause?: { code?: string } }).cause?.code ?? String(err));
        }
      }
    };
    const loops = [loop(0), loop(1), loop(2), loop(3)];
    // Stop once every loop has had an answer: requests are in flight when the signal lands.
    await waitFor(() => answered.every((n) => n > 0), { timeoutMs: 60_000, intervalMs: 20, description: 'an answer in every client loop' });
    // The delay, then the drain (the grace period): docker's timeout only catches a hang.
    const stop = await docker(['stop', '-t', String(SHUTDOWN_DELAY_S + 60), NAME], (SHUTDOWN_DELAY_S + 90) * 1000);
    expect(stop.code, stop.stderr).toBe(0);
    await Promise.all([...loops, watcher]);
    const exit = await docker(['inspect', '-f', '{{.State.ExitCode}}', NAME]);
    const logs = await docker(['logs', NAME]);
    expect(failures, logs.stdout + logs.stderr).toEqual([]);
    expect(notReady).toBe(true);
    expect(ok).toBeGreaterThan(0);
    expect(exit.stdout.trim()).toBe('0');
  }, 300_000);
});
