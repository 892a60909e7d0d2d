/**
 * The router image as the InferenceGraph controller runs it: KServe's router contract (the
 * entrypoint is the router, `--graph-json JSON` the arguments), read-only root filesystem,
 * UID 1000, no capabilities. In front of kserve-ts servers on the host (host network), a
 * graph answers over REST and V2 gRPC, and SIGTERM drains.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/free-port.js';
import { grpcClient } from '../grpc/client.js';
import { type Predictors, startPredictors } from '../router/predictors.js';
import { send } from '../router/send.js';
import { runDetached, docker, imageName, removeContainer, requireImage } from './docker.js';

const IMAGE = imageName('router');
const NAME = `kserve-ts-router-test-${process.pid}`;
let predictors: Predictors;
let httpPort: number;
let grpcPort: number;

beforeAll(async () => {
  await requireImage(IMAGE);
  predictors = await startPredictors();
  [httpPort, grpcPort] = [await freePort(), await freePort()];
  const graph = {
    nodes: {
      root: {
        routerType: 'Ensemble',
        steps: [
          { name: 'twice', serviceUrl: `${predictors.url}/v2/models/double/infer` },
          { name: 'thrice', serviceUrl: `${predictors.url}/v2/models/triple/infer` },
        ],
      },
    },
  };
  await removeContainer(NAME);
  const r = await docker([
    ...runDetached(NAME),
    IMAGE,
    '--graph-json',
    JSON.stringify(graph),
    '--http_host',
    '127.0.0.1',
    `--http_port=${httpPort}`,
    `--grpc_port=${grpcPort}`,
    '--step_grpc_targets',
    JSON.stringify({ [predictors.url]: predictors.grpc }),
  ]);
  expect(r.code, r.stderr).toBe(0);
  for (let i = 0; ; i++) {
    const ok = await fetch(`http://127.0.0.1:${httpPort}/readyz`).then(
      (x) => x.status === 200,
      () => false,
    );
    if (ok) break;
    if (i > 600) throw new Error(`router container not ready: ${(await docker(['logs', NAME])).stderr}`);
    await new Promise((res) => setTimeout(res, 100));
  }
});

afterAll(async () => {
  await removeContainer(NAME);
  await predictors?.close();
});

describe('kserve-ts-router image', () => {
  it('runs as UID 1000 with the router as its entrypoint', async () => {
    expect((await docker(['inspect', '-f', '{{.Config.User}}', NAME])).stdout.trim()).toBe('1000:1000');
    expect(JSON.parse((await docker(['image', 'inspect', '-f', '{{json .Config.Entrypoint}}', IMAGE])).stdout)).toEqual(['node', '/app/dist/bin/router.js']);
  });

  it('routes a graph over REST and over V2 gRPC', async () => {
    const body = JSON.stringify({ id: 'i1', inputs: [{ name: 'x', shape: [1, 2], datatype: 'FP32', data: [1, 2] }] });
    const rest = await send(`http://127.0.0.1:${httpPort}`, { body });
    expect(rest.status, rest.body.toString()).toBe(200);
    const merged = JSON.parse(rest.body.toString()) as Record<string, { outputs: { data: number[] }[] }>;
    expect([merged['twice']!.outputs[0]!.data, merged['thrice']!.outputs[0]!.data]).toEqual([
      [2, 4],
      [3, 6],
    ]);
    const client = grpcClient(`127.0.0.1:${grpcPort}`);
    try {
      const res = await client.infer({ model_name: 'g', inputs: [{ name: 'x', datatype: 'FP32', shape: [1, 2], contents: { fp32_contents: [1, 2] } }] });
      expect(res.outputs.map((o) => o.name)).toEqual(['twice/y', 'thrice/y']);
    } finally {
      client.close();
    }
  });

  it('SIGTERM: not ready at once, exits after its drain', async () => {
    expect((await docker(['kill', '--signal', 'TERM', NAME])).code).toBe(0);
    let status = 0;
    for (let i = 0; i < 100 && status !== 503; i++) {
      status = await fetch(`http://127.0.0.1:${httpPort}/readyz`).then(
        (x) => x.status,
        () => 0,
      );
      if (status !== 503) await new Promise((res) => setTimeout(res, 50));
    }
    expect(status).toBe(503);
  });
});
