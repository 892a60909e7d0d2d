/**
 * Dynamic batching end to end: real onnxruntime sessions behind config.pbtxt
 * `dynamic_batching`, concurrent callers over V2 REST, gRPC and V1. Asserts who gets which
 * rows and what /metrics counted, never timings.
 */
import { describe, expect, it } from 'vitest';
import { grpcError } from '../grpc/client.js';
import { get, json, post } from '../helpers/http.js';
import { useGrpcFixture } from '../helpers/grpc-fixture.js';

const BATCHED = 'max_batch_size: 8\ndynamic_batching { max_queue_delay_microseconds: 20000 }\n';


const f = useGrpcFixture({
    scale2: { file: 'scale2_fp32', config: BATCHED },
    strings: { file: 'identity_bytes', config: BATCHED },
    plain: 'scale2_fp32',
    // dynamic_batching without a batch dimension is ignored (with a warning).
    nobatch: { file: 'scale2_fp32', config: 'dynamic_batching { }\n' },
  });

/** Distinct, exactly representable values per caller. */
const row = (k: number, n = 3): number[] => Array.from({ length: n }, (_, j) => k + j / 4);
const doubled = (v: readonly number[]): number[] => v.map((x) => 2 * x);

async function v2(model: string, rows: number[][]): Promise<{ shape: number[]; data: number[] }> {
  const r = await post(`${f.server.url}/v2/models/${model}/infer`, {
    inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [rows.length, rows[0]?.length ?? 0], data: rows.flat() }],
  });
  expect(r.status).toBe(200);
  const out = (json(r) as { outputs: Array<{ shape: number[]; data: number[] }> }).outputs[0];
  return out as { shape: number[]; data: number[] };
}

async function grpcInfer(model: string, values: number[]): Promise<number[]> {
  const res = await f.client.infer({
    model_name: model,
    inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, values.length], contents: { fp32_contents: values } }],
  });
  // Array.from: typed contents may decode as a Float32Array or a number[].
  return Array.from(res.outputs[0]?.contents?.fp32_contents ?? []);
}

async function v1(model: string, values: number[]): Promise<unknown> {
  const r = await post(`${f.server.url}/v1/models/${model}:predict`, { instances: [values] });
  expect(r.status).toBe(200);
  return json(r);
}

/** Value of one sample line of /metrics, e.g. kserve_batch_size_count{model_name="scale2"}. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+)\{([^}]*)\} (\S+)$/.exec(line);
    if (m === null || m[1] !== name) continue;
    const got = Object.fromEntries((m[2] as string).split(',').map((kv) => kv.split('=').map((s) => s.replace(/"/g, ''))));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[3]);
  }
  return undefined;
}

describe('dynamic batching', () => {
  it('gives each of many concurrent V2 REST, gRPC and V1 callers exactly its own rows, in batches > 1', async () => {
    const rest = Array.from({ length: 64 }, (_, i) => v2('scale2', [row(i)]));
    const grpc = Array.from({ length: 16 }, (_, i) => grpcInfer('scale2', row(1000 + i)));
    const legacy = Array.from({ length: 16 }, (_, i) => v1('scale2', row(2000 + i)));
    const [restOut, grpcOut, v1Out] = await Promise.all([Promise.all(rest), Promise.all(grpc), Promise.all(legacy)]);
    restOut.forEach((o, i) => expect(o).toMatchObject({ name: 'OUTPUT0', datatype: 'FP32', shape: [1, 3], data: doubled(row(i)) }));
    grpcOut.forEach((o, i) => expect(o).toEqual(doubled(row(1000 + i))));
    v1Out.forEach((o, i) => expect(o).toEqual({ predictions: [doubled(row(2000 + i))] }));

    const metrics = (await get(`${f.server.url}/metrics`)).text;
    const batches = sample(metrics, 'kserve_batch_size_count', { model_name: 'scale2' }) ?? 0;
    const singles = sample(metrics, 'kserve_batch_size_bucket', { model_name: 'scale2', le: '1' }) ?? 0;
    expect(sample(metrics, 'kserve_batch_size_sum', { model_name: 'scale2' })).toBe(96);
    expect(batches).toBeLessThan(96);
    expect(batches - singles).toBeGreaterThan(0);
    expect(sample(metrics, 'kserve_batch_size_bucket', { model_name: 'scale2', le: '8' })).toBe(batches);
    expect(sample(metrics, 'kserve_batch_queue_seconds_count', { model_name: 'scale2' })).toBe(96);
  });

  it('runs requests with other trailing dims or batch sizes concurrently, each correct', async () => {
    const shapes: Array<[number, number]> = [[1, 3], [1, 5], [2, 3], [3, 5], [1, 1], [8, 2]];
    const cases = Array.from({ length: 24 }, (_, i) => {
      const [rows, cols] = shapes[i % shapes.length] as [number, number];
      return Array.from({ length: rows }, (_, r) => row(100 * i + 10 * r, cols));
    });
    const outs = await Promise.all(cases.map((rows) => v2('scale2', rows)));
    outs.forEach((o, i) => {
      const rows = cases[i] as number[][];
      expect(o.shape).toEqual([rows.length, rows[0]?.length]);
      expect(o.data).toEqual(doubled(rows.flat()));
    });
  });

  it('isolates a request that makes the batched inference fail: only it gets the error', async () => {
    const good = (i: number) => Buffer.from(`caller ${i}`);
    const call = (value: Buffer) =>
      f.client.infer({ model_name: 'strings', inputs: [{ name: 'INPUT0', datatype: 'BYTES', shape: [1, 1], contents: { bytes_contents: [value] } }] });
    const goods = Array.from({ length: 12 }, (_, i) => call(good(i)));
    // Valid on the wire, but not UTF-8: onnxruntime's string tensors refuse it.
    const bad = grpcError(call(Buffer.from([0xff, 0xfe])));
    const [err, outs] = await Promise.all([bad, Promise.all(goods)]);
    // Retried alone, its error names element 0 of its own tensor, not its place in a batch.
    expect(err.code).toBe(3);
    expect(err.details).toMatch(/BYTES element 0 is not valid UTF-8/);
    outs.forEach((o, i) => expect(Buffer.from(o.outputs[0]?.contents?.bytes_contents?.[0] as Uint8Array).toString()).toBe(`caller ${i}`));
  });

  it.each(['plain', 'nobatch'])('leaves a model without batching (%s) as before', async (model) => {
    const outs = await Promise.all(Array.from({ length: 32 }, (_, i) => v2(model, [row(i)])));
    outs.forEach((o, i) => expect(o.data).toEqual(doubled(row(i))));
    const metrics = (await get(`${f.server.url}/metrics`)).text;
    expect(sample(metrics, 'kserve_batch_size_count', { model_name: model })).toBeUndefined();
    expect(sample(metrics, 'kserve_batch_queue_seconds_count', { model_name: model })).toBeUndefined();
  });
});
