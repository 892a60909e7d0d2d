/**
 * --grpc_max_connections: a flood of idle HTTP/2 connections is bounded (the oldest idle
 * ones are closed to make room), a call in progress is never cut to make room, and a fresh
 * client still gets answers. The calls in progress are held at the model (ModelGate) while
 * new connections arrive, so they are in progress by construction, however fast the machine.
 */
import http2 from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeModelInferRequest } from '../../protocols/grpc/wire/encode-infer.js';
import { grpcClient } from '../../test/grpc/client.js';
import { messagePrefix, rawModelInfer } from '../../test/grpc/raw-call.js';
import { ModelGate } from '../../test/helpers/model-gate.js';
import { type TestServer, makeRepository, startServer } from '../../test/helpers/server.js';
import { waitFor } from '../../test/helpers/wait-for.js';

const MAX = 16;
let t: TestServer;
let repo: ReturnType<typeof makeRepository>;

const gate = new ModelGate();

beforeAll(async () => {
  repo = makeRepository({ m: 'identity_fp32' });
  t = await startServer(['--model_repository', repo.dir, '--grpc_max_connections', String(MAX)], { grpc: true, backends: gate.backends() });
});

afterAll(async () => {
  gate.release();
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

/** Sends one whole ModelInfer call on `session`; `status` is its grpc-status once it ends. */
async function callOn(session: http2.ClientHttp2Session): Promise<{ session: http2.ClientHttp2Session; status: Promise<string | undefined> }> {
  const message = encodeModelInferRequest({
    model_name: 'm',
    inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 16], contents: { fp32_contents: new Array<number>(16).fill(1) } }],
  });
  const { stream, status } = rawModelInfer(session);
  stream.end(Buffer.concat([messagePrefix(message.length), message]));
  return { session, status };
}

describe('gRPC connection limit', () => {
  it('keeps at most the limit of idle connections open and still answers a new client', async () => {
    const sessions: http2.ClientHttp2Session[] = [];
    try {
      for (let i = 0; i < 100; i++) sessions.push(await idleSession());
      // The server has closed the others; their clients see it as it arrives.
      const open = () => sessions.filter((s) => !s.closed && !s.destroyed).length;
      await waitFor(open, { until: (n) => n <= MAX, intervalMs: 50, description: `at most ${MAX} of the 100 connections open` });
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

  it('never closes a connection with a call in progress to make room: with every connection busy, a new one is refused', async () => {
    const busy: Array<{ session: http2.ClientHttp2Session; status: Promise<string | undefined> }> = [];
    gate.hold();
    try {
      // MAX connections, each with a call in progress (held at the model) before the next
      // opens: any idle connection left from before has been closed to make room for them.
      for (let i = 0; i < MAX; i++) {
        busy.push(await callOn(await idleSession()));
        await gate.untilHeld(i + 1);
      }
      // No idle connection to close: the new one is refused, none of the busy ones cut.
      // Whichever the server does first: refuse the newcomer or end a held call.
      const newcomer = await idleSession();
      const refused = new Promise<string>((resolve) =>
        newcomer.closed || newcomer.destroyed ? resolve('newcomer refused') : newcomer.once('close', () => resolve('newcomer refused')),
      );
      const first = await Promise.race([refused, ...busy.map((b, i) => b.status.then((st) => `busy call ${i} ended with grpc-status ${st}`))]);
      expect(first).toBe('newcomer refused');
      expect(busy.filter((b) => b.session.closed || b.session.destroyed)).toEqual([]);
      gate.release();
      expect(await Promise.all(busy.map((b) => b.status))).toEqual(new Array(MAX).fill('0'));
    } finally {
      gate.release();
      for (const b of busy) b.session.destroy();
    }
  });
});
