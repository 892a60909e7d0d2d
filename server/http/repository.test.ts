/**
 * The model repository over REST: numeric versions and the `/versions/{v}` routes, load and
 * unload at runtime, config.pbtxt (max_batch_size, a config that contradicts the model), and
 * failed loads that are reported with their cause without taking other models down.
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, get, json, post } from '../../test/helpers/http.js';
import { type TestServer, fixture, makeRepository, startServer } from '../../test/helpers/server.js';

const fp32 = (data: number[][]) => ({
  inputs: [{ name: 'INPUT0', shape: [data.length, data[0]?.length ?? 0], datatype: 'FP32', data }],
});
const outputData = (r: { text: string }) => (JSON.parse(r.text) as { outputs: Array<{ data: number[] }> }).outputs[0]?.data;

describe('model versions', () => {
  let t: TestServer;
  let repo: ReturnType<typeof makeRepository>;
  beforeAll(async () => {
    repo = makeRepository({ m: { versions: { '1': 'identity_fp32', '2': 'scale2_fp32' } } });
    t = await startServer(['--model_repository', repo.dir]);
  });
  afterAll(async () => {
    await t.close();
    repo.cleanup();
  });

  it('the default version is the highest', async () => {
    const r = await post(`${t.url}/v2/models/m/infer`, fp32([[1, 2]]));
    expect(r.status, r.text).toBe(200);
    expect(json(r)).toMatchObject({ model_name: 'm', model_version: '2', outputs: [{ data: [2, 4] }] });
    expect(r.text).toContain('"model_version":"2"');
  });

  it.each([
    ['1', [1, 2]],
    ['2', [2, 4]],
  ])('/versions/%s/infer addresses that version', async (v, expected) => {
    const r = await post(`${t.url}/v2/models/m/versions/${v}/infer`, fp32([[1, 2]]));
    expect(r.status, r.text).toBe(200);
    expect(json(r)).toMatchObject({ model_version: v, outputs: [{ data: expected }] });
  });

  it('V1 predict uses the default version', async () => {
    const r = await post(`${t.url}/v1/models/m:predict`, { instances: [[1.5, 2]] });
    expect(r.text).toBe('{"predictions":[[3.0,4.0]]}');
  });

  it('metadata lists the versions, for the model and for each version', async () => {
    for (const p of ['/v2/models/m', '/v2/models/m/versions/1', '/v2/models/m/versions/2']) {
      const r = await get(`${t.url}${p}`);
      expect(r.status).toBe(200);
      expect(json(r)).toMatchObject({ name: 'm', versions: ['1', '2'], platform: 'onnxruntime_onnx' });
    }
  });

  it.each(['1', '2'])('/versions/%s/ready is ready', async (v) => {
    const r = await get(`${t.url}/v2/models/m/versions/${v}/ready`);
    expect(r.status).toBe(200);
    expect(r.text).toBe('{"name":"m","ready":true}');
  });

  it.each([
    ['GET', '/v2/models/m/versions/3'],
    ['GET', '/v2/models/m/versions/3/ready'],
    ['POST', '/v2/models/m/versions/3/infer'],
    ['POST', '/v2/models/m/versions/latest/infer'],
  ])('%s %s: an unknown version is 404', async (method, p) => {
    const r = method === 'GET' ? await get(`${t.url}${p}`) : await post(`${t.url}${p}`, fp32([[1]]));
    expectError(r, 404, /^Model with name m and version \w+ does not exist\.$/);
  });

  it('the repository index reports the default version', async () => {
    expect(json(await post(`${t.url}/v2/repository/index`))).toEqual([{ name: 'm', version: '2', state: 'READY' }]);
  });
});

describe('load and unload at runtime', () => {
  let t: TestServer;
  let repo: ReturnType<typeof makeRepository>;
  beforeAll(async () => {
    repo = makeRepository({ a: 'identity_fp32' });
    t = await startServer(['--model_repository', repo.dir]);
  });
  afterAll(async () => {
    await t.close();
    repo.cleanup();
  });
  const load = (name: string) => post(`${t.url}/v2/repository/models/${name}/load`);
  const unload = (name: string) => post(`${t.url}/v2/repository/models/${name}/unload`);

  it('a model copied in after start is unknown until loaded, then serves', async () => {
    mkdirSync(path.join(repo.dir, 'late'));
    copyFileSync(fixture('scale2_fp32'), path.join(repo.dir, 'late', 'model.onnx'));
    expectError(await get(`${t.url}/v2/models/late`), 404);

    const r = await load('late');
    expect(r.status).toBe(200);
    expect(r.text).toBe('{"name":"late","load":true}');
    expect(outputData(await post(`${t.url}/v2/models/late/infer`, fp32([[3]])))).toEqual([6]);
    expect(json(await get(`${t.url}/v2/models`))).toEqual({ models: ['a', 'late'] });
    expect((await get(`${t.url}/v2/health/ready`)).status).toBe(200);
  });

  it('unload answers the anchor body; afterwards the model is 404 everywhere', async () => {
    const r = await unload('late');
    expect(r.status).toBe(200);
    expect(r.text).toBe('{"name":"late","unload":true}');
    expectError(await post(`${t.url}/v2/models/late/infer`, fp32([[3]])), 404, /^Model with name late does not exist\.$/);
    expectError(await get(`${t.url}/v2/models/late/ready`), 404);
    expectError(await get(`${t.url}/v1/models/late`), 404);
    expect(json(await get(`${t.url}/v2/models`))).toEqual({ models: ['a'] });
  });

  it('unloading an unknown or already unloaded model is 404', async () => {
    expectError(await unload('late'), 404, /^Model with name late does not exist\.$/);
    expectError(await unload('nope'), 404, /^Model with name nope does not exist\.$/);
  });

  it('loading a model the repository does not have is 404', async () => {
    expectError(await load('nope'), 404, /^Model with name nope does not exist\.$/);
    expectError(await load('..'), 404);
  });

  it("load reads only the body's parameters: without them it is a plain load; a config override that is not JSON is refused", async () => {
    const r = await post(`${t.url}/v2/repository/models/late/load`, { id: 'not read' });
    expect(r.status).toBe(200);
    expect(r.text).toBe('{"name":"late","load":true}');
    // The override itself: server/repository/load-override.test.ts.
    expectError(
      await post(`${t.url}/v2/repository/models/late/load`, { parameters: { config: 'x' } }),
      400,
      /^The config override for model late is invalid: config is not JSON: /,
    );
  });

  it('loading a loaded model reloads it from disk', async () => {
    expect(outputData(await post(`${t.url}/v2/models/a/infer`, fp32([[5]])))).toEqual([5]);
    copyFileSync(fixture('scale2_fp32'), path.join(repo.dir, 'a', 'model.onnx'));
    expect((await load('a')).text).toBe('{"name":"a","load":true}');
    expect(outputData(await post(`${t.url}/v2/models/a/infer`, fp32([[5]])))).toEqual([10]);
  });

  it('a failed reload is 503 with its cause and the loaded version keeps serving', async () => {
    copyFileSync(fixture('identity_bf16'), path.join(repo.dir, 'a', 'model.onnx'));
    expectError(await load('a'), 503, /^Model with name a is not ready\. .*(BF16|bfloat16|Unsupported data type)/);
    expect(outputData(await post(`${t.url}/v2/models/a/infer`, fp32([[5]])))).toEqual([10]);
    expect((await get(`${t.url}/v2/models/a/ready`)).status).toBe(200);
  });

  it('a model that fails its first load is reported with its cause; load again after fixing it', async () => {
    mkdirSync(path.join(repo.dir, 'b'));
    copyFileSync(fixture('identity_bf16'), path.join(repo.dir, 'b', 'model.onnx'));
    expectError(await load('b'), 503, /^Model with name b is not ready\. .*(BF16|bfloat16|Unsupported data type)/);
    expectError(await get(`${t.url}/v2/models/b/ready`), 503, /BF16|bfloat16|Unsupported data type/);
    expectError(await post(`${t.url}/v2/models/b/infer`, fp32([[1]])), 503, /^Model with name b is not ready\./);
    copyFileSync(fixture('identity_fp32'), path.join(repo.dir, 'b', 'model.onnx'));
    expect((await load('b')).status).toBe(200);
    expect(outputData(await post(`${t.url}/v2/models/b/infer`, fp32([[1]])))).toEqual([1]);
  });

  it('a folder without a model file fails the load with a clear cause', async () => {
    mkdirSync(path.join(repo.dir, 'empty'));
    expectError(await load('empty'), 503, /^Model with name empty is not ready\. no model file for backend\(s\) text, onnx, tensorflow, custom found/);
  });
});

describe('a repository with broken models', () => {
  let t: TestServer;
  let repo: ReturnType<typeof makeRepository>;
  beforeAll(async () => {
    repo = makeRepository({
      good: 'identity_fp32',
      broken: 'identity_bf16',
      wrongtype: {
        file: 'identity_fp32',
        config: 'name: "wrongtype"\ninput [ { name: "INPUT0" data_type: TYPE_INT32 dims: [ -1, -1 ] } ]\n',
      },
      badsyntax: { file: 'identity_fp32', config: 'max_batch_size: 4\ninput [ { name: "INPUT0" \n' },
      batched: {
        file: 'identity_fp32',
        config: [
          'name: "batched"',
          'platform: "onnxruntime_onnx"',
          'max_batch_size: 4',
          'input [ { name: "INPUT0", data_type: TYPE_FP32, dims: [ -1 ] } ]',
          'output [ { name: "OUTPUT0", data_type: TYPE_FP32, dims: [ -1 ] } ]',
          'dynamic_batching { max_queue_delay_microseconds: 100 }',
          'instance_group [ { count: 1 kind: KIND_CPU } ]',
        ].join('\n'),
      },
    });
    t = await startServer(['--model_repository', repo.dir]);
  });
  afterAll(async () => {
    await t.close();
    repo.cleanup();
  });

  it('the others serve while broken models failed', async () => {
    expect(outputData(await post(`${t.url}/v2/models/good/infer`, fp32([[7]])))).toEqual([7]);
    expect((await get(`${t.url}/v2/models/good/ready`)).status).toBe(200);
    expect((await get(`${t.url}/v2/health/live`)).status).toBe(200);
  });

  it('/v2/health/ready is 503 while a startup model is not ready', async () => {
    expectError(await get(`${t.url}/v2/health/ready`), 503, /^Server is not ready\.$/);
  });

  it.each([
    ['broken', /BF16|bfloat16|Unsupported data type/],
    ['wrongtype', /config\.pbtxt declares input 'INPUT0' as INT32 but model wrongtype has FP32/],
    ['badsyntax', /config\.pbtxt line \d+: /],
  ])('%s: readiness, metadata and infer are 503 with the load failure as cause', async (name, cause) => {
    for (const r of [
      await get(`${t.url}/v2/models/${name}/ready`),
      await get(`${t.url}/v1/models/${name}`),
      await get(`${t.url}/v2/models/${name}`),
      await post(`${t.url}/v2/models/${name}/infer`, fp32([[1]])),
    ]) {
      expectError(r, 503, new RegExp(`^Model with name ${name} is not ready\\. .*(?:${cause.source})`));
    }
  });

  it('the index lists failed models as UNAVAILABLE with their reason', async () => {
    const index = json(await post(`${t.url}/v2/repository/index`)) as Array<Record<string, string>>;
    expect(index.map((e) => [e.name, e.state])).toEqual([
      ['badsyntax', 'UNAVAILABLE'],
      ['batched', 'READY'],
      ['broken', 'UNAVAILABLE'],
      ['good', 'READY'],
      ['wrongtype', 'UNAVAILABLE'],
    ]);
    expect(index.find((e) => e.name === 'broken')?.reason).toMatch(/BF16|bfloat16|Unsupported data type/);
  });

  it('max_batch_size from config.pbtxt is enforced', async () => {
    const rows = (n: number) => Array.from({ length: n }, () => [1, 2]);
    expect((await post(`${t.url}/v2/models/batched/infer`, fp32(rows(4)))).status).toBe(200);
    expectError(await post(`${t.url}/v2/models/batched/infer`, fp32(rows(5))), 400, /input 'INPUT0': batch size 5 exceeds the model's max_batch_size 4/);
    expectError(await post(`${t.url}/v1/models/batched:predict`, { instances: rows(5) }), 400, /max_batch_size 4/);
  });

  it('loading a broken model again is 503 with the cause', async () => {
    expectError(await post(`${t.url}/v2/repository/models/wrongtype/load`), 503, /^Model with name wrongtype is not ready\. .*declares input 'INPUT0' as INT32/);
  });

  it('fixing and loading, or unloading, the broken models makes the server ready', async () => {
    writeFileSync(path.join(repo.dir, 'wrongtype', 'config.pbtxt'), 'input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ -1, -1 ] } ]\n');
    expect((await post(`${t.url}/v2/repository/models/wrongtype/load`)).status).toBe(200);
    expectError(await get(`${t.url}/v2/health/ready`), 503);
    expect((await post(`${t.url}/v2/repository/models/broken/unload`)).text).toBe('{"name":"broken","unload":true}');
    expect((await post(`${t.url}/v2/repository/models/badsyntax/unload`)).status).toBe(200);
    const r = await get(`${t.url}/v2/health/ready`);
    expect(r.status).toBe(200);
    expect(r.text).toBe('{"ready":true}');
  });
});
