/**
 * What kserve-ts's router does beyond KServe's (docs/inference-graph.md): V2 binary tensor
 * bodies through a graph with their header length, a V2 gRPC front routing ModelInfer to
 * the steps over gRPC with raw contents kept raw, /metrics per step, readiness that
 * follows the steps, a bounded body, the trace headers always propagated, and the write
 * timeout. Real kserve-ts servers on loopback as the steps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelInferRequestMessage, ModelInferResponseMessage } from '../../protocols/grpc/messages.js';
import { grpc, grpcClient, grpcError } from '../grpc/client.js';
import { freePort } from '../helpers/free-port.js';
import { GRPC_ROUTE_A, GRPC_ROUTE_B, HAS_INPUT_X } from './conditions.js';
import { startRouter } from './our-router.js';
import { type Predictors, startPredictors } from './predictors.js';
import { send } from './send.js';

let predictors: Predictors;
let refused: string;
const v1 = (m: string) => `${predictors.url}/v1/models/${m}:predict`;
const v2 = (m: string) => `${predictors.url}/v2/models/${m}/infer`;
/** The steps' REST origin mapped to their gRPC listener. */
const grpcTargets = () => ['--step_grpc_targets', JSON.stringify({ [predictors.url]: predictors.grpc })];

beforeAll(async () => {
  predictors = await startPredictors();
  refused = `http://127.0.0.1:${await freePort()}/v2/models/gone/infer`;
});

afterAll(async () => {
  await predictors?.close();
});

function floats(buf: Uint8Array): number[] {
  return [...new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength))];
}

describe('V2 binary tensor bodies', () => {
  const header = Buffer.from(
    JSON.stringify({
      id: 'b1',
      inputs: [{ name: 'x', shape: [1, 2], datatype: 'FP32', parameters: { binary_data_size: 8 } }],
      outputs: [{ name: 'y', parameters: { binary_data: true } }],
    }),
  );
  const body = Buffer.concat([header, Buffer.from(new Float32Array([1, 2]).buffer)]);
  const req = { body, headers: { 'inference-header-content-length': String(header.length), 'content-type': 'application/octet-stream' } };

  async function binaryAnswer(graph: unknown): Promise<{ header: Record<string, unknown>; data: number[]; contentType: string | undefined }> {
    const router = await startRouter(graph, { flags: ['--readiness_follows_steps=false'] });
    try {
      const got = await send(router.url, req);
      expect(got.status).toBe(200);
      const length = Number(got.headers['inference-header-content-length']);
      return {
        header: JSON.parse(got.body.subarray(0, length).toString('utf8')) as Record<string, unknown>,
        data: floats(got.body.subarray(length)),
        contentType: got.contentType,
      };
    } finally {
      await router.close();
    }
  }

  it('pass through a Sequence of $request steps: the last answer comes back binary', async () => {
    const a = await binaryAnswer({ nodes: { root: { routerType: 'Sequence', steps: [{ serviceUrl: v2('double') }, { serviceUrl: v2('triple') }] } } });
    expect(a.header).toMatchObject({ id: 'b1', model_name: 'triple', outputs: [{ name: 'y', datatype: 'FP32', shape: [1, 2], parameters: { binary_data_size: 8 } }] });
    expect(a.data).toEqual([3, 6]);
    expect(a.contentType).toBe('application/octet-stream');
  });

  it('pass through a Splitter', async () => {
    const a = await binaryAnswer({
      nodes: {
        root: {
          routerType: 'Splitter',
          steps: [
            { serviceUrl: v2('double'), weight: 100 },
            { serviceUrl: v2('triple'), weight: 0 },
          ],
        },
      },
    });
    expect(a.data).toEqual([2, 4]);
  });

  it('a Switch reads its conditions on the JSON header', async () => {
    const a = await binaryAnswer({ nodes: { root: { routerType: 'Switch', steps: [{ serviceUrl: v2('triple'), condition: HAS_INPUT_X }] } } });
    expect(a.data).toEqual([3, 6]);
  });
});

describe('V2 gRPC front', () => {
  const rawRequest = (): ModelInferRequestMessage => ({
    model_name: 'graph',
    id: 'g1',
    inputs: [{ name: 'x', datatype: 'FP32', shape: [1, 2] }],
    raw_input_contents: [Buffer.from(new Float32Array([1, 2]).buffer)],
  });

  async function withGrpcRouter(graph: unknown, run: (c: ReturnType<typeof grpcClient>) => Promise<void>, flags: readonly string[] = []): Promise<void> {
    const router = await startRouter(graph, { flags: ['--readiness_follows_steps=false', ...grpcTargets(), ...flags] });
    const client = grpcClient(router.grpc);
    try {
      await run(client);
    } finally {
      client.close();
      await router.close();
    }
  }

  it('ModelInfer through a Sequence: $response chains the steps, raw contents stay raw', async () => {
    const graph = { nodes: { root: { routerType: 'Sequence', steps: [{ serviceUrl: v2('double') }, { serviceUrl: v2('triple_any'), data: '$response' }] } } };
    await withGrpcRouter(graph, async (c) => {
      const res = await c.infer(rawRequest());
      expect(res.model_name).toBe('triple_any');
      expect(res.outputs.map((o) => [o.name, o.datatype, o.shape.map(Number)])).toEqual([['y', 'FP32', [1, 2]]]);
      expect(res.raw_output_contents).toHaveLength(1);
      expect(floats(res.raw_output_contents[0]!)).toEqual([6, 12]);
    });
  });

  it('typed contents stay typed', async () => {
    const graph = { nodes: { root: { routerType: 'Sequence', steps: [{ serviceUrl: v2('double') }] } } };
    await withGrpcRouter(graph, async (c) => {
      const res = await c.infer({ model_name: 'graph', inputs: [{ name: 'x', datatype: 'FP32', shape: [1, 2], contents: { fp32_contents: [1, 2] } }] });
      expect(res.raw_output_contents).toHaveLength(0);
      expect([...(res.outputs[0]!.contents!.fp32_contents as number[])]).toEqual([2, 4]);
    });
  });

  it('a Switch reads the request as V2 JSON (parameters included)', async () => {
    const graph = {
      nodes: {
        root: {
          routerType: 'Switch',
          steps: [
            { serviceUrl: v2('double'), condition: GRPC_ROUTE_A },
            { serviceUrl: v2('triple'), condition: GRPC_ROUTE_B },
          ],
        },
      },
    };
    await withGrpcRouter(graph, async (c) => {
      const b = await c.infer({ ...rawRequest(), parameters: { route: { string_param: 'b' } } });
      expect(floats(b.raw_output_contents[0]!)).toEqual([3, 6]);
      const none = await grpcError(c.infer({ ...rawRequest(), parameters: { route: { string_param: 'z' } } }));
      expect([none.code, none.details]).toEqual([grpc.status.NOT_FOUND, 'None of the routes matched with the switch condition']);
    });
  });

  it("an Ensemble answers every step's outputs as {step}/{output}, a Soft failure as a parameter", async () => {
    const graph = {
      nodes: {
        root: {
          routerType: 'Ensemble',
          steps: [
            { name: 'twice', serviceUrl: v2('double') },
            { name: 'thrice', serviceUrl: v2('triple') },
            { name: 'broken', serviceUrl: v2('fail') },
          ],
        },
      },
    };
    await withGrpcRouter(graph, async (c) => {
      const res: ModelInferResponseMessage = await c.infer(rawRequest());
      expect(res.outputs.map((o) => o.name)).toEqual(['twice/y', 'thrice/y']);
      expect(res.raw_output_contents.map((r) => floats(r))).toEqual([
        [2, 4],
        [3, 6],
      ]);
      expect(res.parameters['broken/error']?.string_param).toBe('INTERNAL: fail always fails');
    });
  });

  it('a Hard step that fails answers with its gRPC status; a step past its timeout with DEADLINE_EXCEEDED', async () => {
    const graph = { nodes: { root: { routerType: 'Sequence', steps: [{ serviceUrl: v2('reject'), dependency: 'Hard' }, { serviceUrl: v2('double') }] } } };
    await withGrpcRouter(graph, async (c) => {
      const err = await grpcError(c.infer(rawRequest()));
      expect([err.code, err.details]).toEqual([grpc.status.INVALID_ARGUMENT, 'reject rejects every request']);
    });
    const held = { nodes: { root: { routerType: 'Sequence', steps: [{ serviceUrl: v2('held') }] } }, routerTimeouts: { serviceClient: 1 } };
    await withGrpcRouter(held, async (c) => {
      const gate = predictors.newGate();
      const err = await grpcError(c.infer(rawRequest()));
      gate.release();
      expect(err.code).toBe(grpc.status.DEADLINE_EXCEEDED);
    });
  });

  it('ServerLive, and ServerReady following the steps', async () => {
    const down = { nodes: { root: { routerType: 'Sequence', steps: [{ serviceUrl: refused }] } } };
    const router = await startRouter(down, { flags: grpcTargets() });
    const c = grpcClient(router.grpc);
    try {
      expect(await c.call('ServerLive')).toEqual({ live: true });
      expect(await c.call('ServerReady')).toEqual({ ready: false });
    } finally {
      c.close();
      await router.close();
    }
  });
});

describe('operations', () => {
  it('/metrics: requests, and per step its latency and failures', async () => {
    const graph = {
      nodes: {
        root: {
          routerType: 'Ensemble',
          steps: [
            { name: 'twice', serviceUrl: v1('double') },
            { name: 'broken', serviceUrl: v1('fail') },
            { name: 'gone', serviceUrl: refused },
          ],
        },
      },
    };
    const router = await startRouter(graph, { flags: ['--readiness_follows_steps=false'] });
    try {
      await send(router.url, { body: '{"instances":[[1,2]]}' });
      const text = (await send(router.url, { method: 'GET', path: '/metrics', body: '' })).body.toString();
      expect(text).toMatch(/router_step_duration_seconds_count\{node="root",step="twice",protocol="rest"\} 1/);
      expect(text).toMatch(/router_step_failures_total\{node="root",step="broken",protocol="rest",reason="status"\} 1/);
      expect(text).toMatch(/router_step_failures_total\{node="root",step="gone",protocol="rest",reason="error"\} 1/);
      expect(text).toMatch(/router_requests_total\{protocol="rest",status_code="500"\} 1/);
      expect(text).not.toMatch(/step="twice",protocol="rest",reason=/);
    } finally {
      await router.close();
    }
  });

  it('readiness follows the steps: 503 naming what is not ready, 200 once all are', async () => {
    const down = await startRouter({ nodes: { root: { routerType: 'Sequence', steps: [{ serviceUrl: v2('double') }, { serviceUrl: refused }] } } });
    const up = await startRouter({ nodes: { root: { routerType: 'Sequence', steps: [{ serviceUrl: v2('double') }, { serviceUrl: v1('triple') }] } } });
    try {
      const no = await send(down.url, { method: 'GET', path: '/readyz', body: '' });
      expect([no.status, no.body.toString()]).toEqual([503, `steps not ready: ${refused.replace('/infer', '/ready')}\n`]);
      expect((await send(down.url, { method: 'GET', path: '/v2/health/ready', body: '' })).status).toBe(503);
      expect((await send(up.url, { method: 'GET', path: '/readyz', body: '' })).status).toBe(200);
      expect((await send(up.url, { method: 'GET', path: '/v2/health/ready', body: '' })).body.toString()).toBe('{"ready":true}');
      expect((await send(down.url, { method: 'GET', path: '/v2/health/live', body: '' })).status).toBe(200);
    } finally {
      await Promise.all([down.close(), up.close()]);
    }
  });

  it('a body over --max_body_bytes is refused with 413 before any step is called', async () => {
    const router = await startRouter(
      { nodes: { root: { routerType: 'Sequence', steps: [{ serviceUrl: v1('double') }] } } },
      { flags: ['--max_body_bytes', '16', '--readiness_follows_steps=false'] },
    );
    try {
      const got = await send(router.url, { body: '{"instances":[[1,2,3,4,5,6,7,8]]}' });
      expect(got.status).toBe(413);
      expect(JSON.parse(got.body.toString())).toEqual({ error: 'Failed to process request', cause: 'request body is larger than 16 bytes' });
      expect((await send(router.url, { method: 'GET', path: '/metrics', body: '' })).body.toString()).not.toMatch(/router_step_duration_seconds_count/);
    } finally {
      await router.close();
    }
  });

  it('the request id goes to every step without PROPAGATE_HEADERS', async () => {
    const router = await startRouter({ nodes: { root: { routerType: 'Sequence', steps: [{ serviceUrl: v1('headers') }] } } }, { flags: ['--readiness_follows_steps=false'] });
    try {
      const got = await send(router.url, { body: '{"instances":[[1]]}', headers: { 'x-request-id': 'r-7', 'x-tag': 'not-propagated' } });
      expect(got.body.toString()).toBe('{"predictions":["x-tag=","x-other=","x-request-id=r-7"]}');
    } finally {
      await router.close();
    }
  });

  it('routerTimeouts.serverWrite: a graph still running then loses its connection without an answer, as Go', async () => {
    const router = await startRouter(
      { nodes: { root: { routerType: 'Sequence', steps: [{ serviceUrl: v1('held') }] } }, routerTimeouts: { serverWrite: 1 } },
      { flags: ['--readiness_follows_steps=false'] },
    );
    const gate = predictors.newGate();
    try {
      await expect(send(router.url, { body: '{"instances":[[1]]}' })).rejects.toThrow(/socket hang up|ECONNRESET/);
      expect(gate.arrived).toBe(1);
    } finally {
      gate.release();
      await router.close();
    }
  });
});
