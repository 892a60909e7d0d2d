/**
 * gRPC lockouts (#27 items 1 and 2): attacks that health probes and a real client on fresh
 * connections keep getting through. Small bounds: 16 connections, a 2 s receive and send
 * deadline, a 4 MiB in-flight budget. Every step waits on an event (a PING answered after the
 * server saw the call, a stream's close, a log line).
 *
 * The connection flood runs on a server without a receive deadline, so which mechanism ends
 * a stalled call (closed to make room, or the deadline) is never decided by how fast the
 * attack's connections open; the deadline is shown on its own, below the connection limit.
 */
import http2 from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeModelInferRequest } from '../../protocols/grpc/wire/encode-infer.js';
import { grpcClient } from '../grpc/client.js';
import { messagePrefix, rawModelInfer } from '../grpc/raw-call.js';
import { untilBytesHeld } from '../helpers/held-bytes.js';
import { type LogLines, logLines } from '../helpers/log-lines.js';
import { type TestServer, makeRepository, startServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait-for.js';

const MAX = 16;
const MiB = 1024 * 1024;
const repo = makeRepository({ m: 'identity_fp32' });
/** A server with the small bounds and a receive deadline of `receiveTimeout` s (0: none). */
async function start(receiveTimeout: number): Promise<{ t: TestServer; log: LogLines }> {
  const log = logLines();
  const t = await startServer(
    [
      '--model_repository',
      repo.dir,
      '--grpc_max_connections',
      String(MAX),
      '--receive_timeout_seconds',
      String(receiveTimeout),
      '--send_timeout_seconds',
      '2',
      '--grpc_max_inflight_message_bytes',
      String(4 * MiB),
    ],
    { grpc: true, logger: log.logger },
  );
  return { t, log };
}
let t: TestServer;
let log: LogLines;
let noDeadline: Awaited<ReturnType<typeof start>>;
beforeAll(async () => {
  ({ t, log } = await start(2));
  noDeadline = await start(0);
});
afterAll(async () => {
  await t?.close();
  await noDeadline?.t.close();
  repo.cleanup();
});

interface Stalled {
  /** The server had the call (a PING sent after it was answered) before the connection closed. */
  readonly seen: boolean;
  /** The call's grpc-status once it ends (undefined: reset or cut without one). */
  readonly status: Promise<string | undefined>;
  readonly session: http2.ClientHttp2Session;
}

/** A connection with one ModelInfer call that sends `sent` bytes of a `declared`-byte message, then stalls. */
async function stalledCall(sent: number, declared = 2 * sent, server = t): Promise<Stalled> {
  const session = http2.connect(`http://${server.grpcAddress}`);
  session.on('error', () => undefined);
  const { stream, status } = rawModelInfer(session);
  stream.write(Buffer.concat([messagePrefix(declared), Buffer.alloc(sent - 5, 1)]));
  const seen = await new Promise<boolean>((resolve) => {
    session.once('close', () => resolve(false));
    const ping = () => {
      if (!session.ping((err) => resolve(err === null))) resolve(false);
    };
    if (session.connecting) session.once('connect', ping);
    else ping();
  });
  return { seen, status, session };
}

async function probe(server = t): Promise<void> {
  const c = grpcClient(server.grpcAddress as string);
  try {
    expect(await c.healthCheck('')).toBe('SERVING');
    expect(await c.call('ServerReady')).toEqual({ ready: true });
    const r = await c.infer({ model_name: 'm', inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 2], contents: { fp32_contents: [1, 2] } }] });
    expect(r.outputs?.[0]?.name).toBe('OUTPUT0');
  } finally {
    c.close();
  }
}

describe('gRPC under stalled calls', () => {
  it('an upload that fills --grpc_max_inflight_message_bytes and stalls is ended past the receive deadline, its connection still open: a large call fits again', async () => {
    const stalled = await stalledCall(Math.floor(3.5 * MiB));
    try {
      expect(stalled.seen).toBe(true);
      expect(await stalled.status).toBe('4');
      // The attacker's connection is still up (it could keep it alive with PINGs)...
      expect(stalled.session.closed || stalled.session.destroyed).toBe(false);
      // ...but its bytes are released (the server's own count says so): a 3.5 MiB call fits
      // in the 4 MiB budget again.
      await untilBytesHeld(t.server, 'grpc', 0);
      const c = grpcClient(t.grpcAddress as string);
      try {
        const n = (3.5 * MiB) / 4;
        const big = await c.infer({ model_name: 'm', inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [n / 16, 16] }], raw_input_contents: [Buffer.alloc(n * 4)] });
        expect(big.outputs?.[0]?.shape?.map(Number)).toEqual([n / 16, 16]);
      } finally {
        c.close();
      }
    } finally {
      stalled.session.destroy();
    }
  }, 60_000);

  it('connections past --grpc_max_connections with one unfinished call each never lock out probes or a client; the oldest are answered UNAVAILABLE and closed to make room', async () => {
    const server = noDeadline.t;
    const attack: Stalled[] = [];
    try {
      for (let i = 0; i < 2 * MAX; i++) attack.push(await stalledCall(6, 1005, server));
      // Every call reached the server (no connection refused): older ones made room.
      expect(attack.map((a) => a.seen)).toEqual(new Array(2 * MAX).fill(true));
      await probe(server);
      // At most MAX connections are open at once and nothing else ends a stalled call here:
      // at least MAX of the 2 × MAX were closed to make room, each call answered UNAVAILABLE.
      const ended: Array<string | undefined> = [];
      for (const a of attack) void a.status.then((st) => ended.push(st));
      await waitFor(() => ended.length, { until: (n) => n >= MAX, intervalMs: 20, description: `${MAX} stalled calls ended` });
      expect(ended.filter((st) => st !== '14')).toEqual([]);
    } finally {
      for (const a of attack) a.session.destroy();
    }
    expect(await noDeadline.log.waitFor((l) => l['limit'] === '--grpc_max_connections' && l['closed'] === 'receiving')).toMatchObject({ level: 40, max: MAX });
  }, 60_000);

  it('stalled calls end DEADLINE_EXCEEDED past --receive_timeout_seconds, their connections kept, probes and a client answered meanwhile; renewed, the same', async () => {
    const sessions: http2.ClientHttp2Session[] = [];
    try {
      // Twice: the attack renewed after the deadline has cut the first round. Half the
      // connection limit each time, so nothing but the deadline ends them.
      for (let round = 0; round < 2; round++) {
        const attack: Stalled[] = [];
        for (let i = 0; i < MAX / 2; i++) attack.push(await stalledCall(6, 1005));
        sessions.push(...attack.map((a) => a.session));
        expect(attack.map((a) => a.seen)).toEqual(new Array(MAX / 2).fill(true));
        await probe();
        expect(await Promise.all(attack.map((a) => a.status))).toEqual(new Array(MAX / 2).fill('4'));
        expect(attack.filter((a) => a.session.closed || a.session.destroyed)).toEqual([]);
        for (const a of attack) a.session.destroy();
      }
    } finally {
      for (const s of sessions) s.destroy();
    }
    expect(await log.waitFor((l) => l['limit'] === '--receive_timeout_seconds' && l['transport'] === 'grpc')).toMatchObject({ level: 40, seconds: 2 });
  }, 60_000);

  it('a response the client grants no window for is reset past --send_timeout_seconds, probes answered meanwhile', async () => {
    // 1 MiB out, and the client never reads: the server's stream stops at the 64 KiB window.
    const n = 2 ** 18;
    const message = encodeModelInferRequest({ model_name: 'm', inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [n / 16, 16] }], raw_input_contents: [Buffer.alloc(4 * n)] });
    const session = http2.connect(`http://${t.grpcAddress}`);
    session.on('error', () => undefined);
    try {
      const stream = session.request({ ':method': 'POST', ':path': '/inference.GRPCInferenceService/ModelInfer', 'content-type': 'application/grpc', te: 'trailers' });
      stream.on('error', () => undefined);
      stream.pause();
      const closed = new Promise<number | undefined>((resolve) => stream.once('close', () => resolve(stream.rstCode)));
      const prefix = Buffer.alloc(5);
      prefix.writeUInt32BE(message.length, 1);
      stream.end(Buffer.concat([prefix, message]));
      await probe();
      expect(await log.waitFor((l) => l['limit'] === '--send_timeout_seconds')).toMatchObject({ level: 40, seconds: 2, transport: 'grpc' });
      expect(await closed).toBe(http2.constants.NGHTTP2_CANCEL);
    } finally {
      session.destroy();
    }
  }, 60_000);
});
