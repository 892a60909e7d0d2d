/**
 * Every REST route of a healthy server, over real HTTP, with the anchor's status codes and
 * bodies; plus the docs switch (`--enable_docs_url`) and the health/readiness of a server
 * started without models.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_VERSION } from '../version.js';
import { expectError, get, json, post } from '../../test/helpers/http.js';
import { type TestServer, makeRepository, startServer } from '../../test/helpers/server.js';

const ADD_SUB_META = {
  name: 'add_sub',
  versions: null,
  platform: 'onnxruntime_onnx',
  inputs: [
    { name: 'INPUT0', datatype: 'FP32', shape: [-1, 16] },
    { name: 'INPUT1', datatype: 'FP32', shape: [-1, 16] },
  ],
  outputs: [
    { name: 'OUTPUT0', datatype: 'FP32', shape: [-1, 16] },
    { name: 'OUTPUT1', datatype: 'FP32', shape: [-1, 16] },
  ],
};

describe('REST routes on a ready server', () => {
  let t: TestServer;
  let repo: ReturnType<typeof makeRepository>;
  beforeAll(async () => {
    repo = makeRepository({ add_sub: 'add_sub', simple: 'identity_int32' });
    t = await startServer(['--model_repository', repo.dir]);
  });
  afterAll(async () => {
    await t.close();
    repo.cleanup();
  });

  it('GET / is alive', async () => {
    const r = await get(`${t.url}/`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.text).toBe('{"status":"alive"}');
  });

  it('GET /v2 gives server metadata advertising both extensions', async () => {
    const r = await get(`${t.url}/v2`);
    expect(r.status).toBe(200);
    expect(json(r)).toEqual({
      name: 'kserve-ts',
      version: SERVER_VERSION,
      extensions: ['model_repository_extension', 'binary_tensor_data', 'model_configuration', 'statistics'],
    });
  });

  it.each([
    ['/v2/health/live', '{"live":true}'],
    ['/v2/health/ready', '{"ready":true}'],
  ])('GET %s', async (path, body) => {
    const r = await get(`${t.url}${path}`);
    expect(r.status).toBe(200);
    expect(r.text).toBe(body);
  });

  it.each(['/v1/models', '/v2/models'])('GET %s lists models', async (path) => {
    const r = await get(`${t.url}${path}`);
    expect(r.status).toBe(200);
    expect(r.text).toBe('{"models":["add_sub","simple"]}');
  });

  it.each(['/v1/models/add_sub', '/v2/models/add_sub/ready'])('GET %s: model ready', async (path) => {
    const r = await get(`${t.url}${path}`);
    expect(r.status).toBe(200);
    expect(r.text).toBe('{"name":"add_sub","ready":true}');
  });

  it.each([
    ['GET', '/v1/models/nope'],
    ['GET', '/v2/models/nope'],
    ['GET', '/v2/models/nope/ready'],
    ['GET', '/v2/models/nope/versions/1'],
    ['GET', '/v2/models/nope/versions/1/ready'],
    ['POST', '/v1/models/nope:predict'],
    ['POST', '/v1/models/nope:explain'],
    ['POST', '/v2/models/nope/infer'],
    ['POST', '/v2/models/nope/versions/1/infer'],
  ])('%s %s: unknown model is 404 with the anchor message', async (method, path) => {
    const r = method === 'GET' ? await get(`${t.url}${path}`) : await post(`${t.url}${path}`, { inputs: [] });
    expectError(r, 404, /^Model with name nope does not exist\.$/);
  });

  it('GET /v2/models/{name} gives metadata from the session', async () => {
    const r = await get(`${t.url}/v2/models/add_sub`);
    expect(r.status).toBe(200);
    expect(json(r)).toEqual(ADD_SUB_META);
    // Field order as the anchor's ModelMetadataResponse.
    expect(r.text).toBe(
      '{"name":"add_sub","versions":null,"platform":"onnxruntime_onnx","inputs":[{"name":"INPUT0","datatype":"FP32","shape":[-1,16]},{"name":"INPUT1","datatype":"FP32","shape":[-1,16]}],"outputs":[{"name":"OUTPUT0","datatype":"FP32","shape":[-1,16]},{"name":"OUTPUT1","datatype":"FP32","shape":[-1,16]}]}',
    );
  });

  it('POST /v2/models/{name}/infer runs the model (JSON in, JSON out)', async () => {
    const a = Array.from({ length: 16 }, (_, i) => i);
    const b = Array.from({ length: 16 }, () => 1);
    const r = await post(`${t.url}/v2/models/add_sub/infer`, {
      id: 'req-1',
      inputs: [
        { name: 'INPUT0', shape: [1, 16], datatype: 'FP32', data: a },
        { name: 'INPUT1', shape: [1, 16], datatype: 'FP32', data: [b] },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.headers.get('inference-header-content-length')).toBeNull();
    expect(json(r)).toEqual({
      model_name: 'add_sub',
      model_version: null,
      id: 'req-1',
      parameters: null,
      outputs: [
        { name: 'OUTPUT0', shape: [1, 16], datatype: 'FP32', parameters: null, data: a.map((x) => x + 1) },
        { name: 'OUTPUT1', shape: [1, 16], datatype: 'FP32', parameters: null, data: a.map((x) => x - 1) },
      ],
    });
  });

  it('generates a uuid id when the request has none', async () => {
    const r = await post(`${t.url}/v2/models/simple/infer`, {
      inputs: [{ name: 'INPUT0', shape: [1, 2], datatype: 'INT32', data: [[1, 2]] }],
    });
    expect(r.status).toBe(200);
    const body = json(r) as { id: string; outputs: Array<{ data: number[] }> };
    expect(body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // Responses are always flat, as in the anchor (test_infer_v2).
    expect(body.outputs[0]?.data).toEqual([1, 2]);
  });

  it('POST /v1/models/{name}:predict returns the anchor bytes for one input', async () => {
    const r = await post(`${t.url}/v1/models/simple:predict`, '{"instances":[[1,2]]}');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.text).toBe('{"predictions":[[1,2]]}');
  });

  it('V1 stacks several instances into the batch dimension', async () => {
    const r = await post(`${t.url}/v1/models/simple:predict`, {
      instances: [
        [1, 2, 3],
        [4, 5, 6],
      ],
    });
    expect(r.text).toBe('{"predictions":[[1,2,3],[4,5,6]]}');
  });

  it('V1 takes row objects keyed by input name for a model with several inputs', async () => {
    const row = (x: number) => ({ INPUT0: Array(16).fill(x), INPUT1: Array(16).fill(1) });
    const r = await post(`${t.url}/v1/models/add_sub:predict`, { instances: [row(2), row(5)] });
    expect(r.status).toBe(200);
    expect(json(r)).toEqual({ predictions: [Array(16).fill(3), Array(16).fill(6)] });
  });

  it('V1 takes columnar `inputs` keyed by input name', async () => {
    const r = await post(`${t.url}/v1/models/add_sub:predict`, {
      inputs: { INPUT0: [Array(16).fill(4)], INPUT1: [Array(16).fill(1)] },
    });
    expect(r.status).toBe(200);
    expect(json(r)).toEqual({ predictions: [Array(16).fill(5)] });
  });

  it('V1 rejects instances that are not a list', async () => {
    expectError(await post(`${t.url}/v1/models/simple:predict`, { instances: 3 }), 400, 'Expected "instances" to be a list');
  });

  it('POST /v1/models/{name}:explain is 501 for ONNX models', async () => {
    expectError(await post(`${t.url}/v1/models/simple:explain`, { instances: [[1]] }), 501, /explain/);
  });

  it('an unknown V1 verb is a 404 route error', async () => {
    expectError(await post(`${t.url}/v1/models/simple:frobnicate`, {}), 404);
  });

  it('POST /v2/repository/index lists models with state', async () => {
    const r = await post(`${t.url}/v2/repository/index`);
    expect(r.status).toBe(200);
    expect(json(r)).toEqual([
      { name: 'add_sub', state: 'READY' },
      { name: 'simple', state: 'READY' },
    ]);
  });

  it('GET /openapi.json describes the API', async () => {
    const r = await get(`${t.url}/openapi.json`);
    expect(r.status).toBe(200);
    const doc = json(r) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/', '/v2/models/{name}/infer', '/v2/repository/models/{name}/load', '/v1/models/{name}:predict']));
  });

  it('GET /openapi.json is generated from the routes: their parameters, headers and documented bodies, no 405 stand-ins', async () => {
    type Op = { summary?: string; parameters?: Array<{ in: string; name: string }>; requestBody?: { content: Record<string, unknown> }; responses: Record<string, unknown> };
    const doc = json(await get(`${t.url}/openapi.json`)) as { paths: Record<string, Record<string, Op>>; components: { schemas: Record<string, unknown> } };
    const infer = doc.paths['/v2/models/{name}/versions/{version}/infer']?.['post'] as Op;
    expect(infer.parameters?.map((p) => `${p.in}:${p.name}`)).toEqual(['path:name', 'path:version', 'header:inference-header-content-length']);
    expect(Object.keys(infer.requestBody?.content ?? {})).toEqual(['application/json', 'application/octet-stream']);
    expect(Object.keys(infer.responses)).toEqual(expect.arrayContaining(['200', '400', '404', '503']));
    // Every operation is a route's own method: the 405 routes and the document's route are not operations.
    const methods = new Set(Object.values(doc.paths).flatMap((ops) => Object.keys(ops)));
    expect([...methods].sort()).toEqual(['get', 'post']);
    expect(doc.paths['/openapi.json']).toBeUndefined();
    expect(doc.paths['/v1/models/{target}']).toBeUndefined();
    // Every $ref names a component.
    const refs = JSON.stringify(doc).match(/#\/components\/schemas\/\w+/g) ?? [];
    for (const r of refs) expect(doc.components.schemas[r.split('/').pop() as string], r).toBeDefined();
    for (const [path, ops] of Object.entries(doc.paths)) for (const op of Object.values(ops)) expect(op.summary, path).toBeTruthy();
  });

  it('GET /docs is not served without --enable_docs_url', async () => {
    expectError(await get(`${t.url}/docs`), 404);
  });

  it.each([
    ['GET', '/nope'],
    ['POST', '/v2/nope/deeper'],
  ])('%s %s is 404 {"error":...}', async (method, path) => {
    const res = await fetch(`${t.url}${path}`, { method });
    const bytes = Buffer.from(await res.arrayBuffer());
    expectError({ status: res.status, headers: res.headers, bytes, text: bytes.toString() }, 404, /not found/i);
  });

  it.each([
    ['GET', '/v2/models/add_sub/infer'],
    ['POST', '/v2/models'],
    ['DELETE', '/v2/models/add_sub'],
  ])('%s %s (a known path, another method) is 405 {"error":...}', async (method, path) => {
    const res = await fetch(`${t.url}${path}`, { method });
    const bytes = Buffer.from(await res.arrayBuffer());
    expectError({ status: res.status, headers: res.headers, bytes, text: bytes.toString() }, 405, /is not allowed/);
  });
});

describe('a server started without models', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer(['--enable_docs_url', 'true']);
  });
  afterAll(async () => t.close());

  it('is live and ready, with an empty model list', async () => {
    expect((await get(`${t.url}/v2/health/live`)).status).toBe(200);
    expect((await get(`${t.url}/v2/health/ready`)).text).toBe('{"ready":true}');
    expect((await get(`${t.url}/v2/models`)).text).toBe('{"models":[]}');
  });

  it('serves Swagger UI at /docs with --enable_docs_url true', async () => {
    const res = await fetch(`${t.url}/docs`);
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(text).toMatch(/swagger/i);
  });

  it('still serves /openapi.json', async () => {
    expect((await get(`${t.url}/openapi.json`)).status).toBe(200);
  });
});
