/**
 * Malformed ModelInfer messages against a real server: the wire codec's refusals reach the
 * client as INVALID_ARGUMENT naming the defect, and the server keeps answering.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grpc } from '../../test/grpc/client.js';
import { type TestServer, makeRepository, startServer } from '../../test/helpers/server.js';
import { decodeModelInferResponse } from '../../protocols/grpc/wire/decode-infer.js';
import { encodeModelInferRequest } from '../../protocols/grpc/wire/encode-infer.js';

const repo = makeRepository({ identity: 'identity_fp32' });
afterAll(() => repo.cleanup());

describe('undecodable ModelInfer requests', () => {
  let t: TestServer;
  let client: grpc.Client;
  beforeAll(async () => {
    t = await startServer(['--model_name', 'identity', '--model_dir', path.join(repo.dir, 'identity')], { grpc: true });
    client = new grpc.Client(t.grpcAddress as string, grpc.credentials.createInsecure());
  });
  afterAll(async () => {
    client?.close();
    await t?.close();
  });

  const send = (message: Buffer) =>
    new Promise<{ err: grpc.ServiceError | null; res: Buffer | undefined }>((resolve) => {
      const same = (b: Buffer) => b;
      client.makeUnaryRequest('/inference.GRPCInferenceService/ModelInfer', same, same, message, (err, res) => resolve({ err, res }));
    });

  const valid = encodeModelInferRequest({
    model_name: 'identity',
    inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 2], contents: { fp32_contents: Float32Array.from([1, 2]) } }],
  });

  const cases: [string, Buffer, RegExp][] = [
    ['a truncated varint', Buffer.from([0x48, 0x80]), /truncated varint/],
    ['a length past the end', Buffer.from([0x0a, 0x40, 0x61]), /length 64 past the end of the message/],
    ['a nested length past its parent', Buffer.concat([Buffer.from([0x2a, 0x03, 0x0a, 0x05, 0x61]), Buffer.alloc(8)]), /length 5 past the end/],
    ['a wrong wire type for model_name', Buffer.from([0x08, 0x01]), /field 1 has wire type 0/],
    ['a valid message cut short', valid.subarray(0, valid.length - 3), /past the end|truncated/],
  ];
  it.each(cases)('answers %s with INVALID_ARGUMENT', async (_what, message, reason) => {
    const { err } = await send(message);
    expect(err?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(err?.details).toMatch(/^the request is not a valid ModelInferRequest message: /);
    expect(err?.details).toMatch(reason);
  });

  it('still serves a valid message, answered through the same codec', async () => {
    const { err, res } = await send(valid);
    expect(err).toBeNull();
    const answer = decodeModelInferResponse(res as Buffer);
    expect(answer.outputs.map((o) => [o.name, o.shape, Array.from(o.contents?.fp32_contents ?? [])])).toEqual([['OUTPUT0', ['1', '2'], [1, 2]]]);
  });
});
