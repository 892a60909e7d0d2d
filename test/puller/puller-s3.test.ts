/**
 * The puller against real S3 (moto, through a loopback proxy that counts object reads), with
 * the node-local cache (`--storage_cache_dir`, the storage-initializer's content-addressed
 * cache): credentials and endpoint come from the environment as the init container's do; two
 * servers of one node sharing the cache download each object once, the second hard-linking
 * the first's files.
 */
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, json, post } from '../helpers/http.js';
import { fixture } from '../helpers/server.js';
import { waitFor } from '../helpers/wait-for.js';
import { installServers, startMoto, type Running } from '../storage-initializer/helpers.js';
import { ConfigMapDir, type PullerServer, startPullerServer } from './helpers.js';

const infer = (url: string, model: string) => post(`${url}/v2/models/${model}/infer`, { inputs: [{ name: 'INPUT0', shape: [1, 2], datatype: 'FP32', data: [[1, 2]] }] });
const output = (r: { text: string }) => (JSON.parse(r.text) as { outputs: Array<{ data: number[] }> }).outputs[0]?.data;

/** Forwards to `target`, counting object GETs (a path below the bucket, no listing query) by path. */
async function countingProxy(target: string): Promise<{ url: string; objectReads: Map<string, number>; close(): Promise<void> }> {
  const objectReads = new Map<string, number>();
  const upstream = new URL(target);
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'GET' && u.pathname.split('/').filter(Boolean).length > 1 && !u.searchParams.has('list-type')) {
      objectReads.set(u.pathname, (objectReads.get(u.pathname) ?? 0) + 1);
    }
    const out = http.request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    objectReads,
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

describe('the model puller over S3, with the node-local cache', () => {
  let moto: Running;
  let proxy: Awaited<ReturnType<typeof countingProxy>>;
  const cm = new ConfigMapDir();
  const cacheDir = mkdtempSync(path.join(tmpdir(), 'puller-cache-'));
  const servers: PullerServer[] = [];
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    moto = await startMoto(installServers().moto);
    const s3 = new S3Client({ endpoint: moto.url, forcePathStyle: true, region: 'us-east-1', credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
    await s3.send(new CreateBucketCommand({ Bucket: 'models' }));
    await s3.send(new PutObjectCommand({ Bucket: 'models', Key: 'alpha/model.onnx', Body: readFileSync(fixture('identity_fp32')) }));
    // A versioned folder, as Triton's layout puts one under the model.
    await s3.send(new PutObjectCommand({ Bucket: 'models', Key: 'gamma/1/model.onnx', Body: readFileSync(fixture('scale2_fp32')) }));
    s3.destroy();
    proxy = await countingProxy(moto.url);
    env = { AWS_ENDPOINT_URL: proxy.url, AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing', AWS_DEFAULT_REGION: 'us-east-1' };
    cm.write([
      { modelName: 'alpha', modelSpec: { storageUri: 's3://models/alpha', framework: 'onnx', memory: '1Mi' } },
      { modelName: 'gamma', modelSpec: { storageUri: 's3://models/gamma', framework: 'onnx', memory: '1Mi' } },
    ]);
  });
  afterAll(async () => {
    for (const s of servers) await s.close();
    await proxy?.close();
    await moto?.stop();
    cm.cleanup();
    rmSync(cacheDir, { recursive: true, force: true });
  });

  it('pulls s3:// models with the environment credentials and serves them', async () => {
    const t = await startPullerServer(cm.file, ['--storage_cache_dir', cacheDir], env);
    servers.push(t);
    await waitFor(async () => (await get(`${t.url}/v2/health/ready`)).status === 200, { description: 'first server ready' });
    expect(output(await infer(t.url, 'alpha'))).toEqual([1, 2]);
    expect(output(await infer(t.url, 'gamma'))).toEqual([2, 4]);
    expect(json(await get(`${t.url}/v2/models/gamma`))).toMatchObject({ name: 'gamma', versions: ['1'] });
    expect(Object.fromEntries(proxy.objectReads)).toEqual({ '/models/alpha/model.onnx': 1, '/models/gamma/1/model.onnx': 1 });
  });

  it('a second server on the node with the same cache downloads nothing: its files are links to the cached ones', async () => {
    const t = await startPullerServer(cm.file, ['--storage_cache_dir', cacheDir], env);
    servers.push(t);
    await waitFor(async () => (await get(`${t.url}/v2/health/ready`)).status === 200, { description: 'second server ready' });
    expect(output(await infer(t.url, 'alpha'))).toEqual([1, 2]);
    expect(output(await infer(t.url, 'gamma'))).toEqual([2, 4]);
    expect(Object.fromEntries(proxy.objectReads)).toEqual({ '/models/alpha/model.onnx': 1, '/models/gamma/1/model.onnx': 1 });
    // One inode for the cache entry and both servers' copies.
    expect(statSync(path.join(t.modelDir, 'alpha/model.onnx')).nlink).toBeGreaterThanOrEqual(3);
    expect(statSync(path.join(t.modelDir, 'alpha/model.onnx')).ino).toBe(statSync(path.join(servers[0]!.modelDir, 'alpha/model.onnx')).ino);
  });

  it('two servers filling one fresh cache at the same time both serve whole models', async () => {
    const fresh = mkdtempSync(path.join(tmpdir(), 'puller-cache-'));
    try {
      const pair = await Promise.all([0, 1].map(() => startPullerServer(cm.file, ['--storage_cache_dir', fresh], env)));
      servers.push(...pair);
      for (const t of pair) {
        await waitFor(async () => (await get(`${t.url}/v2/health/ready`)).status === 200, { description: 'server ready' });
        expect(output(await infer(t.url, 'alpha'))).toEqual([1, 2]);
        expect(output(await infer(t.url, 'gamma'))).toEqual([2, 4]);
      }
      // One entry per model, nothing half-written left beside them.
      expect(readdirSync(fresh).filter((e) => e.startsWith('.'))).toEqual([]);
      expect(readdirSync(fresh)).toHaveLength(2);
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });

  it('reports an s3:// model that does not exist, while the others serve', async () => {
    const [t] = servers as [PullerServer];
    cm.write([
      { modelName: 'alpha', modelSpec: { storageUri: 's3://models/alpha', framework: 'onnx' } },
      { modelName: 'gamma', modelSpec: { storageUri: 's3://models/gamma', framework: 'onnx', memory: '1Mi' } },
      { modelName: 'ghost', modelSpec: { storageUri: 's3://models/ghost', framework: 'onnx' } },
    ]);
    const ix = await waitFor(async () => json(await post(`${t.url}/v2/repository/index`)) as Array<{ name: string; state: string; reason?: string }>, {
      until: (x) => x.find((e) => e.name === 'ghost')?.state === 'UNAVAILABLE',
      description: 'ghost reported',
    });
    expect(ix.find((e) => e.name === 'ghost')?.reason).toMatch(/^Failed to download s3:\/\/models\/ghost: [^:]*not found[^:]*: /i);
    expect(output(await infer(t.url, 'alpha'))).toEqual([1, 2]);
  });
});
