/**
 * REST and HTTPS lockouts (#27 items 3 and 4): attacks that probes on fresh connections and
 * a real client keep getting through. Small bounds: 16 connections, a 2 s receive and send
 * deadline. Every step waits on an event (the server's 100 Continue, a socket's close, a log
 * line), never on a clock.
 *
 * The connection flood runs on a server without a receive deadline, so which mechanism ends
 * a stalled body (closed to make room, or the deadline) is never decided by how fast the
 * attack's connections open; the deadline is shown on its own, below the connection limit.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { type Socket, connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LogLines, logLines } from '../helpers/log-lines.js';
import { type TestServer, makeRepository, startServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait-for.js';

const MAX = 16;
const PROBES = ['/v2/health/live', '/v2/health/ready', '/v2/models/m/ready'];
const certDir = mkdtempSync(path.join(tmpdir(), 'kserve-ts-lockout-'));
const repo = makeRepository({ m: 'identity_fp32' });
afterAll(() => {
  repo.cleanup();
  rmSync(certDir, { recursive: true, force: true });
});

type Dial = (port: number) => Socket;
const plain: Dial = (port) => connect(port, '127.0.0.1');
const secure: Dial = (port) => tlsConnect({ port, host: '127.0.0.1', rejectUnauthorized: false });

/** Everything the server writes on `s` until it closes. */
function collect(s: Socket): { text(): string; closed: Promise<string> } {
  let out = '';
  s.on('error', () => undefined);
  s.on('data', (d: Buffer) => (out += d.toString('latin1')));
  return { text: () => out, closed: new Promise((resolve) => s.once('close', () => resolve(out))) };
}

/** The status of the last response in `raw` (after any 100 Continue); NaN when there is none. */
function lastStatus(raw: string): number {
  const all = [...raw.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1])).filter((s) => s !== 100);
  return all.length === 0 ? Number.NaN : (all.at(-1) as number);
}

/**
 * A request whose headers are complete and whose body stops after 6 of its 1000 bytes. It
 * asks for 100 Continue, which the server sends once it has parsed the headers: `accepted`
 * resolves then (true), or false when the connection was closed first.
 */
async function stalledBody(dial: Dial, port: number): Promise<{ accepted: boolean; answer: Promise<string>; socket: Socket }> {
  const s = dial(port);
  const c = collect(s);
  s.write('POST /v2/models/m/infer HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\nExpect: 100-continue\r\n\r\n');
  const accepted = await new Promise<boolean>((resolve) => {
    s.on('data', () => c.text().includes(' 100 Continue') && resolve(true));
    void c.closed.then(() => resolve(false));
  });
  if (accepted) s.write('{"inpu');
  return { accepted, answer: c.closed, socket: s };
}

/** One request on a fresh connection (as the kubelet probes); the raw answer. */
function once(dial: Dial, port: number, request: string): Promise<string> {
  const s = dial(port);
  const c = collect(s);
  s.write(request);
  return c.closed;
}

const get = (dial: Dial, port: number, p: string) => once(dial, port, `GET ${p} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
const infer = (dial: Dial, port: number) => {
  const body = JSON.stringify({ inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 2], data: [1, 2] }] });
  return once(dial, port, `POST /v2/models/m/infer HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
};

/** A server with the small bounds, over HTTPS when `tls`; its port and log. `receiveTimeout` 0: no receive deadline. */
async function start(tls: boolean, receiveTimeout: number): Promise<{ t: TestServer; log: LogLines; port: number }> {
  const certs: string[] = [];
  if (tls) {
    const cert = path.join(certDir, 'c.pem');
    const key = path.join(certDir, 'k.pem');
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-keyout', key, '-out', cert],
      { stdio: 'ignore' },
    );
    certs.push('--ssl_certfile', cert, '--ssl_keyfile', key);
  }
  const log = logLines();
  const t = await startServer(
    ['--model_repository', repo.dir, '--max_connections', String(MAX), '--receive_timeout_seconds', String(receiveTimeout), '--send_timeout_seconds', '2', ...certs],
    { logger: log.logger },
  );
  return { t, log, port: Number(new URL(t.url).port) };
}

/** A server for the enclosing describe, started before its tests and closed after them. */
function useServer(tls: boolean, receiveTimeout = 2): () => Awaited<ReturnType<typeof start>> {
  let s: Awaited<ReturnType<typeof start>> | undefined;
  beforeAll(async () => {
    s = await start(tls, receiveTimeout);
  });
  afterAll(async () => {
    await s?.t.close();
  });
  return () => s as Awaited<ReturnType<typeof start>>;
}

describe.each([
  ['REST', plain, false],
  ['HTTPS', secure, true],
] as const)('%s under stalled request bodies', (_name, dial, tls) => {
  const server = useServer(tls);
  const noDeadline = useServer(tls, 0);

  it('connections past --max_connections with unfinished bodies never lock out probes or a client; the oldest are answered 503 and closed to make room', async () => {
    const { port, log } = noDeadline();
    const attack: Awaited<ReturnType<typeof stalledBody>>[] = [];
    try {
      for (let i = 0; i < 2 * MAX; i++) attack.push(await stalledBody(dial, port));
      // Every one of them reached the server (none refused): older ones made room.
      expect(attack.map((a) => a.accepted)).toEqual(new Array(2 * MAX).fill(true));
      for (const p of PROBES) expect(lastStatus(await get(dial, port, p)), p).toBe(200);
      expect(lastStatus(await infer(dial, port))).toBe(200);
      // At most MAX connections are open at once and nothing else ends a stalled body here:
      // at least MAX of the 2 × MAX were closed to make room, each answered 503.
      const ended: string[] = [];
      for (const a of attack) void a.answer.then((raw) => ended.push(raw));
      await waitFor(() => ended.length, { until: (n) => n >= MAX, intervalMs: 20, description: `${MAX} stalled bodies ended` });
      expect(ended.map(lastStatus).filter((st) => st !== 503)).toEqual([]);
    } finally {
      for (const a of attack) a.socket.destroy();
    }
    expect(await log.waitFor((l) => l['limit'] === '--max_connections' && l['closed'] === 'receiving')).toMatchObject({ level: 40, max: MAX });
  }, 60_000);

  it('stalled bodies are answered 408 past --receive_timeout_seconds, probes and a client answered meanwhile; renewed, the same', async () => {
    const { port, log } = server();
    // Twice: the attack renewed after the deadline has cut the first round. Half the
    // connection limit each time, so nothing but the deadline ends them.
    for (let round = 0; round < 2; round++) {
      const attack: Awaited<ReturnType<typeof stalledBody>>[] = [];
      for (let i = 0; i < MAX / 2; i++) attack.push(await stalledBody(dial, port));
      expect(attack.map((a) => a.accepted)).toEqual(new Array(MAX / 2).fill(true));
      for (const p of PROBES) expect(lastStatus(await get(dial, port, p)), p).toBe(200);
      expect(lastStatus(await infer(dial, port))).toBe(200);
      expect((await Promise.all(attack.map((a) => a.answer))).map(lastStatus)).toEqual(new Array(MAX / 2).fill(408));
    }
    const expired = await log.waitFor((l) => l['limit'] === '--receive_timeout_seconds');
    expect(expired).toMatchObject({ level: 40, seconds: 2 });
  }, 60_000);

  it('a response the client leaves unread loses its connection past --send_timeout_seconds, probes answered meanwhile', async () => {
    const { port, log } = server();
    // 32 MiB of binary output: more than the kernel's buffers on both sides hold.
    const n = 8 * 2 ** 20;
    const head = JSON.stringify({
      inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [n / 16, 16], parameters: { binary_data_size: 4 * n } }],
      outputs: [{ name: 'OUTPUT0', parameters: { binary_data: true } }],
    });
    const reader = dial(port);
    reader.pause();
    let read = 0;
    reader.on('data', (d: Buffer) => (read += d.length));
    const closed = new Promise<void>((resolve) => reader.once('close', () => resolve()));
    reader.on('error', () => undefined);
    reader.write(`POST /v2/models/m/infer HTTP/1.1\r\nHost: x\r\nInference-Header-Content-Length: ${head.length}\r\nContent-Length: ${head.length + 4 * n}\r\n\r\n${head}`);
    reader.write(Buffer.alloc(4 * n));
    for (const p of PROBES) expect(lastStatus(await get(dial, port, p)), p).toBe(200);
    expect(await log.waitFor((l) => l['limit'] === '--send_timeout_seconds')).toMatchObject({ level: 40, seconds: 2 });
    reader.resume();
    await closed;
    expect(read).toBeLessThan(4 * n);
  }, 60_000);
});

describe('HTTPS under silent TCP connections', () => {
  const server = useServer(true);

  it('connections that never start the TLS handshake count from accept: past --max_connections the oldest are closed and a probe is answered', async () => {
    const { port, log } = server();
    const n = 10 * MAX;
    const silent: Promise<string>[] = [];
    let closed = 0;
    for (let i = 0; i < n; i++) {
      const sock = connect(port, '127.0.0.1');
      const c = collect(sock);
      await new Promise<void>((resolve) => sock.once('connect', () => resolve()).once('close', () => resolve()));
      silent.push(c.closed.then((out) => (closed++, out)));
    }
    expect(lastStatus(await get(secure, port, '/v2/health/ready'))).toBe(200);
    // At most MAX are open at once: all but the newest are closed, nothing written to them.
    await new Promise<void>((resolve) => {
      const check = () => closed >= n - MAX && resolve();
      for (const p of silent) void p.then(check);
      check();
    });
    expect((await Promise.all(silent.slice(0, n - MAX))).join('')).toBe('');
    await log.waitFor((l) => l['limit'] === '--max_connections' && l['closed'] === 'idle');
  }, 60_000);
});
