/**
 * Work queued for a client that went away is dropped, not run: gRPC calls whose deadline
 * passes while they wait behind a long inference, and REST requests whose client closes
 * the connection. Observed through the server's own counters: the predict histogram counts
 * only inferences that ran, and gRPC's request counter records the cancelled calls as 499.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import { binaryInferBody } from './helpers/binary.js';
import { metricValue } from './helpers/http.js';
import { type TestServer, makeRepository, startServer } from './helpers/server.js';
import { type GrpcTestClient, grpcClient, grpcError } from './grpc/client.js';

let t: TestServer;
let c: GrpcTestClient;
let repo: ReturnType<typeof makeRepository>;
let rows = 256;

function grpcRequest(n: number) {
  return {
    model_name: 'slow',
    inputs: [{ name: 'X', datatype: 'FP32', shape: [n, 1024] }],
    raw_input_contents: [Buffer.from(new Float32Array(n * 1024).fill(1).buffer)],
  };
}

async function restInfer(n: number, signal?: AbortSignal, model = 'slow'): Promise<number> {
  const { body, headerLength } = binaryInferBody([
    { name: 'X', datatype: 'FP32', shape: [n, 1024], bytes: new Uint8Array(new Float32Array(n * 1024).fill(1).buffer) },
  ], { parameters: { binary_data_output: true } });
  const res = await fetch(`${t.url}/v2/models/${model}/infer`, {
    method: 'POST',
    headers: { 'inference-header-content-length': String(headerLength), 'content-type': 'application/octet-stream' },
    body,
    ...(signal ? { signal } : {}),
  });
  await res.arrayBuffer();
  return res.status;
}

async function metrics(): Promise<string> {
  return fetch(`${t.url}/metrics`).then((r) => r.text());
}
const predictCount = (m: string) => metricValue(m, 'request_predict_seconds_count', { model_name: 'slow' }) ?? 0;
const cancelledCount = (m: string) =>
  metricValue(m, 'kserve_inference_requests_total', { model_name: 'slow', protocol: 'grpc', status_code: '499' }) ?? 0;

beforeAll(async () => {
  repo = makeRepository({
    slow: 'slow_matmul',
    // Requests wait in the batcher while the model is busy (here: with a long first batch).
    batched: { file: 'slow_matmul', config: 'max_batch_size: 16384\ndynamic_batching { }\n' },
  });
  // Every request through the worker queue: a 1-row slow_matmul can qualify for the main-thread path on a quiet machine.
  t = await startServer(['--model_repository', repo.dir, '--inline_max_us', '0', '--grpc_max_receive_message_length', String(128 << 20), '--grpc_max_send_message_length', String(128 << 20)], { grpc: true });
  c = grpcClient(t.grpcAddress as string, { 'grpc.max_send_message_length': 128 << 20, 'grpc.max_receive_message_length': 128 << 20 });
  // Size the blocking inference from a warm-up so it outlasts the deadlines below many times over.
  const start = performance.now();
  expect(await restInfer(256)).toBe(200);
  const ms = performance.now() - start;
  rows = Math.min(16384, Math.max(256, Math.ceil((256 * 1500) / Math.max(ms, 1))));
});

afterAll(async () => {
  c?.close();
  await t?.close();
  repo?.cleanup();
});

describe('queued work of clients that went away', () => {
  it('gRPC calls past their deadline while queued never run', async () => {
    const before = await metrics();
    const blocker = c.infer(grpcRequest(rows) as never);
    // Let the blocker reach the worker first, then queue calls that will time out behind it.
    await new Promise((r) => setTimeout(r, 100));
    const deadline = () => ({ deadline: Date.now() + 150 });
    const late = await Promise.all(Array.from({ length: 5 }, () => grpcError(c.call('ModelInfer', grpcRequest(1), deadline()))));
    for (const e of late) expect(grpc.status[e.code]).toBe('DEADLINE_EXCEEDED');
    await blocker;
    // Queued after the cancelled ones: had they run, they would have finished before it.
    await c.infer(grpcRequest(1) as never);
    const after = await metrics();
    expect(predictCount(after) - predictCount(before)).toBe(2);
    expect(cancelledCount(after) - cancelledCount(before)).toBe(5);
  }, 120_000);

  it('REST requests whose client closed the connection while queued never run', async () => {
    const before = await metrics();
    const blocker = restInfer(rows);
    await new Promise((r) => setTimeout(r, 100));
    const aborts = Array.from({ length: 4 }, () => {
      const ac = new AbortController();
      const p = restInfer(1, ac.signal).then(() => 'answered', (e: Error) => e.name);
      setTimeout(() => ac.abort(), 150);
      return p;
    });
    expect(await Promise.all(aborts)).toEqual(['AbortError', 'AbortError', 'AbortError', 'AbortError']);
    expect(await blocker).toBe(200);
    expect(await restInfer(1)).toBe(200);
    const after = await metrics();
    // No response goes to a client that is gone, so REST has no 499 to count; nothing ran.
    expect(predictCount(after) - predictCount(before)).toBe(2);
  }, 120_000);

  it('a REST request whose client closed the connection while it waited for its batch is left out of the batch', async () => {
    const before = await metrics();
    const rowsOf = (m: string) => metricValue(m, 'kserve_batch_size_sum', { model_name: 'batched' }) ?? 0;
    const body = (v: number) => JSON.stringify({ inputs: [{ name: 'X', datatype: 'FP32', shape: [1, 1024], data: new Array<number>(1024).fill(v) }] });
    const post = (v: number, signal?: AbortSignal) =>
      fetch(`${t.url}/v2/models/batched/infer`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(v), ...(signal ? { signal } : {}) });
    // Finds the model idle, so it runs at once, alone, and keeps the model busy.
    const blocker = restInfer(rows, undefined, 'batched');
    await new Promise((r) => setTimeout(r, 100));
    const kept = post(1);
    const ac = new AbortController();
    const dropped = post(2, ac.signal).then(() => 'answered', (e: Error) => e.name);
    setTimeout(() => ac.abort(), 100);
    expect(await dropped).toBe('AbortError');
    const r = await kept;
    expect(r.status).toBe(200);
    expect(((await r.json()) as { outputs: Array<{ data: number[] }> }).outputs[0]?.data.every((x) => x === 1)).toBe(true);
    expect(await blocker).toBe(200);
    const after = await metrics();
    // The blocker's rows, then one batch with the kept request's row only.
    expect(rowsOf(after) - rowsOf(before)).toBe(rows + 1);
  }, 60_000);
});
