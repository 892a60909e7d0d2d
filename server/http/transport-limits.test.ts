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
import { expectError, get, post } from '../../test/helpers/http.js';
import { type LogLines, logLines } from '../../test/helpers/log-lines.js';
import { type TestServer, makeRepository, startServer } from '../../test/helpers/server.js';

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
    t = await startServer([
      '--model_repository', repo.dir,
      '--max_header_bytes', '2048',
      '--headers_timeout_seconds', '1',
      '--request_timeout_seconds', '2',
      '--rest_max_json_bytes', '4096',
      '--max_connections', '64',
    ], { logger: log.logger });
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
      // The flood was bounded: at most the limit's worth of those connections is still open.
      const open = () => sockets.filter((s) => !s.destroyed && s.readyState === 'open').length;
      for (let i = 0; i < 100 && open() > 64; i++) await new Promise((r) => setTimeout(r, 50));
      expect(open()).toBeLessThanOrEqual(64);
    } finally {
      for (const s of sockets) s.destroy();
    }
  });
});

describe('load shedding', () => {
  let t: TestServer;
  let repo: ReturnType<typeof makeRepository>;
  beforeAll(async () => {
    repo = makeRepository({ slow: 'slow_matmul' });
    t = await startServer(['--model_repository', repo.dir, '--max_queued_requests', '2'], { grpc: true });
  });
  afterAll(async () => {
    await t.close();
    repo.cleanup();
  });

  const rows = 300;
  const body = () => {
    const head = Buffer.from(JSON.stringify({ inputs: [{ name: 'X', datatype: 'FP32', shape: [rows, 1024], parameters: { binary_data_size: rows * 4096 } }] }));
    return { body: Buffer.concat([head, Buffer.alloc(rows * 4096)]), headers: { 'inference-header-content-length': String(head.byteLength) } };
  };

  it('past --max_queued_requests a model answers 503 with Retry-After, the others run; its queue depth is a metric', async () => {
    const requests = Array.from({ length: 8 }, () => {
      const b = body();
      return post(`${t.url}/v2/models/slow/infer`, b.body, b.headers);
    });
    // While they are in flight, the gauge shows the model's depth (bounded by the limit).
    let depth = '';
    for (let i = 0; i < 200 && depth === ''; i++) {
      depth = /kserve_model_queue_depth\{model_name="slow"\} ([12])/.exec(await t.server.metrics.render())?.[1] ?? '';
      if (depth === '') await new Promise((r) => setTimeout(r, 5));
    }
    const results = await Promise.all(requests);
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(2);
    const shed = results.filter((r) => r.status === 503);
    expect(shed.length).toBeGreaterThan(0);
    for (const r of shed) {
      expectError(r, 503, 'Model with name slow is overloaded: 2 requests are already queued or running (--max_queued_requests); retry later.');
      expect(r.headers.get('retry-after')).toBe('1');
    }
    expect(depth).not.toBe('');
    // Once they are done the queue is empty again, and the model serves.
    expect(await t.server.metrics.render()).toMatch(/kserve_model_queue_depth\{model_name="slow"\} 0/);
    const b = body();
    expect((await post(`${t.url}/v2/models/slow/infer`, b.body, b.headers)).status).toBe(200);
  });

  it('over gRPC the shed requests are UNAVAILABLE', async () => {
    const c = grpcClient(t.grpcAddress as string);
    try {
      const calls = Array.from({ length: 8 }, () =>
        c.infer({ model_name: 'slow', inputs: [{ name: 'X', datatype: 'FP32', shape: [String(rows), '1024'] }], raw_input_contents: [Buffer.alloc(rows * 4096)] }).then(
          () => 'OK',
          (e: grpc.ServiceError) => `${e.code} ${e.details}`,
        ),
      );
      const outcomes = await Promise.all(calls);
      expect(outcomes.filter((o) => o !== 'OK' && !o.startsWith(`${grpc.status.UNAVAILABLE} Model with name slow is overloaded`))).toEqual([]);
      expect(outcomes.filter((o) => o !== 'OK').length).toBeGreaterThan(0);
      expect(outcomes.filter((o) => o === 'OK').length).toBeGreaterThanOrEqual(2);
    } finally {
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
    await new Promise<void>((resolve, reject) => probe.waitForReady(Date.now() + 5000, (e) => (e ? reject(e) : resolve())));
    expect(ch.getConnectivityState(false)).toBe(grpc.connectivityState.READY);
    let state = ch.getConnectivityState(false);
    for (let i = 0; i < 3 && state === grpc.connectivityState.READY; i++) {
      state = await new Promise((resolve) => ch.watchConnectivityState(state, Date.now() + 5000, () => resolve(ch.getConnectivityState(false))));
    }
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
      // Two clients send 1.2 MiB each of a 2.4 MiB body, then stall: 2.4 of the 3 MiB held.
      for (let i = 0; i < 2; i++) stalled.push(await sendPart(Math.floor(1.2 * 2 ** 20)));
      // Wait (bounded) until the server has read what they sent.
      const third = Buffer.alloc(1.5 * 2 ** 20, 0x20);
      let r: Awaited<ReturnType<typeof post>> | undefined;
      for (let i = 0; i < 50; i++) {
        r = await post(`${t.url}/v2/models/m/infer`, third, { 'content-type': 'application/json' });
        if (r.status === 503) break;
        await new Promise((res) => setTimeout(res, 100));
      }
      expectError(r as NonNullable<typeof r>, 503, /^Server is busy: the server already holds \d+ bytes of request bodies \(limit --rest_max_inflight_body_bytes 3145728\); retry later\.$/);
      expect(r?.headers.get('retry-after')).toBe('1');
      expect(await log.waitFor((l) => l['limit'] === '--rest_max_inflight_body_bytes')).toMatchObject({ level: 40, max: 3 * 2 ** 20 });
    } finally {
      for (const s of stalled) s.destroy();
    }
    // Their bytes are released with their connections: a large body is served again.
    const data = new Array(100_000).fill(0.25);
    let ok = 0;
    for (let i = 0; i < 50 && ok !== 200; i++) {
      ok = (await post(`${t.url}/v2/models/m/infer`, { inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, data.length], data }] })).status;
      if (ok !== 200) await new Promise((res) => setTimeout(res, 100));
    }
    expect(ok).toBe(200);
  });
});

it('the configured --max_tensor_elements reaches every transport: V2, V1 and gRPC', async () => {
  const repo = makeRepository({ m: 'identity_fp32' });
  const t = await startServer(['--model_repository', repo.dir, '--max_tensor_elements', '4'], { grpc: true });
  const c = grpcClient(t.grpcAddress as string);
  try {
    expectError(await post(`${t.url}/v2/models/m/infer`, { inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 5], data: [1, 2, 3, 4, 5] }] }), 413, /at most 4 are allowed per request \(limit --max_tensor_elements\)/);
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
