/**
 * The predictor clients (server/predictor-client/) against real servers on loopback: our ONNX
 * iris server over V1, V2 REST and gRPC (same numbers as asking it directly), and small
 * real HTTP / gRPC servers written here that record what reached them, answer slowly, fail
 * a set number of times, refuse with 4xx, or never answer (for the client going away).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KServeError } from '../../protocols/errors.js';
import { loadProtocolDefinition } from '../../protocols/grpc/proto.js';
import type { Tensor } from '../../protocols/tensor.js';
import type { ClientSignal } from '../../server/client-signal.js';
import type { ForwardRequest, PredictorClient } from '../../server/predictor-client/predictor-client.js';
import type { PredictorConfig } from '../../server/predictor-client/predictor-config.js';
import { createPredictorClient } from '../../server/predictor-client/predictor-clients.js';
import { freePort } from '../helpers/free-port.js';
import { IRIS_DIR, type TestServer, startServer } from '../helpers/server.js';

const ROWS = [
  [6.8, 2.8, 4.8, 1.4],
  [5.1, 3.5, 1.4, 0.2],
];
const irisInput: Tensor = { name: 'input', datatype: 'FP32', shape: [2, 4], data: Float32Array.from(ROWS.flat()) };

function forward(over: Partial<ForwardRequest> = {}): ForwardRequest {
  return { modelName: 'iris', id: 'req-1', parameters: undefined, inputs: [irisInput], outputs: [], headers: {}, signal: undefined, ...over };
}

class FlagSignal implements ClientSignal {
  aborted = false;
}

const clients: PredictorClient[] = [];
function client(config: PredictorConfig): PredictorClient {
  const c = createPredictorClient(config);
  clients.push(c);
  return c;
}

async function rejection(p: Promise<unknown>): Promise<KServeError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(KServeError);
  return err as KServeError;
}

/** A real HTTP server on loopback whose handler the test writes; it records every request. */
interface Recorder {
  readonly port: number;
  readonly requests: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }>;
  /** Requests whose connection closed before the handler answered. */
  abandoned: number;
  close(): Promise<void>;
}

async function recorder(handle: (req: http.IncomingMessage, res: http.ServerResponse, n: number) => void): Promise<Recorder> {
  const state: Recorder = {
    port: 0,
    requests: [],
    abandoned: 0,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString('utf8')));
    req.on('end', () => {
      state.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.on('close', () => {
        if (!res.writableEnded) state.abandoned++;
      });
      handle(req, res, state.requests.length);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  (state as { port: number }).port = (server.address() as AddressInfo).port;
  return state;
}

type GrpcHandler = (call: grpc.ServerUnaryCall<unknown, unknown>, cb: grpc.sendUnaryData<unknown>) => void;

/** A real gRPC inference server on loopback whose ModelInfer the test writes. */
async function grpcPredictor(modelInfer: GrpcHandler): Promise<{ port: number; close(): void }> {
  const pkg = grpc.loadPackageDefinition(loadProtocolDefinition()) as unknown as { inference: { GRPCInferenceService: { service: grpc.ServiceDefinition } } };
  const server = new grpc.Server();
  server.addService(pkg.inference.GRPCInferenceService.service, { ModelInfer: modelInfer });
  const port = await new Promise<number>((r, j) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? j(e) : r(p))));
  return { port, close: () => server.forceShutdown() };
}

const GRPC_ANSWER = { model_name: 'iris', id: 'req-1', outputs: [{ name: 'y', datatype: 'FP32', shape: ['1'], contents: { fp32_contents: [0.5] } }] };

const V2_ANSWER = JSON.stringify({ model_name: 'iris', id: 'req-1', outputs: [{ name: 'label', shape: [1], datatype: 'INT64', data: [2] }] });

let predictor: TestServer;
beforeAll(async () => {
  predictor = await startServer(['--model_name', 'iris', '--model_dir', IRIS_DIR], { grpc: true });
}, 60_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await predictor.close();
});

describe('forwarding to the ONNX predictor', () => {
  const host = () => predictor.url.replace('http://', '');

  it('V1: instances go, predictions come back as the predictor answers them directly', async () => {
    const direct = (await (await fetch(`${predictor.url}/v1/models/iris:predict`, { method: 'POST', body: JSON.stringify({ instances: ROWS }) })).json()) as {
      predictions: number[];
    };
    const res = await client({ host: host(), protocol: 'v1' }).infer(forward());
    expect(res.outputs).toHaveLength(1);
    const out = res.outputs[0] as Tensor;
    expect(out.name).toBe('predictions');
    expect(out.shape).toEqual([2]);
    expect(Array.from(out.data as Float64Array)).toEqual(direct.predictions);
  });

  it('V2 REST: the same outputs as a V2 request sent directly', async () => {
    const direct = (await (
      await fetch(`${predictor.url}/v2/models/iris/infer`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ inputs: [{ name: 'input', shape: [2, 4], datatype: 'FP32', data: ROWS.flat() }] }),
      })
    ).json()) as { outputs: Array<{ name: string; data: number[] }> };
    const res = await client({ host: host(), protocol: 'v2' }).infer(forward({ outputs: [{ name: 'label' }, { name: 'probabilities' }] }));
    expect(res.id).toBe('req-1');
    expect(res.outputs.map((o) => o.name)).toEqual(['label', 'probabilities']);
    const label = res.outputs[0] as Tensor;
    expect(label.datatype).toBe('INT64');
    expect(Array.from(label.data as BigInt64Array, Number)).toEqual(direct.outputs.find((o) => o.name === 'label')?.data);
    expect(Array.from(res.outputs[1]?.data as Float32Array)).toEqual(direct.outputs.find((o) => o.name === 'probabilities')?.data);
  });

  it('gRPC: the same outputs over one reused channel', async () => {
    const rest = await client({ host: host(), protocol: 'v2' }).infer(forward());
    const c = client({ host: predictor.grpcAddress as string, protocol: 'grpc-v2' });
    for (let i = 0; i < 3; i++) {
      const res = await c.infer(forward());
      expect(res.outputs.map((o) => [o.name, o.datatype, o.shape])).toEqual(rest.outputs.map((o) => [o.name, o.datatype, o.shape]));
      expect(res.outputs.map((o) => Array.from(o.data as ArrayLike<number | bigint>))).toEqual(rest.outputs.map((o) => Array.from(o.data as ArrayLike<number | bigint>)));
    }
  });

  it('readiness follows the predictor over each protocol', async () => {
    expect(await client({ host: host(), protocol: 'v1' }).ready()).toBe(true);
    expect(await client({ host: host(), protocol: 'v2' }).ready()).toBe(true);
    expect(await client({ host: predictor.grpcAddress as string, protocol: 'grpc-v2' }).ready()).toBe(true);
    const down = `127.0.0.1:${await freePort()}`;
    expect(await client({ host: down, protocol: 'v2', requestTimeoutSeconds: 2 }).ready()).toBe(false);
    expect(await client({ host: down, protocol: 'grpc-v2', requestTimeoutSeconds: 2 }).ready()).toBe(false);
  });
});

describe('headers', () => {
  it("REST: the request id, B3 trace id and authorization go on, nothing else; the predictor's id comes back", async () => {
    const rec = await recorder((_req, res) => res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'from-predictor', 'x-other': 'no' }).end(V2_ANSWER));
    try {
      const res = await client({ host: `127.0.0.1:${rec.port}`, protocol: 'v2' }).infer(
        forward({ headers: { 'x-request-id': 'rid-7', 'x-b3-traceid': 'trace-9', authorization: 'Bearer t' } }),
      );
      const seen = rec.requests[0];
      expect(seen?.url).toBe('/v2/models/iris/infer');
      expect(seen?.headers['x-request-id']).toBe('rid-7');
      expect(seen?.headers['x-b3-traceid']).toBe('trace-9');
      expect(seen?.headers['authorization']).toBe('Bearer t');
      expect(seen?.headers['content-type']).toBe('application/json');
      expect(JSON.parse(seen?.body ?? '{}')).toMatchObject({ id: 'req-1', inputs: [{ name: 'input', datatype: 'FP32', shape: [2, 4] }] });
      expect(res.headers).toEqual({ 'x-request-id': 'from-predictor' });
    } finally {
      await rec.close();
    }
  });

  it("gRPC: the same headers as metadata, with KServe's request_type / response_type", async () => {
    const seen: Record<string, unknown>[] = [];
    const p = await grpcPredictor((call, cb) => {
      seen.push(call.metadata.getMap());
      const md = new grpc.Metadata();
      md.set('x-request-id', 'grpc-predictor');
      call.sendMetadata(md);
      cb(null, GRPC_ANSWER);
    });
    try {
      const res = await client({ host: `127.0.0.1:${p.port}`, protocol: 'grpc-v2' }).infer(forward({ headers: { 'x-request-id': 'rid-8', 'x-b3-traceid': 'trace-8' } }));
      expect(seen[0]).toMatchObject({ 'x-request-id': 'rid-8', 'x-b3-traceid': 'trace-8', request_type: 'grpc_v2', response_type: 'grpc_v2' });
      expect(res.outputs[0]).toMatchObject({ name: 'y', shape: [1] });
      expect(Array.from(res.outputs[0]?.data as Float32Array)).toEqual([0.5]);
      expect(res.headers).toEqual({ 'x-request-id': 'grpc-predictor' });
    } finally {
      p.close();
    }
  });
});

describe('failures', () => {
  it('a slow predictor is PredictorTimeout (504 / DEADLINE_EXCEEDED) after the timeout, not a hang', async () => {
    const rec = await recorder(() => undefined);
    try {
      const err = await rejection(client({ host: `127.0.0.1:${rec.port}`, protocol: 'v2', requestTimeoutSeconds: 1, retries: 2 }).infer(forward()));
      expect(err.kind).toBe('PredictorTimeout');
      expect(err.httpStatus).toBe(504);
      expect(err.grpcCode).toBe(4);
      // A timed-out request may have run: never sent again. (It was sent before the timeout;
      // on a loaded machine the recorder, in this process, may read it only now.)
      await expect.poll(() => rec.requests.length, { timeout: 30_000 }).toBeGreaterThan(0);
      expect(rec.requests).toHaveLength(1);
    } finally {
      await rec.close();
    }
  });

  it('a predictor that is down is PredictorUnreachable (502 / UNAVAILABLE) over REST and gRPC', async () => {
    const down = `127.0.0.1:${await freePort()}`;
    for (const protocol of ['v1', 'v2', 'grpc-v2'] as const) {
      const err = await rejection(client({ host: down, protocol, requestTimeoutSeconds: 5, retries: 1 }).infer(forward()));
      expect(err.kind, protocol).toBe('PredictorUnreachable');
      expect(err.httpStatus).toBe(502);
      expect(err.grpcCode).toBe(14);
    }
  });

  it('retries: a predictor answering 503 twice is tried three times with --predictor_request_retries 2, once with 0', async () => {
    const rec = await recorder((_req, res, n) => {
      if (n % 3 !== 0) res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"Model with name iris is not ready."}');
      else res.writeHead(200, { 'content-type': 'application/json' }).end(V2_ANSWER);
    });
    try {
      const res = await client({ host: `127.0.0.1:${rec.port}`, protocol: 'v2', retries: 2 }).infer(forward());
      expect(res.outputs[0]?.name).toBe('label');
      expect(rec.requests).toHaveLength(3);
      const err = await rejection(client({ host: `127.0.0.1:${rec.port}`, protocol: 'v2', retries: 0 }).infer(forward()));
      expect(err.kind).toBe('ModelNotReady');
      expect(err.message).toBe('Model with name iris is not ready.');
      expect(rec.requests).toHaveLength(4);
    } finally {
      await rec.close();
    }
  });

  it("a predictor's 4xx keeps its status and message; its 500 is PredictorError", async () => {
    const rec = await recorder((req, res) => {
      if (req.url?.includes(':predict')) res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"Expected \\"instances\\" to be a list"}');
      else res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"boom"}');
    });
    try {
      const bad = await rejection(client({ host: `127.0.0.1:${rec.port}`, protocol: 'v1', retries: 3 }).infer(forward()));
      expect(bad.kind).toBe('InvalidInput');
      expect(bad.httpStatus).toBe(400);
      expect(bad.message).toBe('Expected "instances" to be a list');
      const failed = await rejection(client({ host: `127.0.0.1:${rec.port}`, protocol: 'v2', retries: 3 }).infer(forward()));
      expect(failed.kind).toBe('PredictorError');
      expect(failed.httpStatus).toBe(502);
      expect(failed.message).toContain('boom');
      // Neither a 400 nor a 500 is tried again.
      expect(rec.requests).toHaveLength(2);
    } finally {
      await rec.close();
    }
  });

  it('gRPC: UNAVAILABLE is tried again (three attempts with retries 2), INVALID_ARGUMENT keeps its code and message, never retried', async () => {
    let calls = 0;
    const p = await grpcPredictor((call, cb) => {
      calls++;
      const md = call.metadata.getMap();
      if (md['x-case'] === 'bad') cb({ code: grpc.status.INVALID_ARGUMENT, details: 'unexpected input x' });
      else if (calls % 3 !== 0) cb({ code: grpc.status.UNAVAILABLE, details: 'not ready' });
      else cb(null, GRPC_ANSWER);
    });
    try {
      const c = client({ host: `127.0.0.1:${p.port}`, protocol: 'grpc-v2', retries: 2 });
      const res = await c.infer(forward());
      expect(res.outputs[0]?.name).toBe('y');
      expect(calls).toBe(3);
      const bad = await rejection(c.infer(forward({ headers: { 'x-case': 'bad' } })));
      expect(bad.kind).toBe('InvalidInput');
      expect(bad.grpcCode).toBe(3);
      expect(bad.message).toBe('unexpected input x');
      expect(calls).toBe(4);
    } finally {
      p.close();
    }
  });

  it('gRPC: a slow predictor is PredictorTimeout after the timeout, sent once', async () => {
    let calls = 0;
    const p = await grpcPredictor(() => {
      calls++;
    });
    try {
      const err = await rejection(client({ host: `127.0.0.1:${p.port}`, protocol: 'grpc-v2', requestTimeoutSeconds: 1, retries: 2 }).infer(forward()));
      expect(err.kind).toBe('PredictorTimeout');
      expect(err.grpcCode).toBe(4);
      await expect.poll(() => calls, { timeout: 30_000 }).toBeGreaterThan(0);
      expect(calls).toBe(1);
    } finally {
      p.close();
    }
  });

  it('a malformed answer is PredictorError, not a crash', async () => {
    const rec = await recorder((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"outputs":[{"name":"y","shape":[3],"datatype":"FP32","data":[1]}]}'),
    );
    try {
      const err = await rejection(client({ host: `127.0.0.1:${rec.port}`, protocol: 'v2' }).infer(forward()));
      expect(err.kind).toBe('PredictorError');
      expect(err.message).toContain('malformed answer');
    } finally {
      await rec.close();
    }
  });

  it('the client going away aborts the forwarded call (REST connection closed at the predictor, gRPC call cancelled)', async () => {
    const rec = await recorder(() => undefined);
    let cancelled = 0;
    let arrived = 0;
    const p = await grpcPredictor((call) => {
      arrived++;
      call.on('cancelled', () => cancelled++);
    });
    try {
      for (const [protocol, target] of [
        ['v2', `127.0.0.1:${rec.port}`],
        ['grpc-v2', `127.0.0.1:${p.port}`],
      ] as const) {
        const signal = new FlagSignal();
        const pending = rejection(client({ host: target, protocol, requestTimeoutSeconds: 60 }).infer(forward({ signal })));
        // Abort only once the call is at the predictor, so it is the call that is aborted.
        await expect.poll(() => (protocol === 'v2' ? rec.requests.length : arrived), { timeout: 10_000 }).toBe(1);
        signal.aborted = true;
        const err = await pending;
        expect(err.kind, protocol).toBe('Cancelled');
      }
      await expect.poll(() => rec.abandoned, { timeout: 10_000 }).toBe(1);
      await expect.poll(() => cancelled, { timeout: 10_000 }).toBe(1);
    } finally {
      p.close();
      await rec.close();
    }
  });
});
