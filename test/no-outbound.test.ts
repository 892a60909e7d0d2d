/**
 * Issue 16 item 10: the server makes no outbound attempt it was not asked for. onnxruntime's
 * embedded telemetry client resolves mobile.events.data.microsoft.com within seconds of the
 * first session unless it is turned off; this watches a real server's every connect/sendto
 * (all threads and child processes) through start, load, inference and a wait.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from './helpers/free-port.js';
import { CLI } from './helpers/process.js';
import { ROOT, makeRepository } from './helpers/server.js';
import { STRACE_ARGS, netAttempts, outbound, requireStrace } from './helpers/strace.js';
import { tiedToParent } from './helpers/tied-process.js';

const dir = mkdtempSync(path.join(tmpdir(), 'kserve-ts-strace-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function traced(log: string, command: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const [cmd, argv] = tiedToParent('strace', [...STRACE_ARGS, '-o', log, command, ...args]);
  return spawn(cmd, argv, { cwd: ROOT, env, stdio: 'ignore' });
}

/** strace's SIGTERM would only detach it; the server is its child (setpriv execs strace). */
function tracee(c: ChildProcess): number {
  const pid = Number(readFileSync(`/proc/${c.pid}/task/${c.pid}/children`, 'utf8').trim().split(' ')[0]);
  if (!(pid > 0)) throw new Error('traced process not found');
  return pid;
}

const exited = (c: ChildProcess) => new Promise<void>((r) => (c.exitCode !== null ? r() : c.once('exit', () => r())));

async function waitReady(url: string, deadline: number): Promise<void> {
  while (Date.now() < deadline) {
    const ok = await fetch(url, { signal: AbortSignal.timeout(2000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} not ready`);
}

describe('no outbound network use', () => {
  it('observes the connects of every thread of a traced process (control for the method)', async () => {
    requireStrace();
    const srv = net.createServer((s) => s.end());
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const port = (srv.address() as net.AddressInfo).port;
    const log = path.join(dir, 'control.strace');
    const script = `new (require('node:worker_threads').Worker)("require('node:net').connect(${port}, '127.0.0.1').on('close', () => {})", { eval: true })`;
    const child = traced(log, process.execPath, ['-e', script], process.env);
    await exited(child);
    srv.close();
    const seen = netAttempts(log).filter((a) => a.port === port);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen[0]?.address).toBe('127.0.0.1');
    expect(outbound(seen)).toEqual([]);
  });

  it('start + load + inference (main thread and worker threads) makes no DNS lookup and no connection beyond loopback', async () => {
    requireStrace();
    // Two models: the tiny one also runs inline on the main thread, conv_small in its worker.
    const repo = makeRepository({ identity: 'identity_fp32', conv: 'conv_small' });
    const log = path.join(dir, 'serve.strace');
    const port = await freePort();
    const env = { ...process.env };
    delete env.ORT_DISABLE_TELEMETRY; // the default must do it, not the environment
    const child = traced(
      log,
      process.execPath,
      [CLI, 'serve', '--model_repository', repo.dir, '--http_host', '127.0.0.1', '--http_port', String(port), '--enable_grpc', 'false'],
      env,
    );
    try {
      const base = `http://127.0.0.1:${port}`;
      await waitReady(`${base}/v2/models/conv/ready`, Date.now() + 30_000);
      await waitReady(`${base}/v2/models/identity/ready`, Date.now() + 10_000);
      const infer = await fetch(`${base}/v2/models/identity/infer`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ inputs: [{ name: 'INPUT0', shape: [1, 4], datatype: 'FP32', data: [1, 2, 3, 4] }] }),
      });
      expect(infer.status).toBe(200);
      const meta = (await (await fetch(`${base}/v2/models/conv`)).json()) as { inputs: { name: string; shape: number[] }[] };
      const input = meta.inputs[0] as { name: string; shape: number[] };
      const n = input.shape.map((d) => (d < 0 ? 1 : d)).reduce((a, b) => a * b, 1);
      const conv = await fetch(`${base}/v2/models/conv/infer`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ inputs: [{ name: input.name, shape: input.shape.map((d) => (d < 0 ? 1 : d)), datatype: 'FP32', data: new Array(n).fill(0.5) }] }),
      });
      expect(conv.status).toBe(200);
      // onnxruntime's telemetry resolved its collector within ~5 s of the first session when on.
      await new Promise((r) => setTimeout(r, 8000));
    } finally {
      process.kill(tracee(child), 'SIGTERM');
      await exited(child);
      repo.cleanup();
    }
    const attempts = netAttempts(log);
    expect(outbound(attempts).map((a) => a.line)).toEqual([]);
  }, 60_000);
});
