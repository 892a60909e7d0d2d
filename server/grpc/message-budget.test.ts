/**
 * --grpc_max_inflight_message_bytes: stalled uploads cannot hold more than the budget over
 * all connections; a call that would pass it is reset (RESOURCE_EXHAUSTED for gRPC
 * clients), calls within it are served, and the bytes are released when a call ends.
 * Each step waits (bounded) for the bytes the server reports holding
 * (kserve_request_bytes_held), never for a time in which they should have arrived.
 */
import http2 from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grpcClient } from '../../test/grpc/client.js';
import { untilBytesHeld } from '../../test/helpers/held-bytes.js';
import { type LogLines, logLines } from '../../test/helpers/log-lines.js';
import { type TestServer, makeRepository, startServer } from '../../test/helpers/server.js';

const MiB = 1024 * 1024;
let t: TestServer;
let repo: ReturnType<typeof makeRepository>;
let log: LogLines;

beforeAll(async () => {
  repo = makeRepository({ m: 'identity_fp32' });
  log = logLines();
  t = await startServer(['--model_repository', repo.dir, '--grpc_max_inflight_message_bytes', String(4 * MiB)], { grpc: true, logger: log.logger });
});

afterAll(async () => {
  await t?.close();
  repo?.cleanup();
});

/** Starts a ModelInfer upload that sends `bytes` of a larger message and then stalls. */
function stalledUpload(bytes: number): { closed: Promise<number>; session: http2.ClientHttp2Session } {
  const session = http2.connect(`http://${t.grpcAddress}`);
  session.on('error', () => undefined);
  const stream = session.request({ ':method': 'POST', ':path': '/inference.GRPCInferenceService/ModelInfer', 'content-type': 'application/grpc', te: 'trailers' });
  stream.on('error', () => undefined);
  const frame = Buffer.alloc(5);
  frame.writeUInt32BE(bytes * 2, 1); // declares twice what it sends: the message never completes
  stream.write(frame);
  stream.write(Buffer.alloc(bytes, 1));
  const closed = new Promise<number>((resolve) => stream.once('close', () => resolve(stream.rstCode ?? -1)));
  return { closed, session };
}

describe('gRPC in-flight message budget', () => {
  it('resets a stalled upload past the budget and keeps serving the others', async () => {
    const first = stalledUpload(3 * MiB);
    const sessions = [first.session];
    try {
      // The server holds all its bytes (the 5-byte message prefix and 3 MiB): as the budget counts them.
      await untilBytesHeld(t.server, 'grpc', 3 * MiB + 5);
      const second = stalledUpload(2 * MiB);
      sessions.push(second.session);
      expect(await second.closed).toBe(http2.constants.NGHTTP2_ENHANCE_YOUR_CALM);
      expect(await log.waitFor((l) => l['limit'] === '--grpc_max_inflight_message_bytes')).toMatchObject({ level: 40, max: 4 * MiB });
      // A small call still fits beside the stalled 3 MiB.
      const c = grpcClient(t.grpcAddress as string);
      try {
        const r = await c.infer({ model_name: 'm', inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 16], contents: { fp32_contents: new Array(16).fill(1) } }] });
        expect(r.outputs?.[0]?.name).toBeDefined();
        // Once the stalled call ends, its bytes are released: a 3.5 MiB call fits again.
        first.session.destroy();
        await first.closed;
        await untilBytesHeld(t.server, 'grpc', 0);
        const n = Math.floor((3.5 * MiB) / 4);
        const big = await c.infer({ model_name: 'm', inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [n / 16, 16] }], raw_input_contents: [Buffer.alloc(n * 4)] });
        expect(big.outputs?.[0]?.shape?.map(Number)).toEqual([n / 16, 16]);
      } finally {
        c.close();
      }
    } finally {
      for (const s of sessions) s.destroy();
    }
  });
});
