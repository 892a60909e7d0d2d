/**
 * Transport limits on a real server (#16 items 2, 3, 11 and load shedding): what Node's
 * HTTP parser and timers refuse answers in the project's `{"error"}` shape with 400, 408 or
 * 431; a JSON part past --rest_max_json_bytes is 413 before it is parsed; header-only
 * connections past --max_connections cannot lock out probes; a model holding
 * --max_queued_requests answers 503 + Retry-After (REST) and UNAVAILABLE (gRPC), with its
 * queue depth as a metric; an idle gRPC connection is closed.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grpc, grpcClient } from '../../test/grpc/client.js';
import { expectError, get, metricValue, post } from '../../test/helpers/http.js';
import { untilBytesHeld } from '../../test/helpers/held-bytes.js';
import { type LogLines, logLines } from '../../test/helpers/log-lines.js';
import { ModelGate, untilQueueDepth } from '../../test/helpers/model-gate.js';
import { type TestServer, makeRepository, startServer } from '../../test/helpers/server.js';
import { waitFor } from '../../test/helpers/wait-for.js';

/** Sends raw bytes and resolves with everything the server wrote before closing. */
function raw(url: string, chunks: readonly (string | Buffer)[], opts: { keepOpen?: boolean } = {}): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), '127.0.0.1');
    let out = '';
    s.on('data', (d) => (out += d.toString('utf8')));
    s.on('close', () => resolve(out));
    s.on('error', reject);
    s.on('connect', () => {
      for (const c of chunks) s.write(c);
      if (opts.keepOpen !== true) s.end();
    });
  });
}

function parse(response: string): { status: number; headers: string; body: unknown } {
  const [head = '', body = ''] = response.split('\r\n\r\n');
  return { status: Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1]), headers: head.toLowerCase(), body: body === '' ? undefined : JSON.parse(body) };
}

describe('REST transport limits', () => {
  let t: TestServer;
  let repo: ReturnType<typeof makeRepository>;
  let log: LogLines;
  beforeAll(async () => {
    repo = makeRepository({ m: 'identity_fp32' });
    log = logLines();
    t = await startServer(
      [
        '--model_repository',
        repo.dir,
        '--max_header_bytes',
        '2048',
        '--headers_timeout_seconds',
        '1',
        '--request_timeout_seconds',
        '2',
        '--rest_max_json_bytes',
        '4096',
        '--max_connections',
        '64',
      ],
      { logger: log.logger },
    );
  });
  afterAll(async () => {
    await t.close();
    repo.cleanup();
  });

  it.each([
    ['a malformed Content-Length', 'POST /v2/models/m/infer HTTP/1.1\r\nHost: x\r\nContent-Length: 12abc\r\n\r\n{}'],
    ['a malformed chunk size', 'POST /v2/models/m/infer HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n'],
    ['both Content-Length and chunked', 'POST /v2/models/m/infer HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}'],
    ['a garbage request line', 'GET\x00 / HTTP/1.1\r\n\r\n'],
  ])('%s is a 400 in the {"error"} shape', async (_case, request) => {
    const r = parse(await raw(t.url, [request]));
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: expect.stringMatching(/^Malformed HTTP request: /) });
  });

  it('headers past --max_header_bytes are a 431', async () => {
    const r = parse(await raw(t.url, [`GET /v2/health/live HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(4096)}\r\n\r\n`]));
    expect(r.status).toBe(431);
    expect(r.body).toEqual({ error: 'Request headers are larger than the limit of 2048 bytes' });
  });

  it('a body shorter than its Content-Length is a 408 once the request timeout passes, and the connection is closed', async () => {
    const r = parse(await raw(t.url, ['POST /v2/models/m/infer HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"inp'], { keepOpen: true }));
    expect(r.status).toBe(408);
    expect(r.body).toEqual({ error: expect.stringMatching(/^Request not received in time/) });
    expect(await log.waitFor((l) => l['limit'] === '--headers_timeout_seconds/--request_timeout_seconds')).toMatchObject({ level: 40, requestSeconds: 2 });
  });

  it('an unterminated chunked body is a 408 too', async () => {
    const r = parse(await raw(t.url, ['POST /v2/models/m/infer HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"inp\r\n'], { keepOpen: true }));
    expect(r.status).toBe(408);
  });

  it('headers never finished are a 408 after the headers timeout', async () => {
    const r = parse(await raw(t.url, ['GET /v2/health/live HTTP/1.1\r\nHost: x\r\n'], { keepOpen: true }));
    expect(r.status).toBe(408);
  });

  it('a JSON body past --rest_max_json_bytes is a 413 (never parsed); the same tensor as binary data is served', async () => {
    const data = new Array(2000).fill(0.5);
    const r = await post(`${t.url}/v2/models/m/infer`, { inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 2000], data }] });
    expectError(r, 413, /^The JSON part of the request is \d+ bytes, larger than the limit of 4096 bytes \(--rest_max_json_bytes\)/);
    const head = Buffer.from(JSON.stringify({ inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 2000], parameters: { binary_data_size: 8000 } }] }));
    const ok = await post(`${t.url}/v2/models/m/infer`, Buffer.concat([head, Buffer.from(new Float32Array(data).buffer)]), {
      'inference-header-content-length': String(head.byteLength),
    });
    expect(ok.status, ok.text).toBe(200);
  });

  it('V1 instances nested 1,500 levels deep are a 400 (no recursion that deep), and the server still answers', async () => {
    const r = await post(`${t.url}/v1/models/m:predict`, `{"instances":${'['.repeat(1500)}1${']'.repeat(1500)}}`, { 'content-type': 'application/json' });
    expectError(r, 400, /shape has 1500 dimensions; at most 64 are allowed/);
    expect((await get(`${t.url}/v2/health/live`)).status).toBe(200);
  });

  it('500 header-only connections past --max_connections (64) do not lock out liveness and readiness probes', async () => {
    const { port } = new URL(t.url);
    const sockets: Socket[] = [];
    try {
      const connected: Promise<void>[] = [];
      for (let i = 0; i < 500; i++) {
        const s = connect(Number(port), '127.0.0.1');
        s.on('error', () => undefined);
        connected.push(new Promise((resolve) => s.once('connect', () => resolve()).once('close', () => resolve())));
        s.write('GET /v2/health/live HTTP/1.1\r\nHost: x\r\n');
        sockets.push(s);
      }
      await Promise.all(connected);
      // As the kubelet probes: a fresh connection each time.
      for (const p of ['/v2/health/live', '/v2/health/ready', '/v2/models/m/ready']) {
        const r = parse(await raw(t.url, [`GET ${p} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`]));
        expect(r.status, p).toBe(200);
      }
      // The flood was bounded: at most the limit's worth of those connections stays open (the
      // server has closed the others; their clients see it as it arrives).
      const open = () => sockets.filter((s) => !s.destroyed && s.readyState === 'open').length;
      await waitFor(open, { until: (n) => n <= 64, intervalMs: 50, description: 'at most 64 of the 500 connections open' });
    } finally {
      for (const s of sockets) s.destroy();
    }
  });
});

describe('load shedding', () => {
  // The two requests the model may hold are held at it (test/helpers/model-gate.ts) until the
  // others have been answered: which requests overlap is decided by the test, not by how long
  // an inference takes.
  const gate = new ModelGate();
  let t: TestServer;
  let repo: ReturnType<typeof makeRepository>;
  beforeAll(async () => {
    repo = makeRepository({ m: 'identity_fp32' });
    t = await startServer(['--model_repository', repo.dir, '--max_queued_requests', '2'], { grpc: true, backends: gate.backends() });
  });
  afterAll(async () => {
    gate.release();
    await t.close();
    repo.cleanup();
  });

  const OVERLOADED = 'Model with name m is overloaded: 2 requests are already queued or running (--max_queued_requests); retry later.';
  const v2 = { inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 16], data: new Array<number>(16).fill(1) }] };
  const depth = async () => metricValue(await t.server.metrics.render(), 'kserve_model_queue_depth', { model_name: 'm' });

  it('past --max_queued_requests a model answers 503 with Retry-After, the others run; its queue depth is a metric', async () => {
    gate.hold();
    try {
      // Two requests reach the model and wait there: the model holds its limit.
      const admitted = [post(`${t.url}/v2/models/m/infer`, v2), post(`${t.url}/v2/models/m/infer`, v2)];
      await gate.untilHeld(2);
      await untilQueueDepth(t.server, 'm', 2);
      // Every further request is shed at once, none reaches the model.
      const shed = await Promise.all(Array.from({ length: 6 }, () => post(`${t.url}/v2/models/m/infer`, v2)));
      for (const r of shed) {
        expectError(r, 503, OVERLOADED);
        expect(r.headers.get('retry-after')).toBe('1');
      }
      expect(gate.held).toHaveLength(2);
      expect(await depth()).toBe(2);
      gate.release();
      for (const r of await Promise.all(admitted)) expect(r.status, r.text).toBe(200);
    } finally {
      gate.release();
    }
    // Once they are done the queue is empty again, and the model serves.
    expect(await depth()).toBe(0);
    expect((await post(`${t.url}/v2/models/m/infer`, v2)).status).toBe(200);
  });

  it('over gRPC the shed requests are UNAVAILABLE', async () => {
    const c = grpcClient(t.grpcAddress as string);
    const call = () =>
      c.infer({ model_name: 'm', inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: ['1', '16'], contents: { fp32_contents: new Array<number>(16).fill(1) } }] }).then(
        () => 'OK',
        (e: grpc.ServiceError) => `${e.code} ${e.details}`,
      );
    gate.hold();
    try {
      const admitted = [call(), call()];
      await gate.untilHeld(2);
      await untilQueueDepth(t.server, 'm', 2);
      expect(await Promise.all(Array.from({ length: 6 }, call))).toEqual(new Array(6).fill(`${grpc.status.UNAVAILABLE} ${OVERLOADED}`));
      gate.release();
      expect(await Promise.all(admitted)).toEqual(['OK', 'OK']);
    } finally {
      gate.release();
      c.close();
    }
  });
});

it('an idle gRPC connection is closed after --grpc_max_connection_idle_seconds', async () => {
  const t = await startServer(['--grpc_max_connection_idle_seconds', '1'], { grpc: true });
  const c = grpcClient(t.grpcAddress as string);
  try {
    expect(await c.call('ServerLive', {})).toEqual({ live: true });
    const channel = (c as unknown as { channel?: grpc.Channel }).channel;
    // The test client hides its channel; a fresh one shows the server's GOAWAY as IDLE.
    const probe = new grpc.Client(t.grpcAddress as string, grpc.credentials.createInsecure());
    const ch = channel ?? probe.getChannel();
    await new Promise<void>((resolve, reject) => probe.waitForReady(Date.now() + 60_000, (e) => (e ? reject(e) : resolve())));
    expect(ch.getConnectivityState(false)).toBe(grpc.connectivityState.READY);
    // Bounded: a server that never closes it fails this as a timeout.
    const state = await waitFor(
      () =>
        new Promise<grpc.connectivityState>((resolve) => ch.watchConnectivityState(grpc.connectivityState.READY, Date.now() + 1000, () => resolve(ch.getConnectivityState(false)))),
      { until: (s) => s !== grpc.connectivityState.READY, timeoutMs: 60_000, intervalMs: 0, description: 'the idle connection to leave READY' },
    );
    expect(state).not.toBe(grpc.connectivityState.READY);
    probe.close();
  } finally {
    c.close();
    await t.close();
  }
});

describe('request bytes held at once', () => {
  let t: TestServer;
  let repo: ReturnType<typeof makeRepository>;
  let log: LogLines;
  beforeAll(async () => {
    repo = makeRepository({ m: 'identity_fp32' });
    log = logLines();
    t = await startServer(['--model_repository', repo.dir, '--rest_max_inflight_body_bytes', String(3 * 2 ** 20)], { logger: log.logger });
  });
  afterAll(async () => {
    await t.close();
    repo.cleanup();
  });

  it('stalled large bodies past --rest_max_inflight_body_bytes: the next is a 503 with Retry-After; the budget frees when they go', async () => {
    const { port } = new URL(t.url);
    const stalled: Socket[] = [];
    const sendPart = (bytes: number) =>
      new Promise<Socket>((resolve) => {
        const s = connect(Number(port), '127.0.0.1', () => {
          s.write(`POST /v2/models/m/infer HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${2 * bytes}\r\n\r\n`);
          s.write(Buffer.alloc(bytes, 0x20), () => resolve(s));
        });
        s.on('error', () => undefined);
      });
    try {
      // Two clients send 1.2 MiB each of a 2.4 MiB body, then stall: 2.4 of the 3 MiB held,
      // once the server has read them (its own count, waited for).
      const part = Math.floor(1.2 * 2 ** 20);
      for (let i = 0; i < 2; i++) stalled.push(await sendPart(part));
      await untilBytesHeld(t.server, 'rest', 2 * part);
      const r = await post(`${t.url}/v2/models/m/infer`, Buffer.alloc(1.5 * 2 ** 20, 0x20), { 'content-type': 'application/json' });
      expectError(r, 503, /^Server is busy: the server already holds \d+ bytes of request bodies \(limit --rest_max_inflight_body_bytes 3145728\); retry later\.$/);
      expect(r.headers.get('retry-after')).toBe('1');
      expect(await log.waitFor((l) => l['limit'] === '--rest_max_inflight_body_bytes')).toMatchObject({ level: 40, max: 3 * 2 ** 20 });
    } finally {
      for (const s of stalled) s.destroy();
    }
    // Their bytes are released with their connections: a large body is served again.
    await untilBytesHeld(t.server, 'rest', 0);
    const data = new Array(100_000).fill(0.25);
    expect((await post(`${t.url}/v2/models/m/infer`, { inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, data.length], data }] })).status).toBe(200);
  });
});

it('the configured --max_tensor_elements reaches every transport: V2, V1 and gRPC', async () => {
  const repo = makeRepository({ m: 'identity_fp32' });
  const t = await startServer(['--model_repository', repo.dir, '--max_tensor_elements', '4'], { grpc: true });
  const c = grpcClient(t.grpcAddress as string);
  try {
    expectError(
      await post(`${t.url}/v2/models/m/infer`, { inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 5], data: [1, 2, 3, 4, 5] }] }),
      413,
      /at most 4 are allowed per request \(limit --max_tensor_elements\)/,
    );
    expectError(await post(`${t.url}/v1/models/m:predict`, { instances: [[1, 2, 3, 4, 5]] }), 413, /at most 4 are allowed/);
    const err = await c.infer({ model_name: 'm', inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: ['1', '5'], contents: { fp32_contents: [1, 2, 3, 4, 5] } }] }).then(
      () => undefined,
      (e: grpc.ServiceError) => e,
    );
    expect(err?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect((await post(`${t.url}/v2/models/m/infer`, { inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 4], data: [1, 2, 3, 4] }] })).status).toBe(200);
  } finally {
    c.close();
    await t.close();
    repo.cleanup();
  }
});
