/**
 * storage-initializer hdfs:// and webhdfs:// against a WebHDFS stand-in on loopback: a real
 * HTTP(S) server made here that implements the REST calls the provider uses (GETFILESTATUS,
 * LISTSTATUS, OPEN with offset/length answered by a 307 to a "datanode" port), with an HA
 * standby namenode and RemoteException errors as Hadoop sends them. No Hadoop is started:
 * its mini cluster needs the Hadoop jars (hundreds of MiB from Maven Central) and a JVM
 * start per run, too heavy for this suite; the stand-in answers as the WebHDFS REST
 * documentation describes.
 */
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, listFiles, makePki, makeTar, runSi, tempDir, type Pki, modelDest } from './helpers.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

const big = randomBytes(3 * 1024 * 1024 + 11);
const FILES: Record<string, Buffer> = {
  '/user/kserve/model/a.onnx': Buffer.from('onnx-bytes'),
  '/user/kserve/model/sub/b.bin': Buffer.from('b-bytes'),
  '/user/kserve/model/sub/deep/c.txt': Buffer.from('c-bytes'),
  '/user/kserve/big/weights.bin': big,
  '/user/kserve/archive/model.tar': makeTar([{ name: 'm/m.onnx', content: 'from-tar' }]),
  '/secure/model.onnx': Buffer.from('secure-bytes'),
};

function status(p: string): { type: 'FILE' | 'DIRECTORY'; length: number } | undefined {
  if (FILES[p]) return { type: 'FILE', length: FILES[p].length };
  return Object.keys(FILES).some((f) => f.startsWith(`${p}/`)) ? { type: 'DIRECTORY', length: 0 } : undefined;
}

function children(dir: string): Array<{ pathSuffix: string; type: string; length: number }> {
  const names = new Set<string>();
  for (const f of Object.keys(FILES)) if (f.startsWith(`${dir}/`)) names.add(f.slice(dir.length + 1).split('/')[0]!);
  return [...names].sort().map((n) => ({ pathSuffix: n, ...status(`${dir}/${n}`)! }));
}

interface Seen {
  port: number;
  url: string;
  headers: http.IncomingHttpHeaders;
}

describe('storage-initializer hdfs:// and webhdfs:// (WebHDFS REST on loopback)', () => {
  const servers: Array<http.Server | https.Server> = [];
  const seen: Seen[] = [];
  let active = '';
  let standby = '';
  let secure = '';
  let pki: Pki;
  const dirs: string[] = [];
  const dest = modelDest(dirs);
  const remote = (res: http.ServerResponse, code: number, exception: string, message: string) =>
    res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify({ RemoteException: { exception, javaClassName: `org.apache.hadoop.${exception}`, message } }));

  function namenode(datanodeUrl: () => string, opts: { standby?: boolean; requireUser?: boolean } = {}): http.RequestListener {
    return (req, res) => {
      const u = new URL(req.url ?? '/', 'http://x');
      seen.push({ port: req.socket.localPort ?? 0, url: req.url ?? '', headers: req.headers });
      if (opts.standby) {
        remote(res, 403, 'StandbyException', 'Operation category READ is not supported in state standby');
        return;
      }
      const p = decodeURIComponent(u.pathname.replace(/^\/webhdfs\/v1/, '')) || '/';
      if (p.startsWith('/secure') && u.searchParams.get('user.name') !== 'kserve') {
        remote(res, 403, 'AccessControlException', `Permission denied: user=${u.searchParams.get('user.name') ?? 'dr.who'}, access=READ, inode="${p}"`);
        return;
      }
      const st = status(p);
      if (!st) {
        remote(res, 404, 'FileNotFoundException', `File does not exist: ${p}`);
        return;
      }
      const op = u.searchParams.get('op');
      if (op === 'GETFILESTATUS') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ FileStatus: { pathSuffix: '', ...st } }));
      else if (op === 'LISTSTATUS') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ FileStatuses: { FileStatus: children(p) } }));
      else if (op === 'OPEN') res.writeHead(307, { location: `${datanodeUrl()}${u.pathname}${u.search}` }).end();
      else remote(res, 400, 'IllegalArgumentException', `Invalid value for webhdfs parameter "op": ${op}`);
    };
  }

  const datanode: http.RequestListener = (req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    seen.push({ port: req.socket.localPort ?? 0, url: req.url ?? '', headers: req.headers });
    const body = FILES[decodeURIComponent(u.pathname.replace(/^\/webhdfs\/v1/, ''))];
    if (!body || u.searchParams.get('op') !== 'OPEN') {
      remote(res, 404, 'FileNotFoundException', 'no such file');
      return;
    }
    const offset = Number(u.searchParams.get('offset') ?? '0');
    const length = u.searchParams.has('length') ? Number(u.searchParams.get('length')) : body.length - offset;
    const part = body.subarray(offset, offset + length);
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': part.length }).end(part);
  };

  const listen = (s: http.Server | https.Server): Promise<string> => {
    servers.push(s);
    const scheme = s instanceof https.Server ? 'https' : 'http';
    return new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve(`${scheme}://127.0.0.1:${(s.address() as AddressInfo).port}`)));
  };

  beforeAll(async () => {
    pki = makePki();
    dirs.push(pki.dir);
    const dn = await listen(http.createServer(datanode));
    active = await listen(http.createServer(namenode(() => dn)));
    standby = await listen(http.createServer(namenode(() => dn, { standby: true })));
    // TLS namenode that demands a client certificate signed by the test CA.
    const tlsOpts = { key: pki.key, cert: pki.cert, ca: readFileSync(pki.ca), requestCert: true, rejectUnauthorized: true };
    let sdn = '';
    sdn = await listen(https.createServer(tlsOpts, datanode));
    secure = await listen(
      https.createServer(
        tlsOpts,
        namenode(() => sdn),
      ),
    );
  });

  afterAll(async () => {
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    cleanup(...dirs);
  });

  it('downloads a directory recursively (hdfs://), following OPEN redirects to the datanode', async () => {
    const d = dest();
    const r = await runSi(['hdfs://user/kserve/model', d], { HDFS_NAMENODE: active });
    expect(r.code, r.out).toBe(0);
    expect(listFiles(d)).toEqual(['a.onnx', 'sub/b.bin', 'sub/deep/c.txt']);
    expect(readFileSync(path.join(d, 'sub/deep/c.txt'), 'utf8')).toBe('c-bytes');
  });

  it('downloads a single file (webhdfs://) and unpacks a single tar', async () => {
    const d = dest();
    const r = await runSi(['webhdfs://user/kserve/model/a.onnx', d, 'webhdfs://user/kserve/archive/model.tar', `${d}-tar`], { HDFS_NAMENODE: active });
    dirs.push(`${d}-tar`);
    expect(r.code, r.out).toBe(0);
    expect(listFiles(d)).toEqual(['a.onnx']);
    expect(readFileSync(path.join(`${d}-tar`, 'm/m.onnx'), 'utf8')).toBe('from-tar');
  });

  it('fails over from a standby namenode (HA list), sends USER_PROXY as doas, HEADERS (STORAGE_CONFIG) and HDFS_ROOTPATH', async () => {
    seen.length = 0;
    const d = dest();
    const r = await runSi(['hdfs://model', d], {
      USER_PROXY: 'alice',
      HDFS_ROOTPATH: '/user/kserve',
      STORAGE_CONFIG: JSON.stringify({ type: 'webhdfs', HDFS_NAMENODE: `${standby};${active}`, HEADERS: '{"x-gateway": "g1"}' }),
      HEADERS: 'not json: plain HEADERS variables are not read',
    });
    expect(r.code, r.out).toBe(0);
    expect(listFiles(d)).toEqual(['a.onnx', 'sub/b.bin', 'sub/deep/c.txt']);
    const standbyPort = Number(new URL(standby).port);
    expect(seen.filter((s) => s.port === standbyPort).length).toBeGreaterThan(0);
    const ok = seen.filter((s) => s.port !== standbyPort);
    expect(ok.length).toBeGreaterThan(0);
    expect(ok.every((s) => new URL(s.url, 'http://x').searchParams.get('doas') === 'alice' && s.headers['x-gateway'] === 'g1')).toBe(true);
  });

  it('reads a large file as ranged OPENs (offset/length) and verifies the size', async () => {
    seen.length = 0;
    const d = dest();
    const r = await runSi(['hdfs://user/kserve/big', d], { HDFS_NAMENODE: active, STORAGE_PART_SIZE: String(1024 * 1024) });
    expect(r.code, r.out).toBe(0);
    expect(sha(readFileSync(path.join(d, 'weights.bin')))).toBe(sha(big));
    const opens = seen.filter((s) => /op=OPEN/.test(s.url) && /offset=\d+&length=\d+|length=\d+/.test(s.url));
    expect(new Set(opens.map((s) => new URL(s.url, 'http://x').searchParams.get('offset'))).size).toBe(4);
  });

  it('uses TLS_CA and a client certificate from the HDFS secret folder, and HDFS_USER as user.name', async () => {
    const secretDir = path.join(tempDir('si-hdfs-secret-'), 'kserve-hdfscreds');
    dirs.push(path.dirname(secretDir));
    mkdirSync(secretDir);
    writeFileSync(path.join(secretDir, 'HDFS_NAMENODE'), secure);
    writeFileSync(path.join(secretDir, 'TLS_CA'), readFileSync(pki.ca));
    writeFileSync(path.join(secretDir, 'TLS_CERT'), pki.cert);
    writeFileSync(path.join(secretDir, 'TLS_KEY'), pki.key);
    writeFileSync(path.join(secretDir, 'HDFS_USER'), 'kserve');
    const d = dest();
    const r = await runSi(['hdfs://secure/model.onnx', d], { HDFS_SECRET_DIR: secretDir });
    expect(r.code, r.out).toBe(0);
    expect(readFileSync(path.join(d, 'model.onnx'), 'utf8')).toBe('secure-bytes');
    expect(r.out).not.toContain(pki.key.split('\n')[1]!);
    // The same secret through STORAGE_CONFIG (type hdfs, file keys base64), without the user.
    const viaConfig = await runSi(['hdfs://secure/model.onnx', dest()], {
      STORAGE_CONFIG: JSON.stringify({
        type: 'hdfs',
        HDFS_NAMENODE: secure,
        TLS_CA: readFileSync(pki.ca).toString('base64'),
        TLS_CERT: Buffer.from(pki.cert).toString('base64'),
        TLS_KEY: Buffer.from(pki.key).toString('base64'),
      }),
      HDFS_SECRET_DIR: path.join(secretDir, 'none'),
    });
    expect(viaConfig.code).toBe(1);
    expect(viaConfig.out).toMatch(/access denied: .*Permission denied: user=dr\.who/);
  });

  it('reports a missing path as not found, no namenode and Kerberos with clear lines', async () => {
    const missing = await runSi(['hdfs://user/kserve/nope', dest()], { HDFS_NAMENODE: active });
    expect(missing.code).toBe(1);
    expect(missing.out).toMatch(/error: hdfs:\/\/user\/kserve\/nope: not found: .*File does not exist: \/user\/kserve\/nope/);
    const none = await runSi(['hdfs://user/kserve/model', dest()], { HDFS_SECRET_DIR: '/nonexistent' });
    expect(none.code).toBe(1);
    expect(none.out).toMatch(/invalid: HDFS_NAMENODE is not set/);
    const krb = await runSi(['hdfs://user/kserve/model', dest()], { HDFS_NAMENODE: active, KERBEROS_PRINCIPAL: 'kserve@EXAMPLE.COM' });
    expect(krb.code).toBe(1);
    expect(krb.out).toMatch(/unsupported storage scheme: Kerberos authentication \(KERBEROS_PRINCIPAL\) is not supported/);
  });
});
