/**
 * Calls whose framing, not message, is malformed (#27 item 10): a compressed message that
 * does not decompress, a grpc-timeout that is not a timeout. grpc-js answers both INTERNAL,
 * as grpc-go does; both are the client's fault, so here they are INVALID_ARGUMENT naming the
 * defect, and the server keeps serving. A valid gzip-compressed call is still served.
 */
import http2 from 'node:http2';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeModelInferRequest } from '../../protocols/grpc/wire/encode-infer.js';
import { type TestServer, makeRepository, startServer } from '../../test/helpers/server.js';

const repo = makeRepository({ m: 'identity_fp32' });
let t: TestServer;
beforeAll(async () => {
  t = await startServer(['--model_repository', repo.dir], { grpc: true });
});
afterAll(async () => {
  await t?.close();
  repo.cleanup();
});

const valid = encodeModelInferRequest({
  model_name: 'm',
  inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 2], contents: { fp32_contents: Float32Array.from([1, 2]) } }],
});

/** One raw ModelInfer call: its grpc-status and grpc-message. */
function call(headers: http2.OutgoingHttpHeaders, message: Buffer, compressed: boolean): Promise<{ status: string | undefined; message: string }> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`http://${t.grpcAddress}`);
    session.on('error', reject);
    const stream = session.request({ ':method': 'POST', ':path': '/inference.GRPCInferenceService/ModelInfer', 'content-type': 'application/grpc', te: 'trailers', ...headers });
    let status: string | undefined;
    let text = '';
    const take = (h: http2.IncomingHttpHeaders) => {
      status ??= h['grpc-status'] as string | undefined;
      if (h['grpc-message'] !== undefined) text = decodeURIComponent(String(h['grpc-message']));
    };
    stream.on('response', take);
    stream.on('trailers', take);
    stream.resume();
    stream.on('close', () => {
      session.close();
      resolve({ status, message: text });
    });
    const prefix = Buffer.alloc(5);
    prefix[0] = compressed ? 1 : 0;
    prefix.writeUInt32BE(message.length, 1);
    stream.end(Buffer.concat([prefix, message]));
  });
}

describe('malformed gRPC calls', () => {
  it.each([
    ['gzip', Buffer.from('this is not gzip data')],
    ['deflate', Buffer.from('nor is this deflate')],
  ])('a message compressed with %s that does not decompress is INVALID_ARGUMENT', async (encoding, garbage) => {
    const r = await call({ 'grpc-encoding': encoding }, garbage, true);
    expect(r).toEqual({ status: '3', message: `the request message does not decompress as ${encoding} (grpc-encoding)` });
  });

  it.each(['xyz', '', '123456789S', '5X', '-1S'])('grpc-timeout %j is INVALID_ARGUMENT', async (timeout) => {
    const r = await call({ 'grpc-timeout': timeout }, valid, false);
    expect(r.status).toBe('3');
    expect(r.message).toMatch(/^the grpc-timeout header .* is not a timeout: 1 to 8 digits and a unit \(H, M, S, m, u, n\)$/);
  });

  it('still serves a gzip-compressed call and one with a valid grpc-timeout', async () => {
    expect((await call({ 'grpc-encoding': 'gzip' }, gzipSync(valid), true)).status).toBe('0');
    expect((await call({ 'grpc-timeout': '10S' }, valid, false)).status).toBe('0');
  });
});
