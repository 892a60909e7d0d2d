/**
 * S3 multipart ETags (`<MD5 of the part MD5s>-<N>`): the verifier on real bytes in the hash
 * workers, and downloads of objects the test uploads in parts (CreateMultipartUpload /
 * UploadPart) from both S3 servers. moto answers HeadObject with PartNumber (part sizes and
 * PartsCount), so its multipart ETags are checked part by part; gofakes3 stores a multipart
 * upload as one object whose ETag is the plain MD5, which the engine checks as any MD5.
 * A download whose bytes are corrupted on the way (a proxy, since moto's stored data cannot
 * be altered) is refused against the multipart ETag and leaves nothing in the destination.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CompleteMultipartUploadCommand, CreateBucketCommand, CreateMultipartUploadCommand, HeadObjectCommand, S3Client, UploadPartCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HashPool } from '../../storage-initializer/hash-pool.js';
import { MultipartCheck, multipartMd5, parseMultipartEtag, verifyMultipart } from '../../storage-initializer/multipart-etag.js';
import { cleanup, exists, installServers, listFiles, runSi, startGofakes3, startMoto, startProxy, tempDir, type Running, modelDest } from './helpers.js';

const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const MiB = 1024 * 1024;

describe('multipart ETag verifier (hash workers, real bytes)', () => {
  const dirs: string[] = [];
  const pool = new HashPool(2);
  afterAll(async () => {
    await pool.close();
    cleanup(...dirs);
  });

  it('parses only "<32 hex>-<N>" ETags with 1 to 10,000 parts', () => {
    expect(parseMultipartEtag('"D922B4C7F5D4DEF9E9A3FAE79E251644-2"')).toEqual({ md5: 'd922b4c7f5d4def9e9a3fae79e251644', parts: 2 });
    expect(parseMultipartEtag('d922b4c7f5d4def9e9a3fae79e251644')).toBeUndefined();
    expect(parseMultipartEtag('d922b4c7f5d4def9e9a3fae79e251644-0')).toBeUndefined();
    expect(parseMultipartEtag('d922b4c7f5d4def9e9a3fae79e251644-10001')).toBeUndefined();
    expect(parseMultipartEtag(undefined)).toBeUndefined();
  });

  it('accepts the right ETag, and refuses a wrong ETag or part sizes that do not tile the file', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const parts = [randomBytes(3 * MiB), randomBytes(3 * MiB), randomBytes(12345)];
    const file = path.join(dir, 'w.bin');
    writeFileSync(file, Buffer.concat(parts));
    const size = parts.reduce((n, p) => n + p.length, 0);
    const sizes = parts.map((p) => p.length);
    const right = { md5: multipartMd5(parts.map(md5)), parts: 3 };
    await expect(verifyMultipart(pool, 'w.bin', file, size, right, sizes)).resolves.toBeUndefined();
    const wrong = { md5: multipartMd5([md5(parts[0]!), md5(parts[0]!), md5(parts[2]!)]), parts: 3 };
    await expect(verifyMultipart(pool, 'w.bin', file, size, wrong, sizes)).rejects.toMatchObject({
      kind: 'checksum_mismatch',
      message: expect.stringMatching(/multipart ETag [0-9a-f]{32}-3 does not match the store's [0-9a-f]{32}-3/),
    });
    // Same total, other boundaries: every part digest differs.
    await expect(verifyMultipart(pool, 'w.bin', file, size, right, [2 * MiB, 4 * MiB, 12345])).rejects.toMatchObject({ kind: 'checksum_mismatch' });
    await expect(verifyMultipart(pool, 'w.bin', file, size, right, [3 * MiB, 3 * MiB])).rejects.toMatchObject({
      kind: 'checksum_mismatch',
      message: expect.stringMatching(/part sizes/),
    });
    // Fed as a download's written prefix grows (steps that straddle part boundaries).
    const check = new MultipartCheck(pool, 'w.bin', file, size, right, sizes);
    for (let at = 0; at < size; at += 1234567) check.advance(at);
    await expect(check.result()).resolves.toBeUndefined();
  });
});

describe('multipart uploads downloaded from moto and gofakes3', () => {
  const servers: Array<{ name: string; server: Running }> = [];
  const stops: Array<() => Promise<void>> = [];
  const dirs: string[] = [];
  // Part 1 starts with a marker the corrupting proxy rewrites (same length).
  const parts = [Buffer.concat([Buffer.from('MPMARKER'), randomBytes(5 * MiB - 8)]), randomBytes(5 * MiB), randomBytes(777)];
  const body = Buffer.concat(parts);
  const dest = modelDest(dirs);
  const envFor = (url: string) => ({ AWS_ENDPOINT_URL: url, AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing', AWS_DEFAULT_REGION: 'us-east-1' });

  beforeAll(async () => {
    const bins = installServers();
    const [moto, gofakes3] = await Promise.all([startMoto(bins.moto), startGofakes3(bins.gofakes3)]);
    servers.push({ name: 'moto', server: moto }, { name: 'gofakes3', server: gofakes3 });
    stops.push(moto.stop, gofakes3.stop);
    for (const { server } of servers) {
      const s3 = new S3Client({ endpoint: server.url, forcePathStyle: true, region: 'us-east-1', credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
      await s3.send(new CreateBucketCommand({ Bucket: 'models' }));
      const Key = 'mp/weights.bin';
      const up = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'models', Key }));
      const done = [];
      for (const [i, p] of parts.entries()) {
        const r = await s3.send(new UploadPartCommand({ Bucket: 'models', Key, UploadId: up.UploadId, PartNumber: i + 1, Body: p }));
        done.push({ ETag: r.ETag, PartNumber: i + 1 });
      }
      await s3.send(new CompleteMultipartUploadCommand({ Bucket: 'models', Key, UploadId: up.UploadId, MultipartUpload: { Parts: done } }));
      s3.destroy();
    }
  }, 120_000);

  afterAll(async () => {
    await Promise.all(stops.map((s) => s()));
    cleanup(...dirs);
  });

  it('moto: the ETag is the multipart one, checked part by part (HeadObject PartNumber=1..3), in ranged parts', async () => {
    const moto = servers[0]!.server;
    const s3 = new S3Client({ endpoint: moto.url, forcePathStyle: true, region: 'us-east-1', credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
    const head = await s3.send(new HeadObjectCommand({ Bucket: 'models', Key: 'mp/weights.bin' }));
    s3.destroy();
    expect(head.ETag).toBe(`"${multipartMd5(parts.map(md5))}-3"`);
    const proxy = await startProxy(moto.port);
    stops.push(proxy.stop);
    const d = dest();
    const r = await runSi(['s3://models/mp', d], { ...envFor(proxy.url), STORAGE_PART_SIZE: String(2 * MiB) });
    expect(r.code, r.out).toBe(0);
    expect(sha(readFileSync(path.join(d, 'weights.bin')))).toBe(sha(body));
    expect(r.out).not.toMatch(/only its size is checked/);
    const partHeads = proxy.requests
      .filter((q) => q.startsWith('HEAD '))
      .map((q) => /[?&]partNumber=(\d+)/.exec(q)?.[1])
      .sort();
    expect(partHeads).toEqual(['1', '2', '3']);
  });

  it('moto: bytes corrupted on the way are refused against the multipart ETag, and nothing is left in the destination', async () => {
    const proxy = await startProxy(servers[0]!.server.port, { corrupt: { from: 'MPMARKER', to: 'mpmarker' } });
    stops.push(proxy.stop);
    const d = dest();
    const r = await runSi(['s3://models/mp', d], { ...envFor(proxy.url), STORAGE_PART_SIZE: String(2 * MiB) });
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/checksum mismatch: weights\.bin: multipart ETag [0-9a-f]{32}-3 does not match the store's [0-9a-f]{32}-3/);
    expect(exists(d) ? listFiles(d) : []).toEqual([]);
  });

  it('gofakes3: a multipart upload is stored with the plain MD5 ETag, which is checked (corruption refused too)', async () => {
    const g = servers[1]!.server;
    const d = dest();
    const r = await runSi(['s3://models/mp', d], { ...envFor(g.url), STORAGE_PART_SIZE: String(2 * MiB) });
    expect(r.code, r.out).toBe(0);
    expect(sha(readFileSync(path.join(d, 'weights.bin')))).toBe(sha(body));
    const proxy = await startProxy(g.port, { corrupt: { from: 'MPMARKER', to: 'mpmarker' } });
    stops.push(proxy.stop);
    const bad = dest();
    const c = await runSi(['s3://models/mp', bad], { ...envFor(proxy.url), STORAGE_PART_SIZE: String(2 * MiB) });
    expect(c.code).toBe(1);
    expect(c.out).toMatch(new RegExp(`checksum mismatch: weights\\.bin: MD5 [0-9a-f]{32} does not match the store's ${md5(body)}`));
    expect(exists(bad) ? listFiles(bad) : []).toEqual([]);
  });
});
