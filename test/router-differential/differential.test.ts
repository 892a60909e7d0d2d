/**
 * kserve-ts's router against KServe's own (cmd/router of kserve v0.20.0, built from the Go
 * module proxy and cached by scripts/graph-oracles.sh): both routers get the same graph
 * JSON in front of the same kserve-ts servers on loopback, every request of
 * test/router/graph-cases.ts goes to both, and status, Content-Type and body must be
 * equal byte for byte. That covers every router type, both dependencies, conditions met
 * and not, failing steps, a step that cannot be reached and a step held past the client
 * timeout (held by a gate until both routers answered, so no machine speed decides it).
 * Then the deliberate differences (docs/inference-graph.md), each shown on both.
 *
 * Run by test/router-differential/run.sh in a network namespace of its own: KServe's
 * router binds :8080 on every address.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureKServeRouter } from '../helpers/graph-oracles.js';
import { GRAPH_CASES, type GraphCase, type GraphRequest, type Steps } from '../router/graph-cases.js';
import { startRouter } from '../router/our-router.js';
import { type Predictors, startPredictors, stepsOf } from '../router/predictors.js';
import { type Answer, send } from '../router/send.js';
import { assertPrivatePort, startKServeRouter } from './kserve-router.js';

let bin: string;
let predictors: Predictors;
let steps: Steps;

beforeAll(async () => {
  await assertPrivatePort();
  bin = await ensureKServeRouter();
  predictors = await startPredictors();
  steps = await stepsOf(predictors);
}, 1_200_000);

afterAll(async () => {
  await predictors?.close();
});

const view = (a: Answer) => ({ status: a.status, contentType: a.contentType, body: a.body.toString('utf8') });

/** One request to one router; a held case opens its gate only once that router answered. */
async function ask(url: string, req: GraphRequest, held: boolean): Promise<Answer> {
  const gate = held ? predictors.newGate() : undefined;
  try {
    return await send(url, req);
  } finally {
    gate?.release();
  }
}

async function both(
  c: Pick<GraphCase, 'graph' | 'propagate'>,
  run: (kserve: string, ours: string) => Promise<void>,
  oursFlags: readonly string[] = ['--readiness_follows_steps=false'],
): Promise<void> {
  const graph = c.graph(steps);
  const env = c.propagate === undefined ? {} : { PROPAGATE_HEADERS: c.propagate };
  const kserve = await startKServeRouter(bin, graph, env);
  const ours = await startRouter(graph, { env, flags: oursFlags });
  try {
    await run(kserve.url, ours.url);
  } finally {
    await Promise.all([kserve.stop(), ours.close()]);
  }
}

describe("kserve-ts's router and KServe's give the same answers", () => {
  for (const c of GRAPH_CASES) {
    it(c.name, async () => {
      await both(c, async (kserveUrl, oursUrl) => {
        for (const [req] of c.requests) {
          const theirs = view(await ask(kserveUrl, req, c.held === true));
          const ours = view(await ask(oursUrl, req, c.held === true));
          expect(ours).toEqual(theirs);
        }
      });
    });
  }

  it('GET /readyz on a serving router', async () => {
    await both(
      { graph: (s) => ({ nodes: { root: { routerType: 'Sequence', steps: [{ serviceUrl: s.v1('double') }] } } }) },
      async (k, o) => {
        const theirs = view(await send(k, { method: 'GET', path: '/readyz', body: '' }));
        expect(view(await send(o, { method: 'GET', path: '/readyz', body: '' }))).toEqual(theirs);
        expect(theirs.status).toBe(200);
      },
      [],
    );
  });
});

describe('deliberate differences, shown on both routers', () => {
  const header = Buffer.from(
    JSON.stringify({
      id: 'b1',
      inputs: [{ name: 'x', shape: [1, 2], datatype: 'FP32', parameters: { binary_data_size: 8 } }],
      outputs: [{ name: 'y', parameters: { binary_data: true } }],
    }),
  );
  const binary = Buffer.concat([header, Buffer.from(new Float32Array([1, 2]).buffer)]);

  it('a V2 binary-extension body through a Sequence: KServe drops its header length, kserve-ts passes it on', async () => {
    await both({ graph: (s) => ({ nodes: { root: { routerType: 'Sequence', steps: [{ serviceUrl: s.v2('double') }] } } }) }, async (k, o) => {
      const req = { body: binary, headers: { 'inference-header-content-length': String(header.length), 'content-type': 'application/octet-stream' } };
      const theirs = await send(k, req);
      const ours = await send(o, req);
      expect(theirs.status).toBe(400);
      expect(ours.status).toBe(200);
      const length = Number(ours.headers['inference-header-content-length']);
      expect(JSON.parse(ours.body.subarray(0, length).toString('utf8'))).toMatchObject({ id: 'b1', outputs: [{ name: 'y', datatype: 'FP32', shape: [1, 2] }] });
      const raw = ours.body.subarray(length);
      expect([...new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.length))]).toEqual([2, 4]);
    });
  });

  it('x-request-id reaches the steps without PROPAGATE_HEADERS only on kserve-ts', async () => {
    await both({ graph: (s) => ({ nodes: { root: { routerType: 'Sequence', steps: [{ serviceUrl: s.v1('headers') }] } } }) }, async (k, o) => {
      const req = { body: '{"instances":[[1,2]]}', headers: { 'x-request-id': 'r1' } };
      expect((await send(k, req)).body.toString()).toBe('{"predictions":["x-tag=","x-other=","x-request-id="]}');
      expect((await send(o, req)).body.toString()).toBe('{"predictions":["x-tag=","x-other=","x-request-id=r1"]}');
    });
  });

  it('readiness: KServe is ready with a step down, kserve-ts is not', async () => {
    await both(
      { graph: (s) => ({ nodes: { root: { routerType: 'Sequence', steps: [{ serviceUrl: s.refused }] } } }) },
      async (k, o) => {
        expect((await send(k, { method: 'GET', path: '/readyz', body: '' })).status).toBe(200);
        const ours = await send(o, { method: 'GET', path: '/readyz', body: '' });
        expect(ours.status).toBe(503);
        expect(ours.body.toString()).toContain('steps not ready');
      },
      [],
    );
  });
});
