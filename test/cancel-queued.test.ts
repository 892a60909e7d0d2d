/**
 * Work queued for a client that went away is dropped, not run: gRPC calls whose deadline
 * passes while they wait behind a running inference, and REST requests whose client closes
 * the connection. Observed through the server's own counters: the predict histogram counts
 * only inferences that ran, and gRPC's request counter records the cancelled calls as 499.
 *
 * Nothing here depends on how long an inference takes: the inference others queue behind is
 * held at the model (test/helpers/model-gate.ts) until the server itself reports each client
 * gone (the request's signal, as the model sees it), then released. How the ONNX worker skips
 * a job cancelled while it waits in the worker's own queue is covered, held the same way, in
 * server/workers/worker-session.test.ts.
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import { metricValue } from './helpers/http.js';
import { ModelGate, untilQueueDepth } from './helpers/model-gate.js';
import { type TestServer, makeRepository, startServer } from './helpers/server.js';
import { waitFor } from './helpers/wait-for.js';
import { type GrpcTestClient, grpcClient, grpcError } from './grpc/client.js';

let t: TestServer;
let c: GrpcTestClient;
let repo: ReturnType<typeof makeRepository>;
const gate = new ModelGate();
const DEADLINE_MS = 3000;

function grpcRequest(n: number) {
  return {
    model_name: 'slow',
    inputs: [{ name: 'X', datatype: 'FP32', shape: [n, 1024] }],
    raw_input_contents: [Buffer.from(new Float32Array(n * 1024).fill(1).buffer)],
  };
}

interface RestCall {
  /** The status, or the client's error code once its connection is closed. */
  readonly done: Promise<{ status: number | string; body: string }>;
  /** Closes the client's connection once it is open; resolves when the server has closed its side too. */
  goAway(): Promise<void>;
}

/** The server's side of each connection, by the client's port. */
const serverSide = new Map<number, Socket>();

/** One V2 REST inference of `rows` rows of `value` on a connection of its own. */
function restInfer(rows: number, model = 'slow', value = 1): RestCall {
  const body = JSON.stringify({ inputs: [{ name: 'X', datatype: 'FP32', shape: [rows, 1024], data: new Array<number>(rows * 1024).fill(value) }] });
  const { port } = new URL(t.url);
  let connected!: (s: Socket) => void;
  const socket = new Promise<Socket>((r) => (connected = r));
  const done = new Promise<{ status: number | string; body: string }>((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: `/v2/models/${model}/infer`,
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on('error', (e: NodeJS.ErrnoException) => resolve({ status: e.code ?? e.message, body: text }));
      },
    );
    req.on('socket', (s) => (s.connecting ? s.once('connect', () => connected(s)) : connected(s)));
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ status: e.code ?? e.message, body: '' }));
    req.end(body);
  });
  return {
    done,
    goAway: async () => {
      const s = await socket;
      const clientPort = s.localPort as number;
      s.destroy();
      // What the server's request signal reads: its side of the connection destroyed.
      await waitFor(() => serverSide.get(clientPort)?.destroyed === true, { intervalMs: 5, description: `the server to close the connection from port ${clientPort}` });
    },
  };
}

async function metrics(): Promise<string> {
  return fetch(`${t.url}/metrics`).then((r) => r.text());
}
const predictCount = (m: string, model = 'slow') => metricValue(m, 'request_predict_seconds_count', { model_name: model });
const cancelledCount = (m: string) => metricValue(m, 'kserve_inference_requests_total', { model_name: 'slow', protocol: 'grpc', status_code: '499' });

/** Waits (bounded) until the server reports the client of every call held at the gate but the first as gone. */
const untilHeldClientsGone = (n: number) =>
  waitFor(() => gate.held.slice(1).filter((h) => h.context?.signal?.aborted === true).length, {
    until: (gone) => gone === n,
    intervalMs: 5,
    description: `the server to see ${n} clients gone`,
  });

beforeAll(async () => {
  repo = makeRepository({
    slow: 'slow_matmul',
    // Requests wait in the batcher while the model is busy (here: with a held first batch).
    batched: { file: 'slow_matmul', config: 'max_batch_size: 16384\ndynamic_batching { }\n' },
  });
  // Every request through the worker queue: a 1-row slow_matmul can qualify for the main-thread path on a quiet machine.
  t = await startServer(['--model_repository', repo.dir, '--inline_max_us', '0'], { grpc: true, backends: gate.backends() });
  c = grpcClient(t.grpcAddress as string);
  t.server.http.server.on('connection', (s: Socket) => serverSide.set(s.remotePort as number, s));
});

afterAll(async () => {
  gate.release();
  c?.close();
  await t?.close();
  repo?.cleanup();
});

describe('queued work of clients that went away', () => {
  it('gRPC calls past their deadline while queued never run', async () => {
    const before = await metrics();
    gate.hold();
    const blocker = c.infer(grpcRequest(1));
    await gate.untilHeld(1);
    // Queued behind it (held too), they wait until their deadline has passed: a deadline
    // only as long as a call may take to reach the server on a loaded machine.
    const late = Array.from({ length: 5 }, () => grpcError(c.call('ModelInfer', grpcRequest(1), { deadline: Date.now() + DEADLINE_MS })));
    await gate.untilHeld(6);
    for (const e of await Promise.all(late)) expect(grpc.status[e.code]).toBe('DEADLINE_EXCEEDED');
    await untilHeldClientsGone(5);
    gate.release();
    await blocker;
    // Queued after the cancelled ones: had they run, they would have finished before it.
    await c.infer(grpcRequest(1));
    const after = await metrics();
    expect(predictCount(after) - predictCount(before)).toBe(2);
    expect(cancelledCount(after) - cancelledCount(before)).toBe(5);
  });

  it('REST requests whose client closed the connection while queued never run', async () => {
    const before = await metrics();
    gate.hold();
    const blocker = restInfer(1);
    await gate.untilHeld(1);
    const queued = Array.from({ length: 4 }, () => restInfer(1));
    await gate.untilHeld(5);
    // Every client goes away while its request is queued (held behind the first).
    for (const q of queued) await q.goAway();
    expect((await Promise.all(queued.map((q) => q.done))).map((r) => r.status)).toEqual(['ECONNRESET', 'ECONNRESET', 'ECONNRESET', 'ECONNRESET']);
    // As the model sees them: each request's client gone.
    expect(gate.held.slice(1).map((h) => h.context?.signal?.aborted)).toEqual([true, true, true, true]);
    gate.release();
    expect((await blocker.done).status).toBe(200);
    expect((await restInfer(1).done).status).toBe(200);
    const after = await metrics();
    // No response goes to a client that is gone, so REST has no 499 to count; nothing ran.
    expect(predictCount(after) - predictCount(before)).toBe(2);
  });

  it('a REST request whose client closed the connection while it waited for its batch is left out of the batch', async () => {
    const before = await metrics();
    const rowsOf = (m: string) => metricValue(m, 'kserve_batch_size_sum', { model_name: 'batched' });
    gate.hold();
    // Finds the model idle, so it runs at once, alone, and keeps the model busy (held).
    const rows = 64;
    const blocker = restInfer(rows, 'batched', 3);
    await gate.untilHeld(1);
    const kept = restInfer(1, 'batched', 1);
    const dropped = restInfer(1, 'batched', 2);
    // Both wait in the batcher behind the held one; then one client goes away.
    await untilQueueDepth(t.server, 'batched', 3);
    await dropped.goAway();
    expect((await dropped.done).status).toBe('ECONNRESET');
    gate.release();
    const r = await kept.done;
    expect(r.status).toBe(200);
    expect((JSON.parse(r.body) as { outputs: Array<{ data: number[] }> }).outputs[0]?.data.every((x) => x === 1)).toBe(true);
    expect((await blocker.done).status).toBe(200);
    const after = await metrics();
    // The blocker's rows, then one batch with the kept request's row only.
    expect(rowsOf(after) - rowsOf(before)).toBe(rows + 1);
    expect(predictCount(after, 'batched') - predictCount(before, 'batched')).toBe(2);
  });
});
