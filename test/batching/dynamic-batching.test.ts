/**
 * Dynamic batching end to end: real onnxruntime sessions behind config.pbtxt
 * `dynamic_batching`, concurrent callers over V2 REST, gRPC and V1. Asserts who gets which
 * rows and what /metrics counted, never timings. Requests overlap by construction, not by
 * speed: a first request is held at the model (test/helpers/model-gate.ts) until the server
 * reports every other one queued behind it, so the batches that form are the same on any
 * machine.
 */
import { describe, expect, it } from 'vitest';
import { grpcError } from '../grpc/client.js';
import { get, json, post } from '../helpers/http.js';
import { useGrpcFixture } from '../helpers/grpc-fixture.js';
import { ModelGate, untilQueueDepth } from '../helpers/model-gate.js';

const BATCHED = 'max_batch_size: 8\ndynamic_batching { max_queue_delay_microseconds: 20000 }\n';

const gate = new ModelGate();
const f = useGrpcFixture(
  {
    scale2: { file: 'scale2_fp32', config: BATCHED },
    strings: { file: 'identity_bytes', config: BATCHED },
    plain: 'scale2_fp32',
    // dynamic_batching without a batch dimension is ignored (with a warning).
    nobatch: { file: 'scale2_fp32', config: 'dynamic_batching { }\n' },
  },
  [],
  { backends: () => gate.backends() },
);

const behindHeld = <B, T>(model: string, blocker: () => Promise<B>, queued: () => Array<Promise<T>>, others = 0) =>
  gate.behindHeld(f.server.server, model, blocker, queued, others);

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
  it('gives each of many concurrent V2 REST, gRPC and V1 callers exactly its own rows, in full batches', async () => {
    const { first, rest } = await behindHeld(
      'scale2',
      () => v2('scale2', [row(-100)]),
      () => [
        ...Array.from({ length: 64 }, (_, i) => v2('scale2', [row(i)])),
        ...Array.from({ length: 16 }, (_, i) => grpcInfer('scale2', row(1000 + i))),
        ...Array.from({ length: 16 }, (_, i) => v1('scale2', row(2000 + i))),
      ],
    );
    expect(first.data).toEqual(doubled(row(-100)));
    rest.slice(0, 64).forEach((o, i) => expect(o).toMatchObject({ name: 'OUTPUT0', datatype: 'FP32', shape: [1, 3], data: doubled(row(i)) }));
    rest.slice(64, 80).forEach((o, i) => expect(o).toEqual(doubled(row(1000 + i))));
    rest.slice(80).forEach((o, i) => expect(o).toEqual({ predictions: [doubled(row(2000 + i))] }));

    const metrics = (await get(`${f.server.url}/metrics`)).text;
    // The held first request ran alone; the 96 queued behind it went as twelve full batches of 8.
    expect(sample(metrics, 'kserve_batch_size_sum', { model_name: 'scale2' })).toBe(97);
    expect(sample(metrics, 'kserve_batch_size_count', { model_name: 'scale2' })).toBe(13);
    expect(sample(metrics, 'kserve_batch_size_bucket', { model_name: 'scale2', le: '4' })).toBe(1);
    expect(sample(metrics, 'kserve_batch_size_bucket', { model_name: 'scale2', le: '8' })).toBe(13);
    expect(sample(metrics, 'kserve_batch_queue_seconds_count', { model_name: 'scale2' })).toBe(97);
  });

  it('runs requests with other trailing dims or batch sizes concurrently, each correct', async () => {
    const shapes: Array<[number, number]> = [
      [1, 3],
      [1, 5],
      [2, 3],
      [3, 5],
      [1, 1],
      [8, 2],
    ];
    const cases = Array.from({ length: 24 }, (_, i) => {
      const [rows, cols] = shapes[i % shapes.length] as [number, number];
      return Array.from({ length: rows }, (_, r) => row(100 * i + 10 * r, cols));
    });
    // Queued together behind a held request, so that they share batches wherever they can.
    const { rest: outs } = await behindHeld(
      'scale2',
      () => v2('scale2', [row(-1)]),
      () => cases.map((rows) => v2('scale2', rows)),
    );
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
    const before = (await get(`${f.server.url}/metrics`)).text;
    let bad: Promise<Awaited<ReturnType<typeof grpcError>>> | undefined;
    const { rest: outs } = await behindHeld(
      'strings',
      () => call(good(-1)),
      () => {
        const goods = Array.from({ length: 12 }, (_, i) => call(good(i)));
        // Valid on the wire, but not UTF-8: onnxruntime's string tensors refuse it. Sent once the
        // twelve are queued (a full batch of 8, then 4), so it is the fifth row of the second batch.
        bad = untilQueueDepth(f.server.server, 'strings', 13).then(() => grpcError(call(Buffer.from([0xff, 0xfe]))));
        return goods;
      },
      1,
    );
    const err = await (bad as NonNullable<typeof bad>);
    // Retried alone, its error names element 0 of its own tensor, not its place in a batch.
    expect(err.code).toBe(3);
    expect(err.details).toMatch(/BYTES element 0 is not valid UTF-8/);
    outs.forEach((o, i) => expect(Buffer.from(o.outputs[0]?.contents?.bytes_contents?.[0] as Uint8Array).toString()).toBe(`caller ${i}`));
    // The held one alone, a batch of 8, the failed batch of 5, then its five requests one by one.
    const after = (await get(`${f.server.url}/metrics`)).text;
    const delta = (name: string, labels: Record<string, string>) => (sample(after, name, labels) ?? 0) - (sample(before, name, labels) ?? 0);
    expect(delta('kserve_batch_size_count', { model_name: 'strings' })).toBe(8);
    expect(delta('kserve_batch_size_sum', { model_name: 'strings' })).toBe(1 + 8 + 5 + 5);
    expect(delta('kserve_batch_size_bucket', { model_name: 'strings', le: '1' })).toBe(6);
  });

  it.each(['plain', 'nobatch'])('leaves a model without batching (%s) as before', async (model) => {
    const outs = await Promise.all(Array.from({ length: 32 }, (_, i) => v2(model, [row(i)])));
    outs.forEach((o, i) => expect(o.data).toEqual(doubled(row(i))));
    const metrics = (await get(`${f.server.url}/metrics`)).text;
    expect(sample(metrics, 'kserve_batch_size_count', { model_name: model })).toBeUndefined();
    expect(sample(metrics, 'kserve_batch_queue_seconds_count', { model_name: model })).toBeUndefined();
  });
});
