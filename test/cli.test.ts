/** The `kserve-ts` command as users and Kubernetes run it: flags, exit codes, signals. */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { binaryInferBody } from './helpers/binary.js';
import { runCli, restPort } from './helpers/process.js';
import { IRIS_DIR, ROOT, makeRepository } from './helpers/server.js';
import { waitFor } from './helpers/wait-for.js';

/** Whether a new connection to `port` on loopback is refused (no listener). */
function connectRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNREFUSED'));
  });
}

const LOOPBACK = ['--http_host', '127.0.0.1', '--http_port', '0', '--grpc_port', '0'];

describe('kserve-ts CLI', () => {
  const cleanups: Array<() => void> = [];
  afterAll(() => cleanups.forEach((c) => c()));

  it('lists every flag with --help', async () => {
    const p = runCli(['serve', '--help']);
    expect(await p.exited).toBe(0);
    for (const flag of [
      '--http_port',
      '--grpc_port',
      '--model_name',
      '--model_dir',
      '--model_repository',
      '--enable_grpc',
      '--enable_docs_url',
      '--workers',
      '--grpc_max_send_message_length',
      '--grpc_max_receive_message_length',
      '--rest_max_body_bytes',
      '--execution_providers',
      '--intra_op_threads',
      '--log_level',
    ]) {
      expect(p.output()).toContain(flag);
    }
  });

  it('is on the PATH of npm scripts and npx after npm ci (node_modules/.bin/kserve-ts)', async () => {
    const { spawnSync } = await import('node:child_process');
    const r = spawnSync(path.join(ROOT, 'node_modules/.bin/kserve-ts'), ['--help'], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Usage: kserve-ts <command>');
  });

  it('rejects an invalid flag value with exit code 2 and a clear message', async () => {
    const p = runCli(['serve', '--http_port', 'eighty']);
    expect(await p.exited).toBe(2);
    expect(p.output()).toContain("--http_port expects a non-negative integer, got 'eighty'");
  });

  it('serves with KServe runtime args, warns about unknown flags, and exits 0 on SIGTERM', async () => {
    const p = runCli([`--model_name=iris`, `--model_dir=${IRIS_DIR}`, '--enable_grpc=false', '--no_such_flag', 'x', ...LOOPBACK]);
    const port = await restPort(p);
    await p.waitForLog((l) => l['msg'] === 'server started');
    expect(p.output()).toContain('unknown flag --no_such_flag ignored');
    const res = await fetch(`http://127.0.0.1:${port}/v1/models/iris:predict`, {
      method: 'POST',
      body: JSON.stringify({ instances: [[5.1, 3.5, 1.4, 0.2]] }),
    });
    expect(await res.json()).toEqual({ predictions: [0] });
    const loaded = await p.waitForLog((l) => l['msg'] === 'model loaded');
    expect(loaded['model']).toBe('iris');
    expect(typeof loaded['loadMs']).toBe('number');
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    expect(p.output()).toContain('shutdown complete');
  });

  it('exits 1 with the cause when no model can be loaded (NoModelReady)', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'kserve-ts-empty-'));
    cleanups.push(() => rmSync(empty, { recursive: true, force: true }));
    const p = runCli(['serve', '--model_name', 'm', '--model_dir', empty, '--enable_grpc', 'false', ...LOOPBACK]);
    expect(await p.exited).toBe(1);
    expect(p.output()).toContain('no model is ready');
    expect(p.output()).toContain('no model file');
  });

  it.each([
    [['--model_repository', '/nonexistent/models'], 'cannot read /nonexistent/models'],
    [['--model_repository', 'EMPTY'], 'no model folders in'],
  ])('exits 1 when the repository %j has nothing to serve', async (flags, message) => {
    const empty = mkdtempSync(path.join(tmpdir(), 'kserve-ts-empty-'));
    cleanups.push(() => rmSync(empty, { recursive: true, force: true }));
    const p = runCli(['serve', ...flags.map((f) => (f === 'EMPTY' ? empty : f)), '--enable_grpc', 'false', ...LOOPBACK]);
    expect(await p.exited).toBe(1);
    expect(p.output()).toContain(message);
  });

  it('drains a request in flight on SIGTERM: it is answered after the listener closed, then exit 0', async () => {
    const repo = makeRepository({ slow: 'slow_matmul' });
    cleanups.push(repo.cleanup);
    // No shutdown delay: SIGTERM closes the listener at once, so the request can only be drained.
    const p = runCli(['serve', '--model_repository', repo.dir, '--enable_grpc', 'false', '--intra_op_threads', '1', '--shutdown_delay_seconds', '0', ...LOOPBACK]);
    const port = await restPort(p);
    await p.waitForLog((l) => l['msg'] === 'server started');
    const rows = 256;
    const { body, headerLength } = binaryInferBody([{ name: 'X', datatype: 'FP32', shape: [rows, 1024], bytes: new Uint8Array(new Float32Array(rows * 1024).fill(1).buffer) }]);
    // In flight from the server's side: it has taken the request (100 Continue) and waits for the body.
    const req = http.request({
      host: '127.0.0.1',
      port,
      path: '/v2/models/slow/infer',
      method: 'POST',
      agent: false,
      headers: { expect: '100-continue', 'content-length': body.byteLength, 'inference-header-content-length': String(headerLength) },
    });
    const continued = new Promise((r) => req.once('continue', r));
    const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
      req.once('response', (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', reject);
    });
    req.flushHeaders();
    await continued;
    p.child.kill('SIGTERM');
    // The listener is closed: new connections are refused, while this request is still open.
    await waitFor(() => connectRefused(port), { intervalMs: 20, description: 'the listener to close' });
    req.end(body);
    const res = await answered;
    expect(res.status, res.text).toBe(200);
    const out = JSON.parse(res.text) as { outputs: Array<{ name: string; shape: number[]; data: number[] }> };
    expect(out.outputs[0]?.shape).toEqual([rows, 1024]);
    // All-ones input stays all ones through the averaging matmuls.
    expect(out.outputs[0]?.data.slice(0, 3).map((v) => Math.round(v * 1000) / 1000)).toEqual([1, 1, 1]);
    expect(await p.exited).toBe(0);
  });
});
