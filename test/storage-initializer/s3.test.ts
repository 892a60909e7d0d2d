/**
 * storage-initializer against a real S3 server (moto, on loopback), with a fault-injecting
 * proxy in front of it where a test needs resets, cuts, corruption, throttling or TLS.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { CreateBucketCommand, CreateMultipartUploadCommand, CompleteMultipartUploadCommand, PutObjectCommand, S3Client, UploadPartCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, exists, installServers, listFiles, makePki, makeTar, runSi, startMoto, startProxy, tempDir, type Pki, type Running, modelDest } from './helpers.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('storage-initializer s3://', () => {
  let moto: Running;
  let authMoto: Running;
  let pki: Pki;
  const dirs: string[] = [];
  const stops: Array<() => Promise<void>> = [];
  const big = randomBytes(24 * 1024 * 1024);
  const mid = randomBytes(3 * 1024 * 1024);
  let env: Record<string, string>;

  const dest = modelDest(dirs);

  beforeAll(async () => {
    const servers = installServers();
    [moto, authMoto] = await Promise.all([startMoto(servers.moto), startMoto(servers.moto, { auth: true })]);
    stops.push(moto.stop, authMoto.stop);
    pki = makePki();
    dirs.push(pki.dir);
    env = { AWS_ENDPOINT_URL: moto.url, AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'SECRETtesting123', AWS_DEFAULT_REGION: 'us-east-1' };
    const s3 = new S3Client({ endpoint: moto.url, forcePathStyle: true, region: 'us-east-1', credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
    await s3.send(new CreateBucketCommand({ Bucket: 'models' }));
    await s3.send(new CreateBucketCommand({ Bucket: 'public-models', ACL: 'public-read' }));
    await s3.send(new PutObjectCommand({ Bucket: 'public-models', Key: 'm/p.onnx', Body: 'public', ACL: 'public-read' }));
    const put = (Key: string, Body: string | Buffer) => s3.send(new PutObjectCommand({ Bucket: 'models', Key, Body }));
    await Promise.all([
      put('model/a.onnx', 'onnx-bytes'),
      put('model/sub/b.bin', 'b-bytes'),
      put('model/sub/deep/c.txt', 'c-bytes'),
      put('model/empty.txt', ''),
      put('model/', ''), // folder marker
      put('model-v2/x.onnx', 'sibling, must not be pulled'),
      put('model-v2.onnx', 'sibling file'),
      put('big/weights.bin', big),
      put('mid/weights.bin', mid),
      put('corrupt/file.txt', 'header CORRUPTME trailer'),
      put(
        'archives/model.tar',
        makeTar([
          { name: 'model/', type: '5' },
          { name: 'model/m.onnx', content: 'from-tar' },
        ]),
      ),
      put(
        'evil/evil.tar',
        makeTar([
          { name: 'ok.txt', content: 'ok' },
          { name: '../escape.txt', content: 'pwned' },
        ]),
      ),
    ]);
    // a multipart object: its ETag is not an MD5 and must not fail verification
    const mp = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'models', Key: 'multipart/w.bin' }));
    const p1 = randomBytes(5 * 1024 * 1024);
    const p2 = randomBytes(1024);
    const e1 = await s3.send(new UploadPartCommand({ Bucket: 'models', Key: 'multipart/w.bin', UploadId: mp.UploadId, PartNumber: 1, Body: p1 }));
    const e2 = await s3.send(new UploadPartCommand({ Bucket: 'models', Key: 'multipart/w.bin', UploadId: mp.UploadId, PartNumber: 2, Body: p2 }));
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: 'models',
        Key: 'multipart/w.bin',
        UploadId: mp.UploadId,
        MultipartUpload: {
          Parts: [
            { ETag: e1.ETag, PartNumber: 1 },
            { ETag: e2.ETag, PartNumber: 2 },
          ],
        },
      }),
    );
    s3.destroy();
  }, 600_000);

  afterAll(async () => {
    await Promise.all(stops.map((s) => s()));
    cleanup(...dirs);
  });

  it('downloads a prefix with nested folders, whole path segments only (not the model-v2 siblings)', async () => {
    const d = dest();
    const r = await runSi(['s3://models/model', d], env);
    expect(r.code, r.out).toBe(0);
    expect(listFiles(d)).toEqual(['a.onnx', 'empty.txt', 'sub/b.bin', 'sub/deep/c.txt']);
    expect(readFileSync(path.join(d, 'sub/deep/c.txt'), 'utf8')).toBe('c-bytes');
    expect(r.out).toMatch(/downloaded s3:\/\/models\/model to .*: 24 bytes .*4 files in [\d.]+s/);
    // a trailing slash means the same
    const d2 = dest();
    expect((await runSi(['s3://models/model/', d2], env)).code).toBe(0);
    expect(listFiles(d2)).toEqual(listFiles(d));
  });

  it('downloads a single object to <dest>/<basename>', async () => {
    const d = dest();
    const r = await runSi(['s3://models/model/sub/b.bin', d], env);
    expect(r.code, r.out).toBe(0);
    expect(listFiles(d)).toEqual(['b.bin']);
  });

  it('downloads several pairs in one run, and S3_ENDPOINT + S3_USE_HTTPS=0 as the webhook sets them', async () => {
    const d1 = dest();
    const d2 = dest();
    const { AWS_ENDPOINT_URL: _, ...rest } = env;
    const r = await runSi(['s3://models/model/a.onnx', d1, 's3://models/model/sub', d2], { ...rest, S3_ENDPOINT: `127.0.0.1:${moto.port}`, S3_USE_HTTPS: '0' });
    expect(r.code, r.out).toBe(0);
    expect(listFiles(d1)).toEqual(['a.onnx']);
    expect(listFiles(d2)).toEqual(['b.bin', 'deep/c.txt']);
  });

  it('fails with one clear line for a missing prefix or bucket', async () => {
    for (const uri of ['s3://models/nothing-here', 's3://no-such-bucket/model']) {
      const d = dest();
      const r = await runSi([uri, d], env);
      expect(r.code).toBe(1);
      const errors = r.out.split('\n').filter((l) => l.includes('error:'));
      expect(errors).toHaveLength(1);
      expect(errors[0]).toContain(`${uri}: not found`);
      expect(listFiles(d)).toEqual([]);
    }
  });

  it('applies STORAGE_ALLOW_PATTERNS and STORAGE_IGNORE_PATTERNS to relative paths', async () => {
    const d = dest();
    expect((await runSi(['s3://models/model', d], { ...env, STORAGE_ALLOW_PATTERNS: '["*.onnx","sub/*"]', STORAGE_IGNORE_PATTERNS: 'sub/deep/*' })).code).toBe(0);
    expect(listFiles(d)).toEqual(['a.onnx', 'sub/b.bin']);
    const none = await runSi(['s3://models/model', dest()], { ...env, STORAGE_ALLOW_PATTERNS: '*.safetensors' });
    expect(none.code).toBe(1);
    expect(none.out).toContain('s3://models/model: not found: 4 files found but none matches');
  });

  it('splits large objects into parallel ranged GETs and verifies them', async () => {
    const proxy = await startProxy(moto.port);
    stops.push(proxy.stop);
    const d = dest();
    const r = await runSi(['s3://models/big', d], { ...env, AWS_ENDPOINT_URL: proxy.url, STORAGE_PART_SIZE: String(2 * 1024 * 1024), STORAGE_CONCURRENCY: '6' });
    expect(r.code, r.out).toBe(0);
    expect(sha(readFileSync(path.join(d, 'weights.bin')))).toBe(sha(big));
    expect(proxy.requests.filter((q) => /\r\nrange: bytes=\d+-\d+/i.test(q))).toHaveLength(12);
  });

  it('verifies multipart objects against their multipart ETag (part sizes from HeadObject PartNumber)', async () => {
    const d = dest();
    const r = await runSi(['s3://models/multipart', d], { ...env, STORAGE_PART_SIZE: String(1024 * 1024) });
    expect(r.code, r.out).toBe(0);
    expect(listFiles(d)).toEqual(['w.bin']);
  });

  it('sends unsigned requests with awsAnonymousCredential=true: public bucket yes, private bucket access denied', async () => {
    const proxy = await startProxy(moto.port);
    stops.push(proxy.stop);
    const d = dest();
    const r = await runSi(['s3://public-models/m', d], { AWS_ENDPOINT_URL: proxy.url, awsAnonymousCredential: 'true' });
    expect(r.code, r.out).toBe(0);
    expect(listFiles(d)).toEqual(['p.onnx']);
    expect(proxy.requests.length).toBeGreaterThan(0);
    expect(proxy.requests.every((q) => !/\r\nauthorization:/i.test(q))).toBe(true);
    const denied = await runSi(['s3://models/model', dest()], { AWS_ENDPOINT_URL: proxy.url, awsAnonymousCredential: 'true' });
    expect(denied.code).toBe(1);
    expect(denied.out).toContain('s3://models/model: access denied');
  });

  it('reports access denied for wrong credentials and never prints the secret', async () => {
    const d = dest();
    const r = await runSi(['s3://models/model', d], { ...env, AWS_ENDPOINT_URL: authMoto.url, AWS_SECRET_ACCESS_KEY: 'TOPSECRETvalue42' });
    expect(r.code).toBe(1);
    expect(r.out).toContain('s3://models/model: access denied');
    expect(r.out).not.toContain('TOPSECRETvalue42');
    expect(r.out).not.toContain('retrying'); // not a transient failure
  });

  it('honours STORAGE_CONFIG (the storage-config secret) as the webhook passes it', async () => {
    const d = dest();
    const r = await runSi(['s3://models/model/a.onnx', d], {
      STORAGE_CONFIG: JSON.stringify({ type: 's3', endpoint_url: 'http://127.0.0.1:1', access_key_id: 'testing', secret_access_key: 'x', region: 'us-east-1' }),
      STORAGE_OVERRIDE_CONFIG: JSON.stringify({ endpoint_url: moto.url }),
    });
    expect(r.code, r.out).toBe(0);
    expect(listFiles(d)).toEqual(['a.onnx']);
  });

  it('trusts AWS_CA_BUNDLE, refuses an unknown CA, and skips verification with S3_VERIFY_SSL=0', async () => {
    const proxy = await startProxy(moto.port, { tls: { key: pki.key, cert: pki.cert } });
    stops.push(proxy.stop);
    const tlsEnv = { ...env, AWS_ENDPOINT_URL: proxy.url };
    const ok = await runSi(['s3://models/model/a.onnx', dest()], { ...tlsEnv, AWS_CA_BUNDLE: pki.ca });
    expect(ok.code, ok.out).toBe(0);
    const bad = await runSi(['s3://models/model/a.onnx', dest()], tlsEnv);
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/s3:\/\/models\/model\/a\.onnx: unreachable: TLS verification failed/);
    const insecure = await runSi(['s3://models/model/a.onnx', dest()], { ...tlsEnv, S3_VERIFY_SSL: '0' });
    expect(insecure.code, insecure.out).toBe(0);
    const { AWS_ENDPOINT_URL: _, ...rest } = tlsEnv;
    const webhookStyle = await runSi(['s3://models/model/a.onnx', dest()], { ...rest, S3_ENDPOINT: `127.0.0.1:${proxy.port}`, S3_USE_HTTPS: '1', AWS_CA_BUNDLE: pki.ca });
    expect(webhookStyle.code, webhookStyle.out).toBe(0);
    const missingCa = await runSi(['s3://models/model/a.onnx', dest()], { ...tlsEnv, AWS_CA_BUNDLE: '/no/such/ca.pem' });
    expect(missingCa.code).toBe(1);
    expect(missingCa.out).toContain('failed to find ca bundle file /no/such/ca.pem');
  });

  it('retries connection resets and responses cut mid-body, then completes', async () => {
    const resets = await startProxy(moto.port, { resetFirst: 2 });
    stops.push(resets.stop);
    const d = dest();
    const r = await runSi(['s3://models/model', d], { ...env, AWS_ENDPOINT_URL: resets.url });
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('retrying');
    expect(listFiles(d)).toHaveLength(4);

    const cuts = await startProxy(moto.port, { cutFirst: { count: 3, afterBytes: 200_000 } });
    stops.push(cuts.stop);
    const d2 = dest();
    const r2 = await runSi(['s3://models/mid/weights.bin', d2], { ...env, AWS_ENDPOINT_URL: cuts.url, STORAGE_CONCURRENCY: '1' });
    expect(r2.code, r2.out).toBe(0);
    expect(r2.out).toContain('retrying');
    expect(sha(readFileSync(path.join(d2, 'weights.bin')))).toBe(sha(mid));
  });

  it('gives up after STORAGE_MAX_ATTEMPTS on an unreachable endpoint', async () => {
    const d = dest();
    const r = await runSi(['s3://models/model', d], { ...env, AWS_ENDPOINT_URL: 'http://127.0.0.1:1', STORAGE_MAX_ATTEMPTS: '3' });
    expect(r.code).toBe(1);
    expect(r.out.match(/retrying/g)).toHaveLength(2);
    expect(r.out).toContain('s3://models/model: unreachable');
  });

  it('rejects a body whose MD5 does not match the ETag, leaving nothing behind', async () => {
    const proxy = await startProxy(moto.port, { corrupt: { from: 'CORRUPTME', to: 'CORRUPTED' } });
    stops.push(proxy.stop);
    const d = dest();
    const r = await runSi(['s3://models/corrupt', d], { ...env, AWS_ENDPOINT_URL: proxy.url });
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/s3:\/\/models\/corrupt: checksum mismatch: file\.txt: MD5 [0-9a-f]{32} does not match/);
    expect(listFiles(d)).toEqual([]);
  });

  it('unpacks a single tar object and refuses a malicious one', async () => {
    const d = dest();
    expect((await runSi(['s3://models/archives', d], env)).code).toBe(0);
    expect(listFiles(d)).toEqual(['model/m.onnx']);
    const e = dest();
    const r = await runSi(['s3://models/evil/evil.tar', e], env);
    expect(r.code).toBe(1);
    expect(r.out).toContain("s3://models/evil/evil.tar: unsafe archive: member '../escape.txt' contains '..'");
    expect(listFiles(e)).toEqual([]);
    expect(exists(path.join(e, '..', 'escape.txt'))).toBe(false);
  });

  it('leaves no partial model when killed with SIGKILL, and a rerun completes', async () => {
    // Every part stops half way: the download is in progress, and cannot finish, when the kill lands.
    const slow = await startProxy(moto.port, { holdAfterBytes: 2 * 1024 * 1024 });
    stops.push(slow.stop);
    const d = dest();
    let killed = false;
    const r = await runSi(
      ['s3://models/big', d],
      { ...env, AWS_ENDPOINT_URL: slow.url, STORAGE_PROGRESS_INTERVAL: '0.2', STORAGE_PART_SIZE: String(4 * 1024 * 1024) },
      {
        onOutput: (out, child) => {
          if (!killed && /progress s3:\/\/models\/big: [1-9][\d.]* MiB/.test(out)) {
            killed = true;
            child.kill('SIGKILL');
          }
        },
      },
    );
    expect(killed, r.out).toBe(true);
    expect(r.code).toBe(null);
    // only the hidden temporary folder is there, never weights.bin
    expect(listFiles(d).every((f) => f.startsWith('.storage-initializer-'))).toBe(true);
    expect(listFiles(d).length).toBeGreaterThan(0);
    const again = await runSi(['s3://models/big', d], env);
    expect(again.code, again.out).toBe(0);
    expect(listFiles(d)).toEqual(['weights.bin']);
    expect(sha(readFileSync(path.join(d, 'weights.bin')))).toBe(sha(big));
  });

  it('serves a second run from --cache_dir without downloading, and misses once an object changes', async () => {
    const proxy = await startProxy(moto.port);
    stops.push(proxy.stop);
    const cache = path.join(tempDir(), 'cache');
    dirs.push(path.dirname(cache));
    const e = { ...env, AWS_ENDPOINT_URL: proxy.url };
    const gets = () => proxy.requests.filter((q) => /^GET \/models\/model\/\S+ HTTP/.test(q)).length;
    const r1 = await runSi(['--cache_dir', cache, 's3://models/model', dest()], e);
    expect(r1.code, r1.out).toBe(0);
    const first = gets();
    expect(first).toBe(3); // the empty file needs no request
    const d2 = dest();
    const r2 = await runSi([`--cache_dir=${cache}`, 's3://models/model', d2], e);
    expect(r2.code, r2.out).toBe(0);
    expect(r2.out).toContain('cache hit for s3://models/model');
    expect(gets()).toBe(first);
    expect(listFiles(d2)).toEqual(['a.onnx', 'empty.txt', 'sub/b.bin', 'sub/deep/c.txt']);
    const s3 = new S3Client({ endpoint: moto.url, forcePathStyle: true, region: 'us-east-1', credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
    await s3.send(new PutObjectCommand({ Bucket: 'models', Key: 'model/sub/b.bin', Body: 'B-bytes' }));
    s3.destroy();
    const d3 = dest();
    const r3 = await runSi(['s3://models/model', d3], { ...e, STORAGE_CACHE_DIR: cache });
    expect(r3.code, r3.out).toBe(0);
    expect(r3.out).not.toContain('cache hit');
    expect(readFileSync(path.join(d3, 'sub/b.bin'), 'utf8')).toBe('B-bytes');
  });

  it('--cache_max_bytes: storing past the bound evicts the least recently used entry, which is downloaded again next time', async () => {
    const proxy = await startProxy(moto.port);
    stops.push(proxy.stop);
    const cache = path.join(tempDir(), 'cache');
    dirs.push(path.dirname(cache));
    const e = { ...env, AWS_ENDPOINT_URL: proxy.url };
    const gets = (prefix: string) => proxy.requests.filter((q) => q.startsWith(`GET /models/${prefix}/`)).length;
    // mid (3 MiB) and model (a few bytes) fit under 4 MiB; mid and big (24 MiB) do not.
    const bound = ['--cache_dir', cache, '--cache_max_bytes', '4Mi'];
    for (const m of ['mid', 'model']) {
      const r = await runSi([...bound, `s3://models/${m}`, dest()], e);
      expect(r.code, r.out).toBe(0);
    }
    expect(readdirSync(cache).filter((n) => !n.startsWith('.'))).toHaveLength(2);
    const stored = await runSi([...bound, 's3://models/big', dest()], e);
    expect(stored.code, stored.out).toBe(0);
    // big alone is over the bound and stays (its pod uses it); both others go, oldest first.
    expect(stored.out).toMatch(/cache over 4\.0 MiB: evicted 2 least recently used entries/);
    expect(readdirSync(cache).filter((n) => !n.startsWith('.'))).toHaveLength(1);
    const midGets = gets('mid');
    // Unbounded this time (the variable, no flag): mid is stored again and big stays.
    const again = await runSi(['s3://models/mid', dest()], { ...e, STORAGE_CACHE_DIR: cache });
    expect(again.code, again.out).toBe(0);
    expect(again.out).not.toContain('cache hit');
    expect(gets('mid')).toBeGreaterThan(midGets);
    const bigGets = gets('big');
    const hit = await runSi([...bound, 's3://models/big', dest()], e);
    expect(hit.out).toContain('cache hit for s3://models/big');
    expect(gets('big')).toBe(bigGets);
  });
});
