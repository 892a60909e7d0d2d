/**
 * The adaptive part planner (pure), and the engine using it against a real S3 server:
 * the first part is fetched alone and timed, and the rest follows the plan.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OVERHEAD_FACTOR, adaptivePartSize, splitRanges } from '../../storage-initializer/part-plan.js';
import { cleanup, installServers, runSi, startGofakes3, startMoto, startProxy, tempDir, type Running } from './helpers.js';

const MiB = 1024 * 1024;

describe('adaptive part size', () => {
  it.each([
    // [probe timing, min part, rest, expected part]
    ['cheap request starts keep the minimum part', { bytes: 16 * MiB, ttfbMs: 1, bodyMs: 100 }, 16 * MiB, 1000 * MiB, 16 * MiB],
    ['costly starts get parts of 4 × ttfb × rate', { bytes: 16 * MiB, ttfbMs: 200, bodyMs: 100 }, 16 * MiB, 10_000 * MiB, OVERHEAD_FACTOR * 200 * ((16 * MiB) / 100)],
    ['a part covering the rest means one stream', { bytes: 16 * MiB, ttfbMs: 500, bodyMs: 100 }, 16 * MiB, 100 * MiB, 100 * MiB],
    ['a body faster than the clock counts as 1 ms', { bytes: MiB, ttfbMs: 0, bodyMs: 0 }, 4 * MiB, 64 * MiB, 4 * MiB],
  ])('%s', (_name, probe, minPart, rest, want) => {
    expect(adaptivePartSize(probe, minPart, rest)).toBe(Math.ceil(want));
  });

  it('splits ranges inclusively, the last one shorter', () => {
    expect(splitRanges(10, 34, 10)).toEqual([
      { start: 10, end: 19 },
      { start: 20, end: 29 },
      { start: 30, end: 34 },
    ]);
    expect(splitRanges(0, 0, 10)).toEqual([{ start: 0, end: 0 }]);
  });
});

describe('the engine plans parts from the first part', () => {
  const servers = installServers();
  const dirs: string[] = [];
  const stops: Array<() => Promise<void>> = [];
  // Larger than the default first part (16 MiB, STORAGE_PART_SIZE unset: adaptive).
  const big = randomBytes(40 * MiB + 5);
  const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
  const targets: Array<{ name: string; server: Running }> = [];

  beforeAll(async () => {
    const moto = await startMoto(servers.moto);
    stops.push(moto.stop);
    targets.push({ name: 'moto', server: moto });
    const g = await startGofakes3(servers.gofakes3);
    stops.push(g.stop);
    targets.push({ name: 'gofakes3', server: g });
    for (const { server } of targets) {
      const s3 = new S3Client({ endpoint: server.url, forcePathStyle: true, region: 'us-east-1', credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
      await s3.send(new CreateBucketCommand({ Bucket: 'models' }));
      await s3.send(new PutObjectCommand({ Bucket: 'models', Key: 'big/w.bin', Body: big }));
      s3.destroy();
    }
  }, 600_000);

  afterAll(async () => {
    await Promise.all(stops.map((s) => s()));
    cleanup(...dirs);
  });

  it('plans the rest from the first 4 MiB of the first part, logs the plan, and the ranges it requests cover the object once', async () => {
    for (const { name, server } of targets) {
      const proxy = await startProxy(server.port);
      stops.push(proxy.stop);
      const d = path.join(tempDir(), 'm');
      dirs.push(path.dirname(d));
      const r = await runSi(['s3://models/big', d], { AWS_ENDPOINT_URL: proxy.url, AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing' });
      expect(r.code, `${name}: ${r.out}`).toBe(0);
      expect(sha(readFileSync(path.join(d, 'w.bin')))).toBe(sha(big));
      expect(r.out, name).toMatch(/w\.bin: first 4\.\d+ MiB started in \d+ ms and took \d+ ms; the remaining 24\.0 MiB in \d+ parts? of up to [\d.]+ [KM]iB/);
      const ranges = proxy.requests
        .map((q) => /\r\nrange: bytes=(\d+)-(\d+)/i.exec(q))
        .filter((m) => m !== null)
        .map((m) => [Number(m[1]), Number(m[2])] as const)
        .sort((a, b) => a[0] - b[0]);
      expect(ranges[0], name).toEqual([0, 16 * MiB - 1]);
      let next = 0;
      for (const [s, e] of ranges) {
        expect(s, name).toBe(next);
        next = e + 1;
      }
      expect(next, name).toBe(big.length);
    }
  });
});
