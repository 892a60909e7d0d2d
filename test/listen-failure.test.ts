/**
 * A port that cannot be bound stops the program (#27 item 11): `kserve-ts serve` (REST,
 * HTTPS, gRPC) and the controller (health and metrics, webhooks) exit 1 with one line naming
 * the listener, its flag and the address, without reporting ready. The ports are held by
 * this test; the controller's is checked before it calls any API server (its kubeconfig
 * points at nothing).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ListenError } from '../cli/listen-error.js';
import { listen } from '../server/listen.js';
import { runCli } from './helpers/process.js';
import type { ModelServer } from '../server/server.js';
import { IRIS_DIR, buildServer } from './helpers/server.js';

const dir = mkdtempSync(path.join(tmpdir(), 'kserve-ts-listen-'));
let holder: net.Server;
let taken: number;
const IN_USE = 'the address is already in use (another process holds the port)';

beforeAll(async () => {
  holder = net.createServer();
  await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
  taken = (holder.address() as net.AddressInfo).port;
});
afterAll(async () => {
  await new Promise((r) => holder.close(r));
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the CLI to its exit: the code, stderr's lines and the JSON log's messages. */
async function run(args: string[]): Promise<{ code: number | null; errLines: string[]; messages: unknown[] }> {
  const p = runCli(args);
  let stderr = '';
  p.child.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const code = await p.exited;
  const messages = p
    .output()
    .split('\n')
    .flatMap((l) => {
      try {
        return [(JSON.parse(l) as { msg?: unknown }).msg];
      } catch {
        return [];
      }
    });
  return { code, errLines: stderr.split('\n').filter((l) => l !== ''), messages };
}

const serve = ['serve', '--model_name', 'iris', '--model_dir', IRIS_DIR, '--http_host', '127.0.0.1'];

describe('kserve-ts serve with a port taken', () => {
  it('REST: exits 1 with one line', async () => {
    const r = await run([...serve, '--http_port', String(taken), '--grpc_port', '0']);
    expect(r.code).toBe(1);
    expect(r.errLines).toEqual([`kserve-ts serve: cannot listen on 127.0.0.1:${taken} for REST (--http_port): ${IN_USE}`]);
    expect(r.messages).not.toContain('server started');
    // The model loading when the bind failed is unloaded before the exit: exiting while its
    // worker thread is inside onnxruntime aborted the process now and then (exit 134).
    expect(r.messages).toContain('model unloaded');
  }, 60_000);

  it('gRPC: exits 1 with one line, REST already bound notwithstanding', async () => {
    const r = await run([...serve, '--http_port', '0', '--grpc_port', String(taken)]);
    expect(r.code).toBe(1);
    expect(r.errLines).toEqual([`kserve-ts serve: cannot listen on 127.0.0.1:${taken} for gRPC (--grpc_port): ${IN_USE}`]);
    expect(r.messages).not.toContain('server started');
    expect(r.messages).toContain('model unloaded');
  }, 60_000);

  it('with --workers 2: exits 1 with one line, not one per worker', async () => {
    const r = await run([...serve, '--http_port', String(taken), '--grpc_port', '0', '--workers', '2']);
    expect(r.code).toBe(1);
    expect(r.errLines).toEqual([`kserve-ts serve: cannot listen on 127.0.0.1:${taken} for REST (--http_port): ${IN_USE}`]);
  }, 60_000);

  it('HTTPS: exits 1 with one line', async () => {
    const cert = path.join(dir, 'c.pem');
    const key = path.join(dir, 'k.pem');
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-keyout', key, '-out', cert],
      { stdio: 'ignore' },
    );
    const r = await run([...serve, '--http_port', String(taken), '--grpc_port', '0', '--ssl_certfile', cert, '--ssl_keyfile', key]);
    expect(r.code).toBe(1);
    expect(r.errLines).toEqual([`kserve-ts serve: cannot listen on 127.0.0.1:${taken} for HTTPS (--http_port): ${IN_USE}`]);
    expect(r.messages).toContain('model unloaded');
  }, 60_000);
});

describe('a server whose gRPC port is taken', () => {
  let server: ModelServer | undefined;
  afterAll(async () => {
    await server?.close();
  });

  it('never reports ready, although its model loaded and its REST port is bound', async () => {
    server = await buildServer(['--model_name', 'iris', '--model_dir', IRIS_DIR, '--grpc_port', String(taken)], { grpc: true });
    await server.repository.loadStartupModels();
    const err = await listen(server).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ListenError);
    expect((err as Error).message).toBe(`cannot listen on 127.0.0.1:${taken} for gRPC (--grpc_port): ${IN_USE}`);
    expect(server.repository.readyCount()).toBe(1);
    const { port } = server.http.server.address() as net.AddressInfo;
    expect((await fetch(`http://127.0.0.1:${port}/v2/health/ready`)).status).toBe(503);
  }, 60_000);
});

describe('kserve-ts controller with a port taken', () => {
  const kubeconfig = path.join(dir, 'nowhere.kubeconfig');
  beforeAll(() => {
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{name: c, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]',
        'users: [{name: u, user: {token: t}}]',
        'contexts: [{name: x, context: {cluster: c, user: u}}]',
        'current-context: x',
      ].join('\n'),
    );
  });
  // --cert-secret '': a certificate of its own, not one shared through the API server.
  const controller = ['controller', '--kubeconfig', kubeconfig, '--namespace', 'kserve', '--health-host', '127.0.0.1', '--webhook-host', '127.0.0.1', '--cert-secret', ''];

  it('health and metrics: exits 1 with one line, before any call to the API server', async () => {
    const r = await run([...controller, '--health-port', String(taken), '--webhook-port', '0']);
    expect(r.code).toBe(1);
    expect(r.errLines).toEqual([`kserve-ts controller: cannot listen on 127.0.0.1:${taken} for health and metrics (--health-port): ${IN_USE}`]);
  }, 60_000);

  it('webhooks: exits 1 with one line, before any call to the API server', async () => {
    const r = await run([...controller, '--health-port', '0', '--webhook-port', String(taken)]);
    expect(r.code).toBe(1);
    expect(r.errLines).toEqual([`kserve-ts controller: cannot listen on 127.0.0.1:${taken} for admission webhooks (--webhook-port): ${IN_USE}`]);
  }, 60_000);
});
