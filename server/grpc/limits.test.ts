/** --grpc_max_receive_message_length / --grpc_max_send_message_length: RESOURCE_EXHAUSTED, never a crash. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GrpcTestClient, grpc, grpcClient, grpcError } from '../../test/grpc/client.js';
import http2 from 'node:http2';
import path from 'node:path';
import { type TestServer, makeRepository, startServer } from '../../test/helpers/server.js';
import { CONNECTION_WINDOW, STREAM_WINDOW } from './flow-control.js';

const repo = makeRepository({ identity: 'identity_fp32' });
const MODEL_DIR = path.join(repo.dir, 'identity');
afterAll(() => repo.cleanup());

function identityRequest(bytes: number) {
  return {
    model_name: 'identity',
    inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, bytes / 4] }],
    raw_input_contents: [Buffer.alloc(bytes, 1)],
  };
}

describe('small configured limits', () => {
  let t: TestServer;
  let c: GrpcTestClient;
  beforeAll(async () => {
    t = await startServer(['--model_name', 'identity', '--model_dir', MODEL_DIR, '--grpc_max_receive_message_length', '16384', '--grpc_max_send_message_length', '4096'], {
      grpc: true,
    });
    c = grpcClient(t.grpcAddress as string);
  });
  afterAll(async () => {
    c?.close();
    await t?.close();
  });

  it('serves messages within both limits', async () => {
    const res = await c.infer(identityRequest(2048));
    expect(res.raw_output_contents[0]?.byteLength).toBe(2048);
  });

  it('refuses a request over the receive limit with RESOURCE_EXHAUSTED', async () => {
    const err = await grpcError(c.infer(identityRequest(32 * 1024)));
    expect(err.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(err.details).toMatch(/larger than max \(\d+ vs 16384\)/);
  });

  it('refuses a response over the send limit with RESOURCE_EXHAUSTED and counts it', async () => {
    const err = await grpcError(c.infer(identityRequest(8 * 1024)));
    expect(err.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(err.details).toMatch(/^Response of \d+ bytes is larger than the limit of 4096 bytes \(--grpc_max_send_message_length\)$/);
    expect(await t.server.metrics.render()).toContain('kserve_inference_requests_total{model_name="identity",protocol="grpc",status_code="413"} 1');
  });

  it('keeps serving after refusing oversize messages', async () => {
    expect(await c.call('ServerLive')).toEqual({ live: true });
    const res = await c.infer(identityRequest(1024));
    expect(res.raw_output_contents[0]?.byteLength).toBe(1024);
  });
});

describe('default limits', () => {
  it('refuses requests over 8 MiB, like the anchor', async () => {
    const t = await startServer(['--model_name', 'identity', '--model_dir', MODEL_DIR], { grpc: true });
    const c = grpcClient(t.grpcAddress as string);
    try {
      const err = await grpcError(c.infer(identityRequest(8 * 1024 * 1024 + 4096)));
      expect(err.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
      expect(err.details).toMatch(/vs 8388608\)/);
    } finally {
      c.close();
      await t.close();
    }
  });
});

describe('flow control', () => {
  it('advertises wide HTTP/2 receive windows so large uploads do not stall every 64 KiB', async () => {
    const t = await startServer(['--model_name', 'identity', '--model_dir', MODEL_DIR], { grpc: true });
    const session = http2.connect(`http://${t.grpcAddress as string}`);
    try {
      await new Promise<void>((resolve, reject) => {
        session.once('remoteSettings', () => resolve());
        session.once('error', reject);
      });
      // A ping round trip: the server's connection WINDOW_UPDATE precedes its ping ack.
      await new Promise<void>((resolve, reject) => session.ping((err) => (err ? reject(err) : resolve())));
      expect(session.remoteSettings.initialWindowSize).toBe(STREAM_WINDOW);
      expect(session.state.remoteWindowSize).toBe(CONNECTION_WINDOW);
    } finally {
      session.close();
      await t.close();
    }
  });
});
