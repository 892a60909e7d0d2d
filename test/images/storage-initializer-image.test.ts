/**
 * The storage-initializer image as KServe's init container runs it: `<src_uri> <dest_path>`
 * arguments, credentials in the environment, the destination a mounted volume, UID 1000,
 * read-only root filesystem. Sources are real servers on loopback (moto for S3, a plain
 * HTTP server for https-less downloads and archives), reached with --network host.
 */
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, installServers, listFiles, makeTar, startFakeGcs, startMoto, tempDir, type Running } from '../storage-initializer/helpers.js';
import { HARDENED, docker, imageName, requireImage } from './docker.js';

const IMAGE = imageName('storage-initializer');
const MODEL = Buffer.alloc(3 * 1024 * 1024, 7);
const ARCHIVE = makeTar([
  { name: 'model.onnx', content: 'onnx-bytes' },
  { name: 'sub/config.pbtxt', content: 'name: "m"' },
]);

let moto: Running;
let gcs: Running;
let http: Server;
let httpUrl: string;
/** A slow body: the container is killed while it streams. */
let slowStarted: () => void = () => undefined;
const dirs: string[] = [];

function destination(): string {
  const d = tempDir('si-image-dest-');
  // The pod's emptyDir is writable by the container's UID; so is this mount.
  chmodSync(d, 0o777);
  dirs.push(d);
  return d;
}

function run(args: string[], env: Record<string, string> = {}, name?: string) {
  const envArgs = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  return docker(['run', '--rm', ...(name ? ['--name', name] : []), '--network', 'host', ...HARDENED, ...envArgs, '-v', `${args[1]}:/mnt/models`, IMAGE, args[0]!, '/mnt/models']);
}

beforeAll(async () => {
  await requireImage(IMAGE);
  const servers = installServers();
  moto = await startMoto(servers.moto);
  const gcsData = tempDir('si-image-gcs-');
  dirs.push(gcsData);
  mkdirSync(path.join(gcsData, 'models', 'flowers', 'sub'), { recursive: true });
  writeFileSync(path.join(gcsData, 'models', 'flowers', 'model.onnx'), MODEL);
  writeFileSync(path.join(gcsData, 'models', 'flowers', 'sub', 'labels.txt'), 'daisy');
  gcs = await startFakeGcs(servers.fakeGcs, gcsData);
  const s3 = new S3Client({ endpoint: moto.url, forcePathStyle: true, region: 'us-east-1', credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
  await s3.send(new CreateBucketCommand({ Bucket: 'models' }));
  await s3.send(new PutObjectCommand({ Bucket: 'models', Key: 'iris/model.onnx', Body: MODEL }));
  await s3.send(new PutObjectCommand({ Bucket: 'models', Key: 'iris/1/weights.bin', Body: 'w' }));
  http = createServer((req, res) => {
    if (req.url === '/model.tar') {
      res.writeHead(200, { 'content-type': 'application/x-tar', 'content-length': ARCHIVE.length });
      res.end(ARCHIVE);
    } else if (req.url === '/slow.onnx') {
      res.writeHead(200, { 'content-length': 64 * 1024 * 1024 });
      res.write(Buffer.alloc(1024 * 1024));
      slowStarted();
      // Never finishes within the test: the container is killed first.
      const t = setInterval(() => res.write(Buffer.alloc(1024)), 200);
      res.on('close', () => clearInterval(t));
    } else {
      res.writeHead(404).end('no such object');
    }
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  httpUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await moto?.stop();
  await gcs?.stop();
  http?.closeAllConnections();
  await new Promise((r) => http?.close(r));
  cleanup(...dirs);
});

describe('kserve-ts-storage-initializer image', () => {
  it('pulls an s3:// prefix with credentials from the environment; files complete and owned by UID 1000', async () => {
    const dest = destination();
    const r = await run(['s3://models/iris', dest], {
      AWS_ACCESS_KEY_ID: 'testing',
      AWS_SECRET_ACCESS_KEY: 'testing',
      AWS_ENDPOINT_URL: moto.url,
      AWS_DEFAULT_REGION: 'us-east-1',
    });
    expect(r.code, r.stderr).toBe(0);
    expect(listFiles(dest).sort()).toEqual(['1/weights.bin', 'model.onnx']);
    expect(readFileSync(path.join(dest, 'model.onnx')).equals(MODEL)).toBe(true);
    expect(statSync(path.join(dest, 'model.onnx')).uid).toBe(1000);
    expect(r.stdout + r.stderr).not.toContain('testing');
  });

  it('pulls a gs:// prefix from the GCS server', async () => {
    const dest = destination();
    const r = await run(['gs://models/flowers', dest], { GCS_ENDPOINT: gcs.url });
    expect(r.code, r.stderr).toBe(0);
    expect(listFiles(dest).sort()).toEqual(['model.onnx', 'sub/labels.txt']);
    expect(readFileSync(path.join(dest, 'model.onnx')).equals(MODEL)).toBe(true);
    expect(statSync(path.join(dest, 'sub/labels.txt')).uid).toBe(1000);
  });

  it('unpacks an archive fetched over HTTP', async () => {
    const dest = destination();
    const r = await run([`${httpUrl}/model.tar`, dest]);
    expect(r.code, r.stderr).toBe(0);
    expect(listFiles(dest).sort()).toEqual(['model.onnx', 'sub/config.pbtxt']);
    expect(readFileSync(path.join(dest, 'sub/config.pbtxt'), 'utf8')).toBe('name: "m"');
  });

  it('a missing object exits non-zero with one clear line and writes nothing', async () => {
    const dest = destination();
    const r = await run([`${httpUrl}/missing.onnx`, dest]);
    expect(r.code).not.toBe(0);
    const lines = r.stderr
      .trim()
      .split('\n')
      .filter((l) => l.includes('error'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/not found/i);
    expect(listFiles(dest)).toEqual([]);
  });

  it('a wrong URI scheme exits non-zero with one clear line and writes nothing', async () => {
    const dest = destination();
    const r = await run(['nosuch://bucket/model', dest]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/nosuch/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(listFiles(dest)).toEqual([]);
  });

  it('a container killed mid-download leaves no partial model visible, and a rerun completes', async () => {
    const dest = destination();
    const name = `kserve-ts-si-kill-${process.pid}`;
    const started = new Promise<void>((r) => (slowStarted = r));
    const running = run([`${httpUrl}/slow.onnx`, dest], {}, name);
    await started;
    await new Promise((r) => setTimeout(r, 500));
    const kill = await docker(['kill', name]);
    expect(kill.code, kill.stderr).toBe(0);
    const killed = await running;
    expect(killed.code).not.toBe(0);
    // Nothing that looks like a model: only hidden temp or marker entries may remain.
    expect(listFiles(dest).filter((f) => !f.split('/').some((p) => p.startsWith('.')))).toEqual([]);
    const rerun = await run([`${httpUrl}/model.tar`, dest]);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(
      listFiles(dest)
        .filter((f) => !f.split('/').some((p) => p.startsWith('.')))
        .sort(),
    ).toEqual(['model.onnx', 'sub/config.pbtxt']);
  });
});
