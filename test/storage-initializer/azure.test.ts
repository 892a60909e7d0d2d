/**
 * storage-initializer against Azurite (the Azure Storage emulator, from npm) on loopback,
 * with each credential kind Azurite can check: account key, SAS and anonymous (public
 * container). URIs keep KServe's form (https://<account>.blob.core.windows.net/...);
 * STORAGE_AZURE_BLOB_ENDPOINT points the account at Azurite.
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BlobServiceClient, ContainerSASPermissions, StorageSharedKeyCredential, generateBlobSASQueryParameters } from '@azure/storage-blob';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/server.js';
import { startEntra } from './entra-stand-in.js';
import {
  AZURITE_ACCOUNT,
  AZURITE_KEY,
  cleanup,
  installServers,
  listFiles,
  makePki,
  makeTar,
  runSi,
  startAzurite,
  startProxy,
  tempDir,
  type Running,
  modelDest,
} from './helpers.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const ACCOUNT_URI = `https://${AZURITE_ACCOUNT}.blob.core.windows.net`;

describe('storage-initializer Azure Blob (Azurite)', () => {
  let azurite: Running;
  const dirs: string[] = [];
  const stops: Array<() => Promise<void>> = [];
  const big = randomBytes(20 * 1024 * 1024 + 123);
  let env: Record<string, string>;
  let sas: string;
  const dest = modelDest(dirs);

  beforeAll(async () => {
    azurite = await startAzurite(installServers().azurite);
    stops.push(azurite.stop);
    const endpoint = `${azurite.url}/${AZURITE_ACCOUNT}`;
    env = { STORAGE_AZURE_BLOB_ENDPOINT: endpoint };
    const key = new StorageSharedKeyCredential(AZURITE_ACCOUNT, AZURITE_KEY);
    const svc = new BlobServiceClient(endpoint, key);
    const priv = svc.getContainerClient('models');
    await priv.create();
    const pub = svc.getContainerClient('public');
    await pub.create({ access: 'container' });
    const put = (c: typeof priv, name: string, body: Buffer | string) => c.getBlockBlobClient(name).uploadData(Buffer.from(body));
    await Promise.all([
      put(priv, 'model/a.onnx', 'onnx-bytes'),
      put(priv, 'model/sub/b.bin', 'b-bytes'),
      put(priv, 'model-v2/x.onnx', 'sibling, must not be pulled'),
      put(priv, 'big/weights.bin', big),
      put(priv, 'single/model.onnx', 'single-bytes'),
      put(priv, 'archives/model.tar', makeTar([{ name: 'm/m.onnx', content: 'from-tar' }])),
      put(pub, 'm/p.onnx', 'public'),
    ]);
    sas = generateBlobSASQueryParameters({ containerName: 'models', permissions: ContainerSASPermissions.parse('rl'), expiresOn: new Date(Date.now() + 3600_000) }, key).toString();
  }, 120_000);

  afterAll(async () => {
    await Promise.all(stops.map((s) => s()));
    cleanup(...dirs);
  });

  it('downloads a prefix with the account key (AZURE_STORAGE_ACCESS_KEY), whole segments only', async () => {
    const d = dest();
    const r = await runSi([`${ACCOUNT_URI}/models/model`, d], { ...env, AZURE_STORAGE_ACCESS_KEY: AZURITE_KEY });
    expect(r.code, r.out).toBe(0);
    expect(listFiles(d)).toEqual(['a.onnx', 'sub/b.bin']);
    expect(readFileSync(path.join(d, 'sub/b.bin'), 'utf8')).toBe('b-bytes');
    expect(r.out).not.toContain(AZURITE_KEY);
  });

  it('downloads a single blob to <dest>/<basename> and unpacks a single tar blob', async () => {
    const d = dest();
    const r = await runSi([`${ACCOUNT_URI}/models/single/model.onnx`, d, `${ACCOUNT_URI}/models/archives/model.tar`, `${d}-tar`], {
      ...env,
      AZURE_STORAGE_ACCESS_KEY: AZURITE_KEY,
    });
    dirs.push(`${d}-tar`);
    expect(r.code, r.out).toBe(0);
    expect(listFiles(d)).toEqual(['model.onnx']);
    expect(readFileSync(path.join(`${d}-tar`, 'm/m.onnx'), 'utf8')).toBe('from-tar');
  });

  it('splits a large blob into ranged reads and verifies its Content-MD5', async () => {
    const proxy = await startProxy(azurite.port);
    stops.push(proxy.stop);
    const d = dest();
    const r = await runSi([`${ACCOUNT_URI}/models/big`, d], {
      STORAGE_AZURE_BLOB_ENDPOINT: `${proxy.url}/${AZURITE_ACCOUNT}`,
      AZURE_STORAGE_ACCESS_KEY: AZURITE_KEY,
      STORAGE_PART_SIZE: String(4 * 1024 * 1024),
    });
    expect(r.code, r.out).toBe(0);
    expect(sha(readFileSync(path.join(d, 'weights.bin')))).toBe(sha(big));
    expect(proxy.requests.filter((q) => /\r\nx-ms-range: bytes=\d+-\d+|\r\nrange: bytes=\d+-\d+/i.test(q)).length).toBe(6);
  });

  it('rejects corrupted bytes against the blob Content-MD5', async () => {
    const proxy = await startProxy(azurite.port, { corrupt: { from: 'b-bytes', to: 'B-BYTES' } });
    stops.push(proxy.stop);
    const d = dest();
    const r = await runSi([`${ACCOUNT_URI}/models/model`, d], { STORAGE_AZURE_BLOB_ENDPOINT: `${proxy.url}/${AZURITE_ACCOUNT}`, AZURE_STORAGE_ACCESS_KEY: AZURITE_KEY });
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/checksum mismatch: sub\/b\.bin: MD5/);
  });

  it('uses a SAS carried in the URI query and never prints its signature', async () => {
    const d = dest();
    const r = await runSi([`${ACCOUNT_URI}/models/model?${sas}`, d], env);
    expect(r.code, r.out).toBe(0);
    expect(listFiles(d)).toEqual(['a.onnx', 'sub/b.bin']);
    const sig = new URLSearchParams(sas).get('sig')!;
    expect(r.out).not.toContain(sig);
    expect(r.out).not.toContain(encodeURIComponent(sig));
  });

  it('reads a public container anonymously, and reports access denied for a private one', async () => {
    const d = dest();
    const ok = await runSi([`${ACCOUNT_URI}/public/m`, d], env);
    expect(ok.code, ok.out).toBe(0);
    expect(readFileSync(path.join(d, 'p.onnx'), 'utf8')).toBe('public');
    const denied = await runSi([`${ACCOUNT_URI}/models/model`, dest()], env);
    expect(denied.code).toBe(1);
    expect(denied.out).toMatch(/error: https:\/\/devstoreaccount1\.blob\.core\.windows\.net\/models\/model: (access denied|not found)/);
  });

  it('reports a wrong account key as access denied without printing it, and a missing prefix as not found', async () => {
    const wrong = Buffer.from('not-the-key-not-the-key-not-the-key').toString('base64');
    const r = await runSi([`${ACCOUNT_URI}/models/model`, dest()], { ...env, AZURE_STORAGE_ACCESS_KEY: wrong });
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/access denied/);
    expect(r.out).not.toContain(wrong);
    const missing = await runSi([`${ACCOUNT_URI}/models/nothing-here`, dest()], { ...env, AZURE_STORAGE_ACCESS_KEY: AZURITE_KEY });
    expect(missing.code).toBe(1);
    expect(missing.out).toMatch(/not found: no blob/);
  });

  it('refuses an incomplete service principal with a clear line', async () => {
    const sp = await runSi([`${ACCOUNT_URI}/models/model`, dest()], { ...env, AZ_CLIENT_ID: 'client' });
    expect(sp.code).toBe(1);
    expect(sp.out).toMatch(/AZ_CLIENT_ID is set but AZ_TENANT_ID is not/);
  });
});

/**
 * Service principal: `@azure/identity`'s ClientSecretCredential signs in at an Entra ID
 * stand-in on loopback (AZURE_AUTHORITY_HOST: OpenID metadata and a client-credentials token
 * endpoint that checks the secret), and Azurite in its basic OAuth mode (HTTPS only) accepts
 * the bearer token after checking its issuer, audience and lifetime; Azurite does not verify
 * token signatures, so the signature is the stand-in's.
 */
describe('storage-initializer Azure Blob, service principal (Azurite OAuth)', () => {
  const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
  const CLIENT = 'kserve-sp';
  const SECRET = 'sp-SECRET-value-42';
  const FEDERATED = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ6a3NlcnZlOnNpIn0.ZmVk';
  const dirs: string[] = [];
  const stops: Array<() => Promise<void>> = [];
  let azurite: Running;
  let authority = '';
  let tokenRequests: string[] = [];
  let pki: ReturnType<typeof makePki>;

  beforeAll(async () => {
    pki = makePki();
    dirs.push(pki.dir);
    const certFile = path.join(pki.dir, 'srv.crt');
    const keyFile = path.join(pki.dir, 'srv.key');
    azurite = await startAzurite(installServers().azurite, { tls: { cert: certFile, key: keyFile } });
    stops.push(azurite.stop);
    const entra = await startEntra(pki, { tenant: TENANT, client: CLIENT, secret: SECRET, federated: FEDERATED });
    authority = entra.authority;
    tokenRequests = entra.tokenRequests;
    stops.push(entra.stop);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(stops.map((s) => s()));
    cleanup(...dirs);
  });

  it('signs in with AZ_CLIENT_ID / AZ_CLIENT_SECRET / AZ_TENANT_ID and reads with the bearer token', async () => {
    // Seeded over HTTPS with the account key (Azurite accepts both there), from a child
    // process that trusts the throwaway CA.
    const seed = await runSeed(azurite.url, pki.ca);
    expect(seed.code, seed.out).toBe(0);
    const d = path.join(tempDir(), 'models');
    dirs.push(path.dirname(d));
    const spEnv = {
      STORAGE_AZURE_BLOB_ENDPOINT: `${azurite.url}/${AZURITE_ACCOUNT}`,
      AZURE_AUTHORITY_HOST: authority,
      AZ_TENANT_ID: TENANT,
      AZ_CLIENT_ID: CLIENT,
      AZ_CLIENT_SECRET: SECRET,
      NODE_EXTRA_CA_CERTS: pki.ca,
    };
    const r = await runSi([`${ACCOUNT_URI}/spmodels/model`, d], spEnv);
    expect(r.code, r.out).toBe(0);
    expect(readFileSync(path.join(d, 'a.onnx'), 'utf8')).toBe('sp-bytes');
    expect(tokenRequests.some((b) => new URLSearchParams(b).get('scope') === 'https://storage.azure.com/.default')).toBe(true);
    expect(r.out).not.toContain(SECRET);
    const wrong = await runSi([`${ACCOUNT_URI}/spmodels/model`, path.join(d, 'x')], { ...spEnv, AZ_CLIENT_SECRET: 'wrong-secret-value' });
    expect(wrong.code).toBe(1);
    expect(wrong.out).toMatch(/access denied: .*service principal sign-in failed/);
    expect(wrong.out).not.toContain('wrong-secret-value');
  });

  it('signs in with AKS workload identity (AZURE_FEDERATED_TOKEN_FILE, no secret)', async () => {
    const seed = await runSeed(azurite.url, pki.ca);
    expect(seed.code, seed.out).toBe(0);
    const tokenFile = path.join(pki.dir, 'azure-identity-token');
    writeFileSync(tokenFile, FEDERATED);
    const d = path.join(tempDir(), 'models');
    dirs.push(path.dirname(d));
    tokenRequests.length = 0;
    const r = await runSi([`${ACCOUNT_URI}/spmodels/model`, d], {
      STORAGE_AZURE_BLOB_ENDPOINT: `${azurite.url}/${AZURITE_ACCOUNT}`,
      AZURE_AUTHORITY_HOST: authority,
      AZURE_TENANT_ID: TENANT,
      AZURE_CLIENT_ID: CLIENT,
      AZURE_FEDERATED_TOKEN_FILE: tokenFile,
      NODE_EXTRA_CA_CERTS: pki.ca,
    });
    expect(r.code, r.out).toBe(0);
    expect(readFileSync(path.join(d, 'a.onnx'), 'utf8')).toBe('sp-bytes');
    expect(tokenRequests.some((b) => new URLSearchParams(b).get('client_assertion') === FEDERATED)).toBe(true);
  });
});

/** Creates container `spmodels` with one blob on an HTTPS Azurite, in a child trusting the CA. */
function runSeed(url: string, ca: string): Promise<{ code: number | null; out: string }> {
  const script = `
    const { BlobServiceClient, StorageSharedKeyCredential } = require('@azure/storage-blob');
    const svc = new BlobServiceClient(process.argv[1] + '/${AZURITE_ACCOUNT}', new StorageSharedKeyCredential('${AZURITE_ACCOUNT}', '${AZURITE_KEY}'));
    (async () => {
      const c = svc.getContainerClient('spmodels');
      await c.createIfNotExists();
      await c.getBlockBlobClient('model/a.onnx').uploadData(Buffer.from('sp-bytes'));
    })().catch((e) => { console.error(e.message); process.exit(1); });`;
  const child = spawn(process.execPath, ['-e', script, url], { cwd: ROOT, env: { ...process.env, NODE_EXTRA_CA_CERTS: ca }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out })));
}
