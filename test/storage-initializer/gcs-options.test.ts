/**
 * GCS credential kinds against fake-gcs-server on loopback, through a recording proxy:
 * a service-account JSON key (GOOGLE_APPLICATION_CREDENTIALS) is read and its key signs the
 * bearer token each request carries, and GCS_ANONYMOUS=true sends no credentials even when a
 * key is configured. The key file names a non-Google universe so google-auth-library signs a
 * self-signed JWT instead of exchanging it at Google's token endpoint (fixed in the library,
 * unreachable here); the token exchange itself is therefore not exercised.
 */
import { createPublicKey, createVerify, generateKeyPairSync } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, installServers, runSi, startFakeGcs, startProxy, tempDir, type Running, modelDest } from './helpers.js';

const servers = installServers();

describe('storage-initializer gs:// credentials', () => {
  let gcs: Running;
  const dirs: string[] = [];
  const stops: Array<() => Promise<void>> = [];
  let keyFile: string;
  let publicPem: string;
  const dest = modelDest(dirs);

  beforeAll(async () => {
    const data = tempDir('si-gcs-data-');
    dirs.push(data);
    mkdirSync(path.join(data, 'models', 'm'), { recursive: true });
    writeFileSync(path.join(data, 'models', 'm', 'a.onnx'), 'onnx-bytes');
    gcs = await startFakeGcs(servers.fakeGcs, data);
    stops.push(gcs.stop);
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    keyFile = path.join(data, 'sa.json');
    writeFileSync(
      keyFile,
      JSON.stringify({
        type: 'service_account',
        project_id: 'kserve-test',
        private_key_id: 'key-1',
        private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        client_email: 'storage-initializer@kserve-test.iam.gserviceaccount.com',
        client_id: '1',
        token_uri: 'http://127.0.0.1:1/token',
        universe_domain: 'kserve-test.invalid',
      }),
    );
  }, 600_000);

  afterAll(async () => {
    await Promise.all(stops.map((s) => s()));
    cleanup(...dirs);
  });

  it('signs requests with the service-account key from GOOGLE_APPLICATION_CREDENTIALS', async () => {
    const proxy = await startProxy(gcs.port);
    stops.push(proxy.stop);
    const d = dest();
    const r = await runSi(['gs://models/m', d], { GCS_ENDPOINT: proxy.url, GOOGLE_APPLICATION_CREDENTIALS: keyFile });
    expect(r.code, r.out).toBe(0);
    expect(readFileSync(path.join(d, 'a.onnx'), 'utf8')).toBe('onnx-bytes');
    expect(proxy.requests.length).toBeGreaterThan(0);
    for (const q of proxy.requests) {
      const jwt = /\r\nauthorization: Bearer ([\w-]+)\.([\w-]+)\.([\w-]+)\r\n/i.exec(q);
      expect(jwt, q.split('\r\n')[0]).not.toBeNull();
      const [, h, p, sig] = jwt!;
      const claims = JSON.parse(Buffer.from(p!, 'base64url').toString()) as { iss: string };
      expect(claims.iss).toBe('storage-initializer@kserve-test.iam.gserviceaccount.com');
      expect(JSON.parse(Buffer.from(h!, 'base64url').toString())).toMatchObject({ alg: 'RS256', kid: 'key-1' });
      const ok = createVerify('RSA-SHA256').update(`${h}.${p}`).verify(createPublicKey(publicPem), Buffer.from(sig!, 'base64url'));
      expect(ok).toBe(true);
    }
    expect(r.out).not.toContain('PRIVATE KEY');
  });

  it('sends no credentials with GCS_ANONYMOUS=true, even with a key configured', async () => {
    const proxy = await startProxy(gcs.port);
    stops.push(proxy.stop);
    const r = await runSi(['gs://models/m', dest()], { GCS_ENDPOINT: proxy.url, GOOGLE_APPLICATION_CREDENTIALS: keyFile, GCS_ANONYMOUS: 'true' });
    expect(r.code, r.out).toBe(0);
    expect(proxy.requests.length).toBeGreaterThan(0);
    expect(proxy.requests.every((q) => !/\r\nauthorization:/i.test(q))).toBe(true);
  });

  it('reports a missing key file clearly', async () => {
    const r = await runSi(['gs://models/m', dest()], { GCS_ENDPOINT: gcs.url, GOOGLE_APPLICATION_CREDENTIALS: '/nonexistent/sa.json', STORAGE_MAX_ATTEMPTS: '1' });
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/error: gs:\/\/models\/m: .*(ENOENT|no such file)/);
  });
});
