/**
 * The download engine embedded in another program: only config.ts, registry.ts and
 * download.ts are imported here, never the CLI, so the built-in providers have to come with
 * the registry itself (vitest runs each test file in its own process).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../storage-initializer/config.js';
import { download } from '../../storage-initializer/download.js';
import { ProviderSet, registerProvider } from '../../storage-initializer/registry.js';
import { cleanup, tempDir } from './helpers.js';

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

describe('an embedder calling download()', () => {
  const dirs: string[] = [];
  afterAll(() => cleanup(...dirs));

  it('gets every built-in provider with no setup: a local folder and an http file', async () => {
    const src = tempDir();
    const dest = tempDir();
    dirs.push(src, dest);
    mkdirSync(path.join(src, 'model/1'), { recursive: true });
    const weights = randomBytes(4096);
    writeFileSync(path.join(src, 'model/1/model.onnx'), weights);
    const body = randomBytes(1000);
    const server = http.createServer((_req, res) => res.end(body));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const lines: string[] = [];
    const config = loadConfig({ HDFS_SECRET_DIR: '/nonexistent' });
    const providers = new ProviderSet(config);
    try {
      const local = `file://${path.join(src, 'model')}`;
      await download(local, path.join(dest, 'a'), await providers.for(local), { config, log: (l) => lines.push(l) });
      const remote = `http://127.0.0.1:${(server.address() as AddressInfo).port}/weights.bin`;
      await download(remote, path.join(dest, 'b'), await providers.for(remote), { config, log: (l) => lines.push(l) });
    } finally {
      providers.close();
      server.close();
    }
    expect(sha(readFileSync(path.join(dest, 'a/1/model.onnx')))).toBe(sha(weights));
    expect(sha(readFileSync(path.join(dest, 'b/weights.bin')))).toBe(sha(body));
    // Every scheme of the table is there, pvc:// with its explanation.
    await expect(providers.for('pvc://claim/m')).rejects.toThrow(/pvc:\/\/ is not downloaded: the webhook mounts the PersistentVolumeClaim/);
    await expect(providers.for('ftp://host/m')).rejects.toThrow(
      /'ftp:\/\/' is not supported \(supported: file:\/\/, gs:\/\/, hdfs:\/\/, hf:\/\/, http:\/\/, https:\/\/, s3:\/\/, webhdfs:\/\/ and local paths\)/,
    );
  });

  it('can register a provider of its own, listed with the built-in ones', async () => {
    registerProvider('mem', async () => ({
      scheme: 'mem',
      ranged: false,
      list: async () => ({ single: true, objects: [{ key: 'x', size: 1, ref: undefined }] }),
      read: async () => {
        throw new Error('not read in this test');
      },
    }));
    const providers = new ProviderSet(loadConfig({ HDFS_SECRET_DIR: '/nonexistent' }));
    expect((await providers.for('mem://a')).scheme).toBe('mem');
    expect((await providers.for('s3://bucket/m')).scheme).toBe('s3');
    await expect(providers.for('ftp://host/m')).rejects.toThrow(/supported: file:\/\/, gs:\/\/, hdfs:\/\/, hf:\/\/, http:\/\/, https:\/\/, mem:\/\/, s3:\/\//);
    providers.close();
  });
});
