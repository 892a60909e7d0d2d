/**
 * REST over HTTPS as KServe's `--ssl_certfile` / `--ssl_keyfile`: served with the pair,
 * renewed in place without a restart (as a Secret or cert-manager renewal does), a broken
 * renewal keeps the old pair, and a pair that cannot work fails the start.
 */
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, describe, expect, it } from 'vitest';
import { type CliProcess, runCli } from './helpers/process.js';
import { IRIS_DIR } from './helpers/server.js';

const dir = mkdtempSync(path.join(tmpdir(), 'kserve-ts-tls-'));
const running: CliProcess[] = [];
afterAll(async () => {
  for (const p of running) {
    p.child.kill('SIGTERM');
    await p.exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

/** A self-signed certificate for 127.0.0.1 with its key, named `name` in `dir`. */
function makePair(name: string, cn: string): { cert: string; key: string } {
  const cert = path.join(dir, `${name}.crt`);
  const key = path.join(dir, `${name}.key`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      `/CN=${cn}`,
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  return { cert, key };
}

interface Answer {
  status: number;
  body: string;
  subject: string;
}

/** One request on a new connection, trusting only `ca`; reports the certificate the server showed. */
function call(port: number, ca: Buffer[], pathname: string, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: pathname, method: body === undefined ? 'GET' : 'POST', ca, agent: false, timeout: 10_000 }, (res) => {
      const subject = (res.socket as TLSSocket).getPeerCertificate().subject?.CN ?? '';
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, subject: String(subject) }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

async function httpsPort(p: CliProcess): Promise<number> {
  const line = await p.waitForLog((l) => typeof l['msg'] === 'string' && l['msg'].startsWith('Server listening at https://127.0.0.1:'));
  return Number(/:(\d+)$/.exec(String(line['msg']))?.[1]);
}

const FLAGS = ['--model_name', 'iris', '--model_dir', IRIS_DIR, '--http_host', '127.0.0.1', '--http_port', '0', '--enable_grpc', 'false'];

describe('REST over HTTPS', () => {
  it('serves inference over TLS and takes a renewed pair without a restart', async () => {
    const first = makePair('live', 'first');
    const p = runCli(['serve', ...FLAGS, '--ssl_certfile', first.cert, '--ssl_keyfile', first.key]);
    running.push(p);
    const port = await httpsPort(p);
    await p.waitForLog((l) => l['msg'] === 'server started');
    const firstCa = readFileSync(first.cert);
    const answer = await call(port, [firstCa], '/v1/models/iris:predict', JSON.stringify({ instances: [[5.1, 3.5, 1.4, 0.2]] }));
    expect(answer).toEqual({ status: 200, body: '{"predictions":[0]}', subject: 'first' });
    // Plain HTTP on the HTTPS port gets no answer in HTTP.
    await expect(fetch(`http://127.0.0.1:${port}/v2/health/live`)).rejects.toThrow();

    // A broken renewal (a key that does not match) is refused; the first pair stays.
    const other = makePair('other', 'other');
    writeFileSync(first.key + '.tmp', readFileSync(other.key));
    renameSync(first.key + '.tmp', first.key);
    await p.waitForLog((l) => l['msg'] === 'TLS certificate not reloaded; keeping the previous one', 20_000);
    expect((await call(port, [firstCa], '/v2/health/live')).subject).toBe('first');

    // The renewal, written as a Secret update does: new files renamed over the old ones.
    const second = makePair('second', 'second');
    for (const [from, to] of [
      [second.cert, first.cert],
      [second.key, first.key],
    ] as const) {
      writeFileSync(to + '.tmp', readFileSync(from));
      renameSync(to + '.tmp', to);
    }
    await p.waitForLog((l) => l['msg'] === 'TLS certificate reloaded', 20_000);
    const renewed = await call(port, [readFileSync(second.cert)], '/v2/health/ready');
    expect(renewed).toMatchObject({ status: 200, subject: 'second' });
    expect(new X509Certificate(readFileSync(first.cert)).subject).toBe('CN=second');
  });

  it('fails the start with the reason when the pair cannot be used', async () => {
    const a = makePair('a', 'a');
    const b = makePair('b', 'b');
    const mismatched = runCli(['serve', ...FLAGS, '--ssl_certfile', a.cert, '--ssl_keyfile', b.key]);
    expect(await mismatched.exited).not.toBe(0);
    expect(mismatched.output()).toMatch(/key values mismatch|KEY_VALUES_MISMATCH/i);
    const missing = runCli(['serve', ...FLAGS, '--ssl_certfile', path.join(dir, 'nope.crt'), '--ssl_keyfile', a.key]);
    expect(await missing.exited).not.toBe(0);
    expect(missing.output()).toContain(`cannot read the TLS certificate (--ssl_certfile) ${path.join(dir, 'nope.crt')}: ENOENT`);
    const half = runCli(['serve', ...FLAGS, '--ssl_certfile', a.cert]);
    expect(await half.exited).not.toBe(0);
    expect(half.output()).toContain('--ssl_certfile and --ssl_keyfile');
  });
});
