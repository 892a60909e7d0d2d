/**
 * storage-initializer against a local HTTPS server (self-signed CA made in the test):
 * single files, archives (and malicious ones), headers from `<host>-headers`, retries.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, exists, listFiles, makePki, makeTar, makeZip, runSi, type Pki, modelDest } from './helpers.js';

describe('storage-initializer http(s)://', () => {
  let pki: Pki;
  let server: https.Server;
  let plain: http.Server;
  let base: string;
  let plainBase: string;
  const dirs: string[] = [];
  const big = randomBytes(2 * 1024 * 1024);
  let flaky = 0;
  const seenHeaders: http.IncomingHttpHeaders[] = [];

  const tgz = gzipSync(
    makeTar([
      { name: 'model/', type: '5' },
      { name: 'model/1/model.onnx', content: 'onnx' },
      { name: 'model/config.pbtxt', content: 'cfg' },
      { name: 'model/link.onnx', type: '2', link: '1/model.onnx' },
    ]),
  );
  const routes: Record<string, () => { status?: number; type?: string; body: Buffer | string }> = {
    '/models/model.onnx': () => ({ body: 'onnx-bytes' }),
    '/models/big.bin': () => ({ body: big }),
    '/models/model.tar.gz': () => ({ type: 'application/gzip', body: tgz }),
    '/models/model.tgz': () => ({ type: 'application/gzip', body: tgz }),
    '/models/model.tar': () => ({
      type: 'application/x-tar',
      body: makeTar([
        { name: 'a.txt', content: 'a' },
        { name: 'hl', type: '1', link: 'a.txt' },
      ]),
    }),
    '/models/model.zip': () => ({
      type: 'application/zip',
      body: makeZip([
        { name: 'z/', mode: 0o040755 },
        { name: 'z/model.onnx', content: 'zip-onnx' },
        { name: 'z/run.sh', content: '#!/bin/sh', mode: 0o100755 },
      ]),
    }),
    '/evil/abs.tar': () => ({ body: makeTar([{ name: '/tmp/si-evil-abs.txt', content: 'x' }]) }),
    '/evil/dotdot.zip': () => ({
      body: makeZip([
        { name: 'ok.txt', content: 'ok' },
        { name: 'a/../../evil.txt', content: 'x' },
      ]),
    }),
    '/evil/symlink.tar': () => ({ body: makeTar([{ name: 'etc', type: '2', link: '/etc' }]) }),
    '/evil/symlink-up.tar': () => ({ body: makeTar([{ name: 'up', type: '2', link: '../../..' }]) }),
    '/evil/symlink-chain.tar': () => ({
      body: makeTar([
        { name: 'a', type: '2', link: '.' },
        { name: 'b', type: '2', link: 'a/..' },
      ]),
    }),
    '/evil/symlink.zip': () => ({ body: makeZip([{ name: 'passwd', content: '/etc/passwd', mode: 0o120777 }]) }),
    '/evil/hardlink.tar': () => ({ body: makeTar([{ name: 'h', type: '1', link: '../../etc/passwd' }]) }),
    '/evil/device.tar': () => ({ body: makeTar([{ name: 'dev', type: '3' }]) }),
    '/evil/garbage.tar.gz': () => ({ body: 'not gzip at all' }),
    '/secret/model.onnx': () => ({ body: 'secret' }),
    '/flaky/model.onnx': () => (++flaky <= 2 ? { status: 503, body: 'busy' } : { body: 'eventually' }),
    '/denied/model.onnx': () => ({ status: 403, body: 'no' }),
    '/redirect/model.onnx': () => ({ status: 302, body: '' }),
  };

  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    seenHeaders.push(req.headers);
    const url = (req.url ?? '').split('?')[0]!;
    if (url === '/secret/model.onnx' && req.headers['authorization'] !== 'Bearer let-me-in') {
      res.writeHead(401).end();
      return;
    }
    if (url === '/redirect/model.onnx') {
      res.writeHead(302, { location: '/models/model.onnx' }).end();
      return;
    }
    const route = routes[url];
    if (!route) {
      res.writeHead(404).end('missing');
      return;
    }
    const r = route();
    res.writeHead(r.status ?? 200, { 'content-type': r.type ?? 'application/octet-stream' }).end(r.body);
  };

  const dest = modelDest(dirs);
  const caEnv = () => ({ SSL_CERT_FILE: pki.ca });

  beforeAll(async () => {
    pki = makePki();
    dirs.push(pki.dir);
    server = https.createServer({ key: pki.key, cert: pki.cert }, handler);
    plain = http.createServer(handler);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
    base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    plainBase = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    plain.closeAllConnections();
    await new Promise((r) => server.close(r));
    await new Promise((r) => plain.close(r));
    cleanup(...dirs);
  });

  it('downloads a single file over https with a custom CA, and refuses the server without it', async () => {
    const d = dest();
    const r = await runSi([`${base}/models/big.bin`, d], caEnv());
    expect(r.code, r.out).toBe(0);
    expect(
      createHash('sha256')
        .update(readFileSync(path.join(d, 'big.bin')))
        .digest('hex'),
    ).toBe(createHash('sha256').update(big).digest('hex'));
    expect(r.out).toMatch(/downloaded https:\/\/127\.0\.0\.1:\d+\/models\/big\.bin to .*: 2097152 bytes .*1 file in [\d.]+s/);
    const bad = await runSi([`${base}/models/model.onnx`, dest()]);
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/models\/model\.onnx: unreachable: TLS verification failed/);
  });

  it('downloads over plain http and follows redirects', async () => {
    const d = dest();
    expect((await runSi([`${plainBase}/redirect/model.onnx`, d])).code).toBe(0);
    expect(listFiles(d)).toEqual(['model.onnx']);
  });

  it('sends headers from the <hostname>-headers variable', async () => {
    const d = dest();
    const denied = await runSi([`${base}/secret/model.onnx`, d], caEnv());
    expect(denied.code).toBe(1);
    expect(denied.out).toContain('/secret/model.onnx: access denied');
    const ok = await runSi([`${base}/secret/model.onnx`, d], { ...caEnv(), '127.0.0.1-headers': JSON.stringify({ Authorization: 'Bearer let-me-in' }) });
    expect(ok.code, ok.out).toBe(0);
    expect(readFileSync(path.join(d, 'model.onnx'), 'utf8')).toBe('secret');
    expect(ok.out).not.toContain('let-me-in');
  });

  it('reports not found and access denied as one line each, without retrying', async () => {
    const nf = await runSi([`${base}/nope/model.onnx`, dest()], caEnv());
    expect(nf.code).toBe(1);
    expect(nf.out).toMatch(/\/nope\/model\.onnx: not found: .*HTTP 404/);
    const ad = await runSi([`${base}/denied/model.onnx`, dest()], caEnv());
    expect(ad.code).toBe(1);
    expect(ad.out).toContain('/denied/model.onnx: access denied');
    expect(ad.out).not.toContain('retrying');
    const noName = await runSi([`${base}/`, dest()], caEnv());
    expect(noName.code).toBe(1);
    expect(noName.out).toContain('no filename contained in the URI');
  });

  it('retries 5xx answers with backoff', async () => {
    flaky = 0;
    const d = dest();
    const r = await runSi([`${base}/flaky/model.onnx`, d], caEnv());
    expect(r.code, r.out).toBe(0);
    expect(r.out.match(/retrying/g)).toHaveLength(2);
    expect(readFileSync(path.join(d, 'model.onnx'), 'utf8')).toBe('eventually');
  });

  it('unpacks .tar.gz, .tgz, .tar (hard links inside) and .zip (modes kept) and removes the archive', async () => {
    for (const name of ['model.tar.gz', 'model.tgz']) {
      const d = dest();
      const r = await runSi([`${base}/models/${name}`, d], caEnv());
      expect(r.code, r.out).toBe(0);
      expect(listFiles(d)).toEqual(['model/1/model.onnx', 'model/config.pbtxt', 'model/link.onnx']);
      expect(readlinkSync(path.join(d, 'model/link.onnx'))).toBe('1/model.onnx');
      expect(readFileSync(path.join(d, 'model/link.onnx'), 'utf8')).toBe('onnx');
    }
    const t = dest();
    expect((await runSi([`${base}/models/model.tar`, t], caEnv())).code).toBe(0);
    expect(listFiles(t)).toEqual(['a.txt', 'hl']);
    const z = dest();
    expect((await runSi([`${base}/models/model.zip`, z], caEnv())).code).toBe(0);
    expect(listFiles(z)).toEqual(['z/model.onnx', 'z/run.sh']);
    expect(readFileSync(path.join(z, 'z/model.onnx'), 'utf8')).toBe('zip-onnx');
  });

  it.each([
    ['abs.tar', "member '/tmp/si-evil-abs.txt' has an absolute path"],
    ['dotdot.zip', "member 'a/../../evil.txt' contains '..'"],
    ['symlink.tar', "link 'etc' points to the absolute path '/etc'"],
    ['symlink-up.tar', "link 'up' points outside the destination"],
    ['symlink-chain.tar', "link 'b' resolves outside the destination"],
    ['symlink.zip', "link 'passwd' points to the absolute path '/etc/passwd'"],
    ['hardlink.tar', "member '../../etc/passwd' contains '..'"],
    ['device.tar', "member 'dev' is a device or FIFO"],
  ])('refuses the malicious archive %s and leaves nothing behind', async (name, message) => {
    const d = dest();
    const r = await runSi([`${base}/evil/${name}`, d], caEnv());
    expect(r.code).toBe(1);
    expect(r.out).toContain(`/evil/${name}: unsafe archive: ${message}`);
    expect(listFiles(d)).toEqual([]);
    expect(exists('/tmp/si-evil-abs.txt')).toBe(false);
  });

  it('reports a corrupt archive clearly', async () => {
    const r = await runSi([`${base}/evil/garbage.tar.gz`, dest()], caEnv());
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/garbage\.tar\.gz: invalid: not a valid gzip-compressed tar archive/);
  });

  it('never prints credentials carried in the URL', async () => {
    const r = await runSi([`https://user:hunter2@127.0.0.1:1/m/model.onnx?X-Amz-Signature=sekrit`, dest()], { STORAGE_MAX_ATTEMPTS: '1' });
    expect(r.code).toBe(1);
    expect(r.out).not.toContain('hunter2');
    expect(r.out).not.toContain('sekrit');
    expect(r.out).toContain('https://127.0.0.1:1/m/model.onnx?…: unreachable');
  });
});
