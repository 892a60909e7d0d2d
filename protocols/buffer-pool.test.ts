/**
 * The pool of large request buffers: size classes, reuse, its bounds, and the round trip on
 * a real server (a 588 KiB gRPC raw tensor to an ONNX model on its worker thread: the
 * message's buffer goes to the worker and comes back to the pool, once per call, never more).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http2 from 'node:http2';
import { messagePrefix } from '../test/grpc/raw-call.js';
import { decodeModelInferResponse } from './grpc/wire/decode-infer.js';
import { encodeModelInferRequest } from './grpc/wire/encode-infer.js';
import { type TestServer, makeRepository, startServer } from '../test/helpers/server.js';
import { POOLED_MAX, POOLED_MIN, giveBuffer, pooledBufferBytes, sizeClass, takeBuffer } from './buffer-pool.js';

describe('size classes', () => {
  it.each([
    [POOLED_MIN, POOLED_MIN],
    [POOLED_MIN + 1, POOLED_MIN + POOLED_MIN / 8],
    [602_145 + 5 + 63, 655_360],
    [1024 * 1024, 1024 * 1024],
    [1024 * 1024 + 1, 1024 * 1024 + 128 * 1024],
  ])('%i bytes take a class of %i', (bytes, size) => {
    expect(sizeClass(bytes)).toBe(size);
    expect(size).toBeGreaterThanOrEqual(bytes);
    expect(size / bytes).toBeLessThanOrEqual(1.125);
  });

  it('leaves sizes outside the pooled range as they are', () => {
    expect(sizeClass(100)).toBe(100);
    expect(sizeClass(POOLED_MAX + 1)).toBe(POOLED_MAX + 1);
  });
});

describe('reuse', () => {
  it('hands a buffer given back to the next take of its class, and only once', () => {
    const before = pooledBufferBytes();
    const a = takeBuffer(300_000);
    giveBuffer(a);
    expect(pooledBufferBytes()).toBe(before + a.byteLength);
    expect(takeBuffer(299_000)).toBe(a);
    expect(takeBuffer(299_000)).not.toBe(a);
    expect(pooledBufferBytes()).toBe(before);
  });

  it('keeps no buffer that is not a class size, too small, or detached', () => {
    const before = pooledBufferBytes();
    giveBuffer(new ArrayBuffer(300_001));
    giveBuffer(new ArrayBuffer(1024));
    const moved = takeBuffer(POOLED_MIN);
    structuredClone(moved, { transfer: [moved] });
    giveBuffer(moved);
    expect(pooledBufferBytes()).toBe(before);
  });

  it('keeps at most 64 MiB', () => {
    const before = pooledBufferBytes();
    const taken = Array.from({ length: 40 }, () => takeBuffer(4 * 1024 * 1024));
    for (const b of taken) giveBuffer(b);
    expect(pooledBufferBytes()).toBeLessThanOrEqual(64 * 1024 * 1024);
    expect(pooledBufferBytes()).toBeGreaterThan(before);
    // Empty it again for the tests after this one.
    for (let i = 0; i < 40; i++) takeBuffer(4 * 1024 * 1024);
  });
});

describe('a large gRPC tensor on a real server', () => {
  const repo = makeRepository({ m: 'identity_fp32' });
  const values = Float32Array.from({ length: 150_528 }, (_, i) => i % 97);
  const raw = Buffer.from(values.buffer);
  let onWorker: TestServer;
  beforeAll(async () => {
    // --inline_max_us 0: the model always runs on its worker thread.
    onWorker = await startServer(['--model_repository', repo.dir, '--inline_max_us', '0'], { grpc: true });
  });
  afterAll(async () => {
    await onWorker?.close();
    repo.cleanup();
  });

  const message = encodeModelInferRequest({ model_name: 'm', inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, values.length] }], raw_input_contents: [raw] });
  /**
   * One call on a raw HTTP/2 session, its answer's raw output: a grpc-js client in this
   * process would assemble the 588 KiB answer in a pooled buffer of its own (the assembly is
   * process-wide), which is reuse too, but not what these tests count.
   */
  const send = async (t: TestServer): Promise<Buffer> => {
    const session = http2.connect(`http://${t.grpcAddress as string}`);
    try {
      const stream = session.request({ ':method': 'POST', ':path': '/inference.GRPCInferenceService/ModelInfer', 'content-type': 'application/grpc', te: 'trailers' });
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.end(Buffer.concat([messagePrefix(message.length), message]));
      await new Promise((resolve) => stream.once('close', resolve));
      const res = decodeModelInferResponse(Buffer.concat(chunks).subarray(5));
      return Buffer.from(res.raw_output_contents[0] ?? []);
    } finally {
      session.close();
    }
  };

  it('returns the message buffer from the worker to the pool, one buffer however many calls', async () => {
    const before = pooledBufferBytes();
    for (let i = 0; i < 5; i++) {
      expect((await send(onWorker)).equals(raw)).toBe(true);
      // Back by the time the answer is sent: the worker returns it with the result. (The
      // message's field tags and alignment pad keep it in the tensor's size class.)
      expect(pooledBufferBytes() - before).toBe(sizeClass(raw.byteLength));
    }
  });
});
