/**
 * ModelInfer served below grpc-js (direct-unary.ts) against grpc-js itself, on one real
 * server: every call is sent twice, once as it comes (the direct path) and once declaring
 * `grpc-encoding: gzip` with an uncompressed message (valid gRPC, and a call the direct
 * path leaves to grpc-js), and both answers must be the same: status, message, response
 * headers and body. A third group shows the direct path is the one taking plain calls.
 */
import http2 from 'node:http2';
import * as grpc from '@grpc/grpc-js';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeModelInferResponse } from '../../protocols/grpc/wire/decode-infer.js';
import { encodeModelInferRequest } from '../../protocols/grpc/wire/encode-infer.js';
import { ModelGate } from '../../test/helpers/model-gate.js';
import { type TestServer, makeRepository, startServer } from '../../test/helpers/server.js';
import { messagePrefix } from '../../test/grpc/raw-call.js';
import { serveUnaryDirectly } from './direct-unary.js';
import { newHttp2Servers } from './flow-control.js';

const MODEL_INFER = '/inference.GRPCInferenceService/ModelInfer';
const MAX_RECEIVE = 1024 * 1024;

/** An answer without what differs per response (the generated response id). */
function comparable(a: Answer): object {
  if (a.body.length === 0) return a;
  const { id: _id, ...message } = decodeModelInferResponse(a.body.subarray(5));
  return { ...a, body: message, length: a.body.readUInt32BE(1) - a.body.length + 5 };
}

interface Answer {
  status: string | undefined;
  message: string;
  /** Response headers a client sees, without the ones that vary per response. */
  headers: Record<string, string>;
  body: Buffer;
}

/** One raw call: `messages` framed and sent, the stream ended unless `keepOpen`. */
function call(address: string, headers: http2.OutgoingHttpHeaders, messages: Buffer[], path = MODEL_INFER): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`http://${address}`);
    session.on('error', reject);
    const stream = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers', ...headers });
    const answer: Answer = { status: undefined, message: '', headers: {}, body: Buffer.alloc(0) };
    const chunks: Buffer[] = [];
    const take = (h: http2.IncomingHttpHeaders) => {
      answer.status ??= h['grpc-status'] as string | undefined;
      if (h['grpc-message'] !== undefined) answer.message = decodeURIComponent(String(h['grpc-message']));
      for (const [k, v] of Object.entries(h)) if (k !== 'date' && k !== 'grpc-status' && k !== 'grpc-message') answer.headers[k] = String(v);
    };
    stream.on('response', take);
    stream.on('trailers', take);
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('error', () => undefined);
    stream.on('close', () => {
      session.close();
      answer.body = Buffer.concat(chunks);
      resolve(answer);
    });
    stream.end(Buffer.concat(messages.flatMap((m) => [messagePrefix(m.length), m])));
  });
}

const request = (model: string, values: number[], extra: object = {}) =>
  encodeModelInferRequest({
    model_name: model,
    inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, values.length], contents: { fp32_contents: Float32Array.from(values) } }],
    ...extra,
  });

describe('ModelInfer below grpc-js, answered as grpc-js answers it', () => {
  const repo = makeRepository({ m: 'identity_fp32' });
  const gate = new ModelGate();
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer(['--model_repository', repo.dir, '--grpc_max_receive_message_length', String(MAX_RECEIVE)], { grpc: true, backends: gate.backends() });
  });
  afterAll(async () => {
    gate.release();
    await t?.close();
    repo.cleanup();
  });

  /** The same call both ways: [direct, grpc-js]. */
  const both = (headers: http2.OutgoingHttpHeaders, messages: Buffer[]) =>
    Promise.all([call(t.grpcAddress as string, headers, messages), call(t.grpcAddress as string, { ...headers, 'grpc-encoding': 'gzip' }, messages)]);

  it('answers a valid call with the same headers, body and trailers', async () => {
    const [direct, grpcJs] = await both({ 'x-request-id': 'abc' }, [request('m', [1, 2, 3])]);
    expect(direct.status).toBe('0');
    expect(comparable(direct)).toEqual(comparable(grpcJs));
    const out = decodeModelInferResponse(direct.body.subarray(5));
    expect(Array.from(out.outputs[0]?.contents?.fp32_contents ?? [])).toEqual([1, 2, 3]);
    expect(direct.body.readUInt32BE(1)).toBe(direct.body.length - 5);
  });

  it('answers a large raw tensor (a pooled, transferred buffer) with the same bytes', async () => {
    const values = Array.from({ length: 150_528 }, (_, i) => (i % 251) / 7);
    const raw = Buffer.from(Float32Array.from(values).buffer);
    const message = encodeModelInferRequest({ model_name: 'm', inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, values.length] }], raw_input_contents: [raw] });
    for (let i = 0; i < 3; i++) {
      const [direct, grpcJs] = await both({}, [message]);
      expect(direct.status).toBe('0');
      expect(comparable(direct)).toEqual(comparable(grpcJs));
      const out = decodeModelInferResponse(direct.body.subarray(5));
      expect(Buffer.from(out.raw_output_contents[0] as Uint8Array).equals(raw)).toBe(true);
    }
  });

  it.each([
    ['an unknown model', [request('nope', [1])]],
    ['an undecodable message', [Buffer.from([0x0a, 0x40, 0x61])]],
    ['no message', []],
    ['two messages', [request('m', [1]), request('m', [2])]],
    ['a message over --grpc_max_receive_message_length', [Buffer.alloc(MAX_RECEIVE + 1)]],
  ])('answers %s with the same status and message', async (_what, messages) => {
    const [direct, grpcJs] = await both({}, messages);
    expect(direct.status).not.toBe('0');
    expect({ status: direct.status, message: direct.message }).toEqual({ status: grpcJs.status, message: grpcJs.message });
  });

  it('answers a call whose grpc-timeout passes while the model holds it DEADLINE_EXCEEDED, and the model sees the client gone', async () => {
    gate.hold();
    try {
      const answers = both({ 'grpc-timeout': '300m' }, [request('m', [1])]);
      const held = await gate.untilHeld(2);
      const [direct, grpcJs] = await answers;
      expect(direct.status).toBe(String(grpc.status.DEADLINE_EXCEEDED));
      expect({ status: direct.status, message: direct.message }).toEqual({ status: grpcJs.status, message: grpcJs.message });
      for (const h of held) expect(h.context?.signal?.aborted).toBe(true);
    } finally {
      gate.release();
    }
  });

  it('passes request metadata to the model as grpc-js does, reserved headers removed', async () => {
    gate.hold();
    try {
      const answers = both({ 'x-trace': 't1', 'grpc-timeout': '60S' }, [request('m', [1])]);
      const held = await gate.untilHeld(2);
      const seen = held.map((h) => h.context?.headers);
      expect(seen[0]).toEqual(seen[1]);
      expect(seen[0]?.['x-trace']).toBe('t1');
      for (const reserved of ['grpc-timeout', 'grpc-encoding', 'content-type', 'te']) expect(seen[0]?.[reserved]).toBeUndefined();
      gate.release();
      const [direct, grpcJs] = await answers;
      expect(comparable(direct)).toEqual(comparable(grpcJs));
    } finally {
      gate.release();
    }
  });
});

describe('which layer serves a call', () => {
  const service = {
    ModelInfer: {
      path: MODEL_INFER,
      requestStream: false,
      responseStream: false,
      requestSerialize: (b: Buffer) => b,
      requestDeserialize: (b: Buffer) => b,
      responseSerialize: (b: Buffer) => b,
      responseDeserialize: (b: Buffer) => b,
    },
  } satisfies grpc.ServiceDefinition;
  let server: grpc.Server;
  let address: string;
  let installed = false;
  beforeAll(async () => {
    server = new grpc.Server();
    server.addService(service, { ModelInfer: (_call: unknown, cb: grpc.sendUnaryData<Buffer>) => cb(null, Buffer.from('grpc-js')) });
    const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
    address = `127.0.0.1:${port}`;
    const handlers = new Map([[MODEL_INFER, (message: Buffer) => Promise.resolve(Buffer.concat([Buffer.from('direct:'), message]))]]);
    for (const h2 of newHttp2Servers(server)) installed = serveUnaryDirectly(h2, { handlers, maxReceiveMessageLength: -1, logger: pino({ level: 'silent' }) });
  });
  afterAll(() => server.forceShutdown());

  it('takes over grpc-js 1.x stream handler', () => {
    expect(installed).toBe(true);
  });

  it('serves a plain call of a listed method itself', async () => {
    const r = await call(address, {}, [Buffer.from('x')]);
    expect(r.status).toBe('0');
    expect(r.body.subarray(5).toString()).toBe('direct:x');
  });

  it.each<[string, http2.OutgoingHttpHeaders]>([
    ['a compressed call', { 'grpc-encoding': 'gzip' }],
    ['a call that is not POST', { ':method': 'PUT' }],
  ])('leaves %s to grpc-js', async (_what, headers) => {
    const r = await call(address, headers, [Buffer.from('x')]);
    expect(r.body.subarray(5).toString()).toBe('grpc-js');
  });

  it('leaves a method it does not list to grpc-js (UNIMPLEMENTED)', async () => {
    const r = await call(address, {}, [Buffer.from('x')], '/inference.GRPCInferenceService/ServerLive');
    expect(r.status).toBe(String(grpc.status.UNIMPLEMENTED));
  });

  it('leaves a content type that is not gRPC to grpc-js (415)', async () => {
    const r = await call(address, { 'content-type': 'text/plain' }, [Buffer.from('x')]);
    expect(r.headers[':status']).toBe('415');
  });
});
