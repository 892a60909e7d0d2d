/**
 * A load or an inference for a name the repository does not hold (#27 item 7): the name
 * stays unknown throughout (no LOADING entry while the source is asked), so an inference
 * overlapping the load is a 404 / NOT_FOUND, not a 503, and no metric series is created for
 * it, over REST and gRPC. A name the source does hold still loads as before.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { grpcClient, grpcError } from '../../test/grpc/client.js';
import { post } from '../../test/helpers/http.js';
import { type TestServer, makeRepository, startServer } from '../../test/helpers/server.js';

let t: TestServer;
let repo: ReturnType<typeof makeRepository>;
beforeAll(async () => {
  repo = makeRepository({ m: 'scale2_fp32' });
  t = await startServer(['--model_repository', repo.dir], { grpc: true });
});
afterAll(async () => {
  await t.close();
  repo.cleanup();
});

it('while a load of an unknown name is under way, the name is unknown: the lookup every inference makes is ModelNotFound (404), not ModelNotReady', async () => {
  const loading = t.server.repository.load('ghost');
  // The same turn of the event loop: the source has not answered yet.
  expect(t.server.dataplane.knows('ghost')).toBe(false);
  expect(t.server.repository.state('ghost')).toBeUndefined();
  expect(() => t.server.repository.acquire('ghost')).toThrow(expect.objectContaining({ kind: 'ModelNotFound' }));
  expect(() => t.server.dataplane.modelReady('ghost')).toThrow(expect.objectContaining({ kind: 'ModelNotFound' }));
  await expect(loading).rejects.toMatchObject({ kind: 'ModelNotFound' });
  expect(t.server.repository.names()).toEqual(['m']);
});

it('a name the source holds is known from its load on and loads', async () => {
  await t.server.repository.unload('m');
  expect(t.server.dataplane.knows('m')).toBe(false);
  const loading = t.server.repository.load('m');
  const again = t.server.repository.load('m'); // one question to the source for both
  await Promise.all([loading, again]);
  expect(t.server.repository.state('m')?.state).toBe('READY');
});

it('loads and inferences of 300 unknown names over REST and gRPC: all 404 / NOT_FOUND, no metric series', async () => {
  const c = grpcClient(t.grpcAddress as string);
  const body = { inputs: [{ name: 'INPUT0', shape: [1, 2], datatype: 'FP32', data: [1, 2] }] };
  try {
    const outcomes: string[] = [];
    for (let i = 0; i < 300; i += 20) {
      const round = await Promise.all(
        Array.from({ length: 20 }, (_, j) => `ghost${i + j}`).flatMap((n) => [
          post(`${t.url}/v2/repository/models/${n}/load`).then((r) => `load ${r.status}`),
          post(`${t.url}/v2/models/${n}/infer`, body).then((r) => `rest ${r.status}`),
          grpcError(c.infer({ model_name: n, inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: ['1', '2'], contents: { fp32_contents: [1, 2] } }] })).then(
            (e) => `grpc ${e.code}`,
          ),
          grpcError(c.call('RepositoryModelLoad', { model_name: n })).then((e) => `grpc-load ${e.code}`),
        ]),
      );
      outcomes.push(...round);
    }
    expect(new Set(outcomes)).toEqual(new Set(['load 404', 'rest 404', 'grpc 5', 'grpc-load 5']));
    const labels = new Set([...(await t.server.metrics.render()).matchAll(/model_name="([^"]*)"/g)].map((m) => m[1]));
    expect([...labels].filter((l) => l !== 'm')).toEqual([]);
    expect(t.server.repository.names()).toEqual(['m']);
  } finally {
    c.close();
  }
});
