/** storage-initializer against fake-gcs-server (built from the Go module proxy) on loopback. */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, installServers, listFiles, runSi, startFakeGcs, startProxy, tempDir, type Running, modelDest } from './helpers.js';

const servers = installServers();
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('storage-initializer gs://', () => {
  let gcs: Running;
  const dirs: string[] = [];
  const stops: Array<() => Promise<void>> = [];
  const big = randomBytes(5 * 1024 * 1024 + 17);

  const dest = modelDest(dirs);

  beforeAll(async () => {
    const data = tempDir('si-gcs-data-');
    dirs.push(data);
    const put = (key: string, body: string | Buffer) => {
      const p = path.join(data, 'models', key);
      mkdirSync(path.dirname(p), { recursive: true });
      writeFileSync(p, body);
    };
    put('model/a.onnx', 'onnx-bytes');
    put('model/sub/b.bin', 'b-bytes');
    put('model/sub/deep/c.txt', 'c-bytes');
    put('model-v2/x.onnx', 'sibling');
    put('single/w.onnx', 'single');
    put('big/weights.bin', big);
    put('corrupt/file.txt', 'header CORRUPTME trailer');
    gcs = await startFakeGcs(servers.fakeGcs, data);
    stops.push(gcs.stop);
  }, 600_000);

  afterAll(async () => {
    await Promise.all(stops.map((s) => s()));
    cleanup(...dirs);
  });

  it('downloads a prefix with nested folders, not the model-v2 sibling (GCS_ENDPOINT)', async () => {
    const d = dest();
    const r = await runSi(['gs://models/model', d], { GCS_ENDPOINT: gcs.url });
    expect(r.code, r.out).toBe(0);
    expect(listFiles(d)).toEqual(['a.onnx', 'sub/b.bin', 'sub/deep/c.txt']);
  });

  it('downloads a single object (STORAGE_EMULATOR_HOST)', async () => {
    const d = dest();
    const r = await runSi(['gs://models/single/w.onnx', d], { STORAGE_EMULATOR_HOST: `127.0.0.1:${gcs.port}` });
    expect(r.code, r.out).toBe(0);
    expect(listFiles(d)).toEqual(['w.onnx']);
  });

  it('downloads a large object as ranged parts over reused connections and verifies its MD5', async () => {
    const proxy = await startProxy(gcs.port);
    stops.push(proxy.stop);
    const d = dest();
    const r = await runSi(['gs://models/big', d], { GCS_ENDPOINT: proxy.url, STORAGE_PART_SIZE: String(1024 * 1024), STORAGE_CONCURRENCY: '2' });
    expect(r.code, r.out).toBe(0);
    expect(sha(readFileSync(path.join(d, 'weights.bin')))).toBe(sha(big));
    const ranged = proxy.requests.filter((q) => /\r\nrange: bytes=\d+-\d+/i.test(q)).length;
    expect(ranged).toBe(6);
    expect(proxy.requests.length).toBe(7); // the listing, then the parts
    expect(proxy.connections).toBeLessThanOrEqual(3); // keep-alive
  });

  it('reports a missing prefix and a missing bucket as not found', async () => {
    for (const uri of ['gs://models/nothing', 'gs://no-such-bucket/model']) {
      const r = await runSi([uri, dest()], { GCS_ENDPOINT: gcs.url });
      expect(r.code).toBe(1);
      expect(r.out).toContain(`${uri}: not found`);
    }
  });

  it('rejects corrupted bytes (MD5 mismatch) and leaves nothing behind', async () => {
    const proxy = await startProxy(gcs.port, { corrupt: { from: 'CORRUPTME', to: 'CORRUPTED' } });
    stops.push(proxy.stop);
    const d = dest();
    const r = await runSi(['gs://models/corrupt', d], { GCS_ENDPOINT: proxy.url });
    expect(r.code).toBe(1);
    expect(r.out).toContain('gs://models/corrupt: checksum mismatch: file.txt: MD5');
    expect(listFiles(d)).toEqual([]);
  });

  it('retries reset connections', async () => {
    const proxy = await startProxy(gcs.port, { resetFirst: 2 });
    stops.push(proxy.stop);
    const d = dest();
    const r = await runSi(['gs://models/model', d], { GCS_ENDPOINT: proxy.url });
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('retrying');
    expect(listFiles(d)).toHaveLength(3);
  });
});
