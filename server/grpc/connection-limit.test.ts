/**
 * --grpc_max_connections: a flood of idle HTTP/2 connections is bounded (the oldest idle
 * ones are closed to make room), a call in progress is never cut to make room, and a fresh
 * client still gets answers.
 */
import http2 from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grpcClient } from '../../test/grpc/client.js';
import { type TestServer, makeRepository, startServer } from '../../test/helpers/server.js';

const MAX = 16;
let t: TestServer;
let repo: ReturnType<typeof makeRepository>;

beforeAll(async () => {
  repo = makeRepository({ slow: 'slow_matmul', m: 'identity_fp32' });
  t = await startServer(['--model_repository', repo.dir, '--grpc_max_connections', String(MAX), '--grpc_max_receive_message_length', String(64 << 20), '--grpc_max_send_message_length', String(64 << 20)], { grpc: true });
});

afterAll(async () => {
  await t?.close();
  repo?.cleanup();
});

/** A raw HTTP/2 connection that completes the handshake and then sends nothing. */
function idleSession(): Promise<http2.ClientHttp2Session> {
  return new Promise((resolve) => {
    const s = http2.connect(`http://${t.grpcAddress}`);
    s.on('error', () => undefined);
    s.once('connect', () => resolve(s));
    s.once('close', () => resolve(s));
  });
}

describe('gRPC connection limit', () => {
  it('keeps at most the limit of idle connections open and still answers a new client', async () => {
    const sessions: http2.ClientHttp2Session[] = [];
    try {
      for (let i = 0; i < 100; i++) sessions.push(await idleSession());
      const open = () => sessions.filter((s) => !s.closed && !s.destroyed).length;
      for (let i = 0; i < 100 && open() > MAX; i++) await new Promise((r) => setTimeout(r, 50));
      expect(open()).toBeLessThanOrEqual(MAX);
      const c = grpcClient(t.grpcAddress as string);
      try {
        expect(await c.call('ServerLive')).toEqual({ live: true });
      } finally {
        c.close();
      }
    } finally {
      for (const s of sessions) s.destroy();
    }
  });

  it('never closes a connection with a call in progress to make room', async () => {
    const busy = grpcClient(t.grpcAddress as string, { 'grpc.max_send_message_length': 64 << 20, 'grpc.max_receive_message_length': 64 << 20 });
    const sessions: http2.ClientHttp2Session[] = [];
    try {
      const rows = 2048;
      const call = busy.infer({
        model_name: 'slow',
        inputs: [{ name: 'X', datatype: 'FP32', shape: [rows, 1024] }],
        raw_input_contents: [Buffer.from(new Float32Array(rows * 1024).fill(1).buffer)],
      } as never);
      // While it runs, flood past the limit: the idle ones make room, the busy one stays.
      await new Promise((r) => setTimeout(r, 50));
      for (let i = 0; i < 3 * MAX; i++) sessions.push(await idleSession());
      const res = await call;
      expect(res.outputs?.[0]?.shape?.map(Number)).toEqual([rows, 1024]);
    } finally {
      for (const s of sessions) s.destroy();
      busy.close();
    }
  }, 60_000);
});
