/**
 * The in-process request logger (KServe's agent logger without the sidecar) against a real
 * HTTP sink on loopback: the CloudEvents it posts for V1 and V2 requests and responses, each
 * --logger_mode, metadata headers; and a sink that is slow, down or failing never slows or
 * fails inference, while what was not delivered is counted in /metrics.
 */
import { type IncomingHttpHeaders, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { metricValue } from '../helpers/http.js';
import { IRIS_DIR, type TestServer, startServer } from '../helpers/server.js';
import { grpcClient } from '../grpc/client.js';
import { encodeModelInferRequest } from '../../protocols/grpc/wire/encode-infer.js';
import type { ModelInferRequestMessage } from '../../protocols/grpc/messages.js';

interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly raw: Buffer;
}

/**
 * A sink that records every event and answers as `answer` says (never, with a status...);
 * `abandoned` counts the requests whose sender closed the connection before an answer.
 */
async function startSink(
  answer: 'ok' | 'never' | 500 = 'ok',
): Promise<{ url: string; events: Received[]; answered: () => number; abandoned: () => number; close(): Promise<void> }> {
  const events: Received[] = [];
  let answered = 0;
  let abandoned = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    res.on('close', () => {
      if (!res.writableEnded) abandoned++;
    });
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      events.push({ headers: req.headers, body: raw.toString('utf8'), raw });
      if (answer === 'never') return;
      answered++;
      res.statusCode = answer === 'ok' ? 202 : answer;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/events`,
    events,
    answered: () => answered,
    abandoned: () => abandoned,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function serve(flags: string[]): Promise<TestServer> {
  const s = await startServer(['--model_name', 'iris', '--model_dir', IRIS_DIR, ...flags]);
  cleanups.push(() => s.close());
  return s;
}

const V1 = JSON.stringify({ instances: [[6.8, 2.8, 4.8, 1.4]] });
const V2 = JSON.stringify({ id: 'v2-req', inputs: [{ name: 'input', shape: [1, 4], datatype: 'FP32', data: [5.1, 3.5, 1.4, 0.2] }] });

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const loggerMetric = async (s: TestServer, outcome: string) => metricValue(await (await fetch(`${s.url}/metrics`)).text(), 'kserve_request_logger_events_total', { outcome });

describe('request logger events', () => {
  it("posts KServe's CloudEvents for V1 and V2 requests and responses, with the ISVC identity and metadata headers", async () => {
    const sink = await startSink();
    cleanups.push(() => sink.close());
    const s = await serve([
      '--logger_url',
      sink.url,
      '--logger_metadata_headers',
      'x-tenant,x-absent',
      '--logger_inference_service',
      'iris-isvc',
      '--logger_namespace',
      'ml',
      '--logger_component',
      'predictor',
      '--logger_endpoint',
      'default',
    ]);
    const v1 = await fetch(`${s.url}/v1/models/iris:predict`, { method: 'POST', body: V1, headers: { 'x-tenant': 'acme', 'x-request-id': 'r-1' } });
    const v1Body = await v1.text();
    expect(v1Body).toBe('{"predictions":[1]}');
    const v2 = await fetch(`${s.url}/v2/models/iris/infer`, { method: 'POST', body: V2, headers: { 'content-type': 'application/json', 'x-tenant': 'acme' } });
    const v2Body = await v2.text();
    expect(v2.status).toBe(200);
    await until('four events', () => sink.events.length === 4);

    const byType = (type: string) => sink.events.filter((e) => e.headers['ce-type'] === type);
    const requests = byType('org.kubeflow.serving.inference.request');
    const responses = byType('org.kubeflow.serving.inference.response');
    expect(requests.map((e) => e.body).sort()).toEqual([V1, V2].sort());
    expect(responses.map((e) => e.body).sort()).toEqual([v1Body, v2Body].sort());
    for (const e of sink.events) {
      expect(e.headers).toMatchObject({
        'ce-specversion': '1.0',
        'ce-inferenceservicename': 'iris-isvc',
        'ce-namespace': 'ml',
        'ce-component': 'predictor',
        'ce-endpoint': 'default',
        'content-type': 'application/json',
      });
      expect(e.headers['ce-source']).toMatch(/^http:\/\/localhost:\d+\/$/);
      expect(Number.isNaN(Date.parse(String(e.headers['ce-time'])))).toBe(false);
      expect(JSON.parse(String(e.headers['ce-metadata']))).toEqual({ 'x-tenant': ['acme'] });
    }
    // A request and its response share one id: the V2 request's own, which the response carries.
    const v2Id = (JSON.parse(v2Body) as { id: string }).id;
    expect(v2Id).toBe('v2-req');
    expect(
      sink.events
        .filter((e) => e.headers['ce-id'] === 'v2-req')
        .map((e) => e.headers['ce-type'])
        .sort(),
    ).toEqual(['org.kubeflow.serving.inference.request', 'org.kubeflow.serving.inference.response']);
    const v1Ids = new Set(sink.events.filter((e) => e.body === V1 || e.body === v1Body).map((e) => e.headers['ce-id']));
    expect(v1Ids.size).toBe(1);
    // Counted once the sink's answer is back, which is after the sink has the event.
    await until('four sent', async () => (await loggerMetric(s, 'sent')) === 4);
  });

  it.each([
    ['request', 'org.kubeflow.serving.inference.request'],
    ['response', 'org.kubeflow.serving.inference.response'],
  ])('--logger_mode %s sends only %s events', async (mode, type) => {
    const sink = await startSink();
    cleanups.push(() => sink.close());
    const s = await serve(['--logger_url', sink.url, '--logger_mode', mode]);
    for (let i = 0; i < 3; i++) expect((await fetch(`${s.url}/v1/models/iris:predict`, { method: 'POST', body: V1 })).status).toBe(200);
    await until('three events', () => sink.events.length >= 3);
    // A fourth request whose event, if the mode leaked, would be the other kind.
    expect((await fetch(`${s.url}/v1/models/iris:predict`, { method: 'POST', body: V1 })).status).toBe(200);
    await until('four events', () => sink.events.length >= 4);
    expect(new Set(sink.events.map((e) => e.headers['ce-type']))).toEqual(new Set([type]));
    expect(sink.events).toHaveLength(4);
  });
});

describe('a sink that misbehaves never touches inference', () => {
  it('a sink that never answers: every inference answered without waiting for it, a full queue drops, all counted', async () => {
    const sink = await startSink('never');
    cleanups.push(() => sink.close());
    // Sends would wait a minute: had inference waited on the sink, these requests would not be answered within the test.
    const s = await serve(['--logger_url', sink.url, '--logger_timeout_ms', '60000', '--logger_concurrency', '1', '--logger_queue_size', '2']);
    const n = 20;
    const answers = await Promise.all(Array.from({ length: n }, () => fetch(`${s.url}/v1/models/iris:predict`, { method: 'POST', body: V1 }).then((r) => r.status)));
    expect(answers).toEqual(Array(n).fill(200));
    expect(sink.answered()).toBe(0);
    // 40 events through one send in flight and a queue of 2: the other 37 are dropped.
    await until('37 drops counted', async () => (await loggerMetric(s, 'dropped')) === 2 * n - 3);
    // The one in flight reaches the sink, and no other while it waits for its answer.
    await until('the one event in flight at the sink', () => sink.events.length === 1);
    expect(sink.events).toHaveLength(1);
    expect(await loggerMetric(s, 'sent')).toBe(0);
  });

  it('a send that gets no answer within --logger_timeout_ms fails as a timeout and frees its slot', async () => {
    const sink = await startSink('never');
    cleanups.push(() => sink.close());
    const s = await serve(['--logger_url', sink.url, '--logger_timeout_ms', '300', '--logger_concurrency', '1', '--logger_mode', 'request']);
    for (let i = 0; i < 3; i++) expect((await fetch(`${s.url}/v1/models/iris:predict`, { method: 'POST', body: V1 })).status).toBe(200);
    // One slot, and a send's timeout starts when it leaves the queue: three timeouts are three
    // sends one after the other, each given up on (whether or not a loaded machine delivered
    // it to the sink within 300 ms, which is not what is tested here).
    await until('three timeouts', async () => (await loggerMetric(s, 'failed_timeout')) === 3);
    expect(await loggerMetric(s, 'sent')).toBe(0);
    expect(await loggerMetric(s, 'failed_connection')).toBe(0);
    // Every send that reached the sink was abandoned by the logger, not answered.
    await until('the logger to close what reached the sink', () => sink.abandoned() >= sink.events.length);
    expect(sink.events.length).toBeLessThanOrEqual(3);
  });

  it('a sink that is down: inference answers, connection failures counted', async () => {
    const sink = await startSink();
    const url = sink.url;
    await sink.close();
    const s = await serve(['--logger_url', url, '--logger_mode', 'request']);
    for (let i = 0; i < 5; i++) expect((await fetch(`${s.url}/v1/models/iris:predict`, { method: 'POST', body: V1 })).status).toBe(200);
    await until('five connection failures', async () => (await loggerMetric(s, 'failed_connection')) === 5);
  });

  it('a sink answering 500: inference answers, failures counted by status', async () => {
    const sink = await startSink(500);
    cleanups.push(() => sink.close());
    const s = await serve(['--logger_url', sink.url]);
    for (let i = 0; i < 3; i++) expect((await fetch(`${s.url}/v1/models/iris:predict`, { method: 'POST', body: V1 })).status).toBe(200);
    await until('six status failures', async () => (await loggerMetric(s, 'failed_status')) === 6);
    expect(sink.events).toHaveLength(6);
  });

  it('events still queued at shutdown are delivered within the grace period', async () => {
    const sink = await startSink();
    cleanups.push(() => sink.close());
    // A grace period no loaded machine needs to flush 20 events to a loopback sink; close returns once they are.
    const s = await startServer(['--model_name', 'iris', '--model_dir', IRIS_DIR, '--logger_url', sink.url, '--logger_concurrency', '1', '--grace_period_seconds', '60']);
    const answers = await Promise.all(Array.from({ length: 10 }, () => fetch(`${s.url}/v1/models/iris:predict`, { method: 'POST', body: V1 }).then((r) => r.status)));
    expect(answers).toEqual(Array(10).fill(200));
    await s.close();
    expect(sink.events).toHaveLength(20);
  });
});

describe('request logging per transport', () => {
  const grpcRequest = {
    id: 'grpc-req',
    model_name: 'iris',
    inputs: [{ name: 'input', datatype: 'FP32', shape: ['1', '4'], contents: { fp32_contents: [6.8, 2.8, 4.8, 1.4] } }],
  } as unknown as ModelInferRequestMessage;

  async function serveBoth(flags: string[]): Promise<TestServer> {
    const s = await startServer(['--model_name', 'iris', '--model_dir', IRIS_DIR, ...flags], { grpc: true });
    cleanups.push(() => s.close());
    return s;
  }

  it("gRPC is not logged by default, as KServe's HTTP-only agent", async () => {
    const sink = await startSink();
    cleanups.push(() => sink.close());
    // One send at a time: events reach the sink in the order they were logged.
    const s = await serveBoth(['--logger_url', sink.url, '--logger_concurrency', '1']);
    const client = grpcClient(s.grpcAddress as string);
    try {
      expect((await client.infer(grpcRequest)).id).toBe('grpc-req');
    } finally {
      client.close();
    }
    expect((await fetch(`${s.url}/v2/models/iris/infer`, { method: 'POST', body: V2, headers: { 'content-type': 'application/json' } })).status).toBe(200);
    await until('the V2 pair', () => sink.events.filter((e) => e.headers['ce-id'] === 'v2-req').length === 2);
    expect(sink.events.map((e) => e.headers['ce-id'])).toEqual(['v2-req', 'v2-req']);
  });

  it('--logger_grpc logs ModelInfer as its serialised request and response messages, under the response id', async () => {
    const sink = await startSink();
    cleanups.push(() => sink.close());
    const s = await serveBoth(['--logger_url', sink.url, '--logger_grpc']);
    const client = grpcClient(s.grpcAddress as string);
    let response;
    try {
      response = await client.infer(grpcRequest);
    } finally {
      client.close();
    }
    await until('two events', () => sink.events.length === 2);
    const byType = (type: string) => sink.events.find((e) => e.headers['ce-type'] === `org.kubeflow.serving.inference.${type}`) as Received;
    expect(byType('request').raw.equals(encodeModelInferRequest(grpcRequest))).toBe(true);
    expect(byType('response').raw.byteLength).toBeGreaterThan(0);
    for (const e of sink.events) {
      expect(e.headers['ce-id']).toBe('grpc-req');
      expect(e.headers['content-type']).toBe('application/x-protobuf');
    }
    expect(response.outputs.map((o) => o.name).sort()).toEqual(['label', 'probabilities']);
  });
});

describe('logger flags', () => {
  it.each([
    [['--logger_url', 'not a url'], '--logger_url must be an absolute http(s) URL'],
    [['--logger_url', 'ftp://sink/'], '--logger_url must be an http or https URL'],
    [['--logger_url', 'http://127.0.0.1:9/', '--logger_mode', 'sometimes'], '--logger_mode must be one of all, request, response'],
  ])('%j is refused at start-up', async (flags, message) => {
    await expect(startServer(['--model_name', 'iris', '--model_dir', IRIS_DIR, ...flags])).rejects.toThrow(message);
  });
});
