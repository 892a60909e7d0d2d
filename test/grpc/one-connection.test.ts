/**
 * Many large calls in flight on ONE HTTP/2 connection, as tritonclient and perf_analyzer send
 * them (issue 19): 32–128 concurrent 588 KiB ModelInfer uploads, answered with no stream reset
 * and no failure. The server runs as its own process (the built CLI) so that client and server
 * do not share an event loop; a frame tap between them counts RST_STREAM and GOAWAY frames per
 * direction, which tells who reset a stream.
 *
 * The reproduction: resets seen under this load earlier came from the client's own session,
 * not the server. A node:http2 client with Node's default per-session memory (10 MB) cannot
 * hold 64 uploads of 588 KiB while they wait to be sent; its session then refuses the answers'
 * headers and resets those streams with ENHANCE_YOUR_CALM (the frames go client → server).
 * grpc-js channels and the benchmark's client lift that limit.
 */
import http2 from 'node:http2';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_SESSION_MEMORY_MB, encodeInfer, inferOn } from '../../benchmarks/grpc/pre-encoded-client.js';
import type { ModelInferRequestMessage } from '../../protocols/grpc/messages.js';
import { freePort } from '../helpers/free-port.js';
import { type FrameTap, startFrameTap } from '../helpers/h2-frame-tap.js';
import { type CliProcess, restPort, runCli } from '../helpers/process.js';
import { makeRepository } from '../helpers/server.js';
import { waitFor } from '../helpers/wait-for.js';
import { grpcClient } from './client.js';

const ENHANCE_YOUR_CALM = 11;
const IMAGE_BYTES = 3 * 224 * 224 * 4;
/** Calls per run: each slot sends this many in turn, so every run is bounded in count. */
const ROUNDS = 4;
/**
 * Bounds a run in time as a hang would be caught, never as a result: a slow or loaded machine
 * answers the same calls later, not fewer of them (a 60 s cut-off inside the loop once left a
 * loaded run short of its count).
 */
const RUN_TIMEOUT_MS = 600_000;

const repo = makeRepository({ conv: 'conv_small' });
const request: ModelInferRequestMessage = {
  model_name: 'conv',
  inputs: [{ name: 'input', datatype: 'FP32', shape: ['1', '3', '224', '224'] }],
  raw_input_contents: [Buffer.alloc(IMAGE_BYTES, 1)],
};
const framed = encodeInfer(request);

let server: CliProcess;
let grpcAddress: string;

beforeAll(async () => {
  const grpcPort = await freePort();
  server = runCli([
    'serve',
    '--model_name',
    'conv',
    '--model_dir',
    path.join(repo.dir, 'conv'),
    '--http_port',
    '0',
    '--http_host',
    '127.0.0.1',
    '--grpc_port',
    String(grpcPort),
    '--intra_op_threads',
    '1',
  ]);
  const port = await restPort(server);
  // Bounded: a model that never becomes ready fails here, as a timeout.
  await waitFor(() => fetch(`http://127.0.0.1:${port}/v2/models/conv/ready`).then((r) => r.ok), {
    timeoutMs: 120_000,
    intervalMs: 100,
    description: 'the conv model to be ready',
  });
  grpcAddress = `127.0.0.1:${grpcPort}`;
}, 180_000);

afterAll(async () => {
  server?.child.kill('SIGTERM');
  await server?.exited;
  repo.cleanup();
});

interface Outcome {
  answered: number;
  failures: Map<string, number>;
}

/** Runs `inFlight` slots, each making ROUNDS calls one after the other; never throws. */
async function drive(inFlight: number, call: () => Promise<void>): Promise<Outcome> {
  const outcome: Outcome = { answered: 0, failures: new Map() };
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      for (let i = 0; i < ROUNDS; i++) {
        try {
          await call();
          outcome.answered++;
        } catch (e) {
          const key = String((e as { code?: number }).code ?? (e as Error).message);
          outcome.failures.set(key, (outcome.failures.get(key) ?? 0) + 1);
        }
      }
    }),
  );
  return outcome;
}

/** `inFlight` raw calls at a time on one node:http2 session through a frame tap; the tap's counts outlive it. */
async function rawRun(inFlight: number, options: http2.ClientSessionOptions): Promise<{ outcome: Outcome; tap: FrameTap }> {
  const tap = await startFrameTap(grpcAddress);
  const session = http2.connect(`http://${tap.address}`, options);
  session.on('error', () => {});
  try {
    return { outcome: await drive(inFlight, async () => void (await inferOn(session, framed))), tap };
  } finally {
    session.destroy();
    await tap.close();
  }
}

function resets(tap: FrameTap, direction: 'clientToServer' | 'serverToClient'): number {
  return [...tap[direction].resets.values()].reduce((a, b) => a + b, 0);
}

describe('many large calls on one HTTP/2 connection', () => {
  for (const inFlight of [32, 128]) {
    it(
      `${inFlight} calls in flight on one grpc-js channel: all answered, no stream reset either way`,
      async () => {
        const tap = await startFrameTap(grpcAddress);
        const client = grpcClient(tap.address, { 'grpc.max_send_message_length': 8 << 20, 'grpc.max_receive_message_length': 8 << 20 });
        try {
          const outcome = await drive(inFlight, async () => {
            const res = await client.infer(request);
            if (res.outputs[0]?.name !== 'output') throw new Error('no output');
          });
          expect(Object.fromEntries(outcome.failures)).toEqual({});
          expect(outcome.answered).toBe(inFlight * ROUNDS);
          expect(resets(tap, 'serverToClient')).toBe(0);
          expect(resets(tap, 'clientToServer')).toBe(0);
          expect(tap.serverToClient.goaways.size).toBe(0);
        } finally {
          client.close();
          await tap.close();
        }
      },
      RUN_TIMEOUT_MS + 10_000,
    );
  }

  it(
    '128 calls in flight on one node:http2 session with the session memory the benchmark client sets: no reset',
    async () => {
      const { outcome, tap } = await rawRun(128, { maxSessionMemory: CLIENT_SESSION_MEMORY_MB });
      expect(Object.fromEntries(outcome.failures)).toEqual({});
      expect(outcome.answered).toBe(128 * ROUNDS);
      expect(resets(tap, 'serverToClient')).toBe(0);
      expect(resets(tap, 'clientToServer')).toBe(0);
    },
    RUN_TIMEOUT_MS + 10_000,
  );

  it(
    "with Node's default session memory against the server: whatever the client's session does, the server resets none and keeps serving",
    async () => {
      // Whether this client's session runs out of memory depends on how fast the server drains
      // the uploads (it did on AMD EPYC VMs, never on an Intel Xeon one), so only what must hold
      // everywhere is asserted here; the client-side failure is reproduced deterministically below.
      const { outcome, tap } = await rawRun(64, {});
      const failed = [...outcome.failures.values()].reduce((a, b) => a + b, 0);
      expect(outcome.answered + failed).toBe(64 * ROUNDS);
      expect(resets(tap, 'serverToClient')).toBe(0);
      expect(tap.serverToClient.goaways.size).toBe(0);
      const client = grpcClient(grpcAddress, { 'grpc.max_send_message_length': 8 << 20 });
      try {
        expect((await client.infer(request)).outputs[0]?.name).toBe('output');
      } finally {
        client.close();
      }
    },
    RUN_TIMEOUT_MS + 10_000,
  );
});

/**
 * The reproduction, made independent of the machine's speed: a bare node:http2 peer that
 * answers each call with headers at once and reads no upload until all 64 calls have arrived,
 * so the client's session still holds (nearly) all 64 × 588 KiB when the first answers reach
 * it, whatever the processor. With Node's default 10 MB session memory the client then
 * refuses the answers' headers and resets every stream with ENHANCE_YOUR_CALM; with the
 * benchmark client's setting it takes them all. The peer records the code each stream closed
 * with, which is the reset the client sent (the peer itself resets nothing).
 */
describe("reproduction: a client session with Node's default memory resets the streams itself", () => {
  const CALLS = 64;
  let held: http2.Http2Server;
  let heldAddress: string;
  let closedWith: number[] = [];
  let onClosed = (): void => {};

  beforeAll(async () => {
    held = http2.createServer();
    let waiting: http2.ServerHttp2Stream[] = [];
    held.on('stream', (stream) => {
      stream.on('error', () => {});
      stream.pause();
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      stream.on('data', () => {});
      stream.on('end', () => stream.end(Buffer.alloc(5)));
      stream.on('close', () => {
        closedWith.push(stream.rstCode ?? 0);
        onClosed();
      });
      waiting.push(stream);
      if (waiting.length === CALLS) {
        for (const s of waiting) s.resume();
        waiting = [];
      }
    });
    await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
    heldAddress = `http://127.0.0.1:${(held.address() as { port: number }).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => held.close(resolve));
  });

  /** CALLS uploads at once on one session to the held peer; resolves once the peer has seen every stream close. */
  async function heldRun(options: http2.ClientSessionOptions): Promise<{ outcome: Outcome; closed: number[] }> {
    closedWith = [];
    const allClosed = new Promise<void>((resolve) => {
      onClosed = () => closedWith.length === CALLS && resolve();
    });
    const session = http2.connect(heldAddress, options);
    session.on('error', () => {});
    const outcome: Outcome = { answered: 0, failures: new Map() };
    try {
      await Promise.all(
        Array.from({ length: CALLS }, () =>
          inferOn(session, framed).then(
            () => void outcome.answered++,
            (e: unknown) => {
              const key = String((e as { code?: number }).code ?? (e as Error).message);
              outcome.failures.set(key, (outcome.failures.get(key) ?? 0) + 1);
            },
          ),
        ),
      );
      await allClosed;
      return { outcome, closed: closedWith };
    } finally {
      session.destroy();
    }
  }

  const count = (codes: number[], code: number) => codes.filter((c) => c === code).length;

  it(
    'default memory: every stream reset by the client with ENHANCE_YOUR_CALM',
    async () => {
      const { outcome, closed } = await heldRun({});
      expect(outcome.answered).toBe(0);
      expect(Object.fromEntries(outcome.failures)).toEqual({ ERR_HTTP2_STREAM_ERROR: CALLS });
      expect(count(closed, ENHANCE_YOUR_CALM)).toBe(CALLS);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    "the benchmark client's session memory: all answered, no stream reset",
    async () => {
      const { outcome, closed } = await heldRun({ maxSessionMemory: CLIENT_SESSION_MEMORY_MB });
      expect(Object.fromEntries(outcome.failures)).toEqual({});
      expect(outcome.answered).toBe(CALLS);
      expect(count(closed, 0)).toBe(CALLS);
    },
    RUN_TIMEOUT_MS,
  );
});
