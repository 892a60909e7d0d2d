/**
 * Triton's model configuration and statistics extensions over REST, on a real server: the
 * configuration of ONNX fixture models (declared by the model, and with config.pbtxt's
 * batching), and statistics that add up exactly after a known number of successful and failed
 * requests, per version and aggregated, and agree with the Prometheus histograms.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelStatisticsDocument } from '../../protocols/triton-documents.js';
import { expectError, get, json, post } from '../../test/helpers/http.js';
import { type TestServer, makeRepository, startServer } from '../../test/helpers/server.js';

const BATCHED_CONFIG = `
max_batch_size: 8
input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 16 ] }, { name: "INPUT1" data_type: TYPE_FP32 dims: [ 16 ] } ]
dynamic_batching { preferred_batch_size: [ 4, 8 ] max_queue_delay_microseconds: 100 }
parameters { key: "intra_op_thread_count" value { string_value: "1" } }
`;

const fp32 = (rows: number, n = 2) => ({
  inputs: [{ name: 'INPUT0', shape: [rows, n], datatype: 'FP32', data: Array.from({ length: rows * n }, (_, i) => i) }],
});
const addSub = (rows: number) => ({
  inputs: ['INPUT0', 'INPUT1'].map((name) => ({ name, shape: [rows, 16], datatype: 'FP32', data: Array.from({ length: rows * 16 }, (_, i) => i) })),
});

/** A histogram's `_count` and `_sum` for one model, from the exposition text. */
function histogram(text: string, metric: string, model: string): { count: number; sum: number } {
  const read = (suffix: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${metric}_${suffix}{model_name="${model}"}`));
    if (line === undefined) throw new Error(`no ${metric}_${suffix} for ${model}`);
    return Number(line.slice(line.lastIndexOf(' ') + 1));
  };
  return { count: read('count'), sum: read('sum') };
}

describe('model configuration and statistics extensions (REST)', () => {
  let t: TestServer;
  let repo: ReturnType<typeof makeRepository>;
  beforeAll(async () => {
    repo = makeRepository({
      m: { versions: { '1': 'identity_fp32', '2': 'scale2_fp32' } },
      b: { file: 'add_sub', config: BATCHED_CONFIG },
    });
    t = await startServer(['--model_repository', repo.dir]);
  });
  afterAll(async () => {
    await t.close();
    repo.cleanup();
  });

  const stats = async (path: string) => {
    const r = await get(`${t.url}${path}`);
    expect(r.status, r.text).toBe(200);
    return (json(r) as { model_stats: ModelStatisticsDocument[] }).model_stats;
  };

  it('server metadata advertises both extensions by their Triton names', async () => {
    expect(json(await get(`${t.url}/v2`))).toMatchObject({ extensions: expect.arrayContaining(['model_configuration', 'statistics']) as unknown });
  });

  it.each(['/v2/models/m/config', '/v2/models/m/versions/1/config'])('%s: the inputs and outputs the ONNX model declares, as Triton writes them', async (path) => {
    const r = await get(`${t.url}${path}`);
    expect(r.status, r.text).toBe(200);
    expect(json(r)).toEqual({
      name: 'm',
      platform: 'onnxruntime_onnx',
      backend: 'onnxruntime',
      version_policy: { all: {} },
      max_batch_size: 0,
      input: [{ name: 'INPUT0', data_type: 'TYPE_FP32', dims: [-1, -1] }],
      output: [{ name: 'OUTPUT0', data_type: 'TYPE_FP32', dims: [-1, -1] }],
      instance_group: [{ name: 'm_0', kind: 'KIND_CPU', count: 1 }],
      parameters: {},
    });
  });

  it("config.pbtxt's batching: dims without the batch dimension, dynamic_batching and parameters", async () => {
    const r = await get(`${t.url}/v2/models/b/config`);
    expect(r.status, r.text).toBe(200);
    expect(json(r)).toMatchObject({
      name: 'b',
      max_batch_size: 8,
      input: [
        { name: 'INPUT0', data_type: 'TYPE_FP32', dims: [16] },
        { name: 'INPUT1', data_type: 'TYPE_FP32', dims: [16] },
      ],
      output: [
        { name: 'OUTPUT0', data_type: 'TYPE_FP32', dims: [16] },
        { name: 'OUTPUT1', data_type: 'TYPE_FP32', dims: [16] },
      ],
      dynamic_batching: { preferred_batch_size: [4, 8], max_queue_delay_microseconds: 100 },
      parameters: { intra_op_thread_count: { string_value: '1' } },
    });
  });

  it.each([
    ['/v2/models/nope/config', /^Model with name nope does not exist\.$/],
    ['/v2/models/m/versions/9/config', /^Model with name m and version 9 does not exist\.$/],
    ['/v2/models/nope/stats', /^Model with name nope does not exist\.$/],
    ['/v2/models/m/versions/9/stats', /^Model with name m and version 9 does not exist\.$/],
  ])('%s: unknown model or version is 404', async (path, message) => {
    expectError(await get(`${t.url}${path}`), 404, message);
  });

  it('statistics add up after known successes and failures, per version and aggregated, and agree with the histograms', async () => {
    const before = await stats('/v2/models/m/stats');
    expect(before.map((s) => [s.version, s.inference_count, s.execution_count, s.last_inference, s.inference_stats.success.count, s.inference_stats.fail.count])).toEqual([
      ['1', 0, 0, 0, 0, 0],
      ['2', 0, 0, 0, 0, 0],
    ]);
    const started = Date.now();
    for (let i = 0; i < 3; i++) expect((await post(`${t.url}/v2/models/m/versions/1/infer`, fp32(2))).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await post(`${t.url}/v2/models/m/infer`, fp32(1))).status).toBe(200);
    // Failures after the lease: one the backend's validation refuses (wrong datatype), one
    // the codec refuses (malformed JSON); and one refused before any version is leased.
    expect((await post(`${t.url}/v2/models/m/versions/1/infer`, { inputs: [{ name: 'INPUT0', shape: [1, 1], datatype: 'INT32', data: [1] }] })).status).toBe(400);
    expect((await post(`${t.url}/v2/models/m/versions/1/infer`, '{"inputs": [', { 'content-type': 'application/json' })).status).toBe(400);
    expect((await post(`${t.url}/v2/models/m/versions/7/infer`, fp32(1))).status).toBe(404);

    const [v1, v2] = await stats('/v2/models/m/stats');
    expect(await stats('/v2/models/m/versions/1/stats')).toEqual([v1]);
    expect(v1).toMatchObject({ name: 'm', version: '1', inference_count: 3, execution_count: 3 });
    expect(v2).toMatchObject({ name: 'm', version: '2', inference_count: 2, execution_count: 2 });
    for (const [s, ok, failed] of [
      [v1, 3, 2],
      [v2, 2, 0],
    ] as const) {
      const inf = s?.inference_stats;
      expect([inf?.success.count, inf?.fail.count, inf?.compute_input.count, inf?.compute_infer.count, inf?.compute_output.count, inf?.queue.count]).toEqual([
        ok,
        failed,
        ok,
        ok,
        ok,
        0,
      ]);
      expect(s?.batch_stats.map((b) => [b.batch_size, b.compute_input.count, b.compute_infer.count, b.compute_output.count])).toEqual([[1, ok, ok, ok]]);
      expect(s?.last_inference).toBeGreaterThanOrEqual(started);
      expect(s?.last_inference).toBeLessThanOrEqual(Date.now());
    }

    // The histograms hold exactly the same readings (sums to within the ns rounding).
    const metrics = (await get(`${t.url}/metrics`)).text;
    for (const [metric, field] of [
      ['request_preprocess_seconds', 'compute_input'],
      ['request_predict_seconds', 'compute_infer'],
      ['request_postprocess_seconds', 'compute_output'],
    ] as const) {
      const h = histogram(metrics, metric, 'm');
      const count = (v1?.inference_stats[field].count ?? 0) + (v2?.inference_stats[field].count ?? 0);
      const ns = (v1?.inference_stats[field].ns ?? 0) + (v2?.inference_stats[field].ns ?? 0);
      expect(h.count).toBe(count);
      expect(Math.abs(h.sum * 1e9 - ns)).toBeLessThanOrEqual(count);
    }

    const all = await stats('/v2/models/stats');
    expect(all.filter((s) => s.name === 'm')).toEqual([v1, v2]);
    expect(all.map((s) => `${s.name}:${s.version}`).sort()).toEqual(['b:', 'm:1', 'm:2']);
  });

  it('a batched model counts rows as inferences, each batch as an execution, and its queue as the batch histogram does', async () => {
    for (const rows of [3, 1, 3]) expect((await post(`${t.url}/v2/models/b/infer`, addSub(rows))).status).toBe(200);
    const [b] = await stats('/v2/models/b/stats');
    // Sent one at a time, each request finds the model idle and runs as a batch of its own.
    expect(b).toMatchObject({ name: 'b', version: '', inference_count: 7, execution_count: 3 });
    expect(b?.batch_stats.map((s) => [s.batch_size, s.compute_infer.count])).toEqual([
      [1, 1],
      [3, 2],
    ]);
    expect([b?.inference_stats.success.count, b?.inference_stats.queue.count, b?.inference_stats.compute_infer.count]).toEqual([3, 3, 3]);
    const queue = histogram((await get(`${t.url}/metrics`)).text, 'kserve_batch_queue_seconds', 'b');
    expect(queue.count).toBe(3);
    expect(Math.abs(queue.sum * 1e9 - (b?.inference_stats.queue.ns ?? 0))).toBeLessThanOrEqual(3);
  });
});
