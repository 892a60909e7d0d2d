/**
 * storage-initializer Azure Files (`https://<account>.file.core.windows.net/<share>/<path>`)
 * against the Files REST stand-in (azure-files-stand-in.ts: no emulator serves the Files
 * API), which verifies each credential kind: the SharedKey signature with the account key,
 * a share SAS's signature, and a bearer token from the Entra ID stand-in. The built CLI
 * runs as a child process; STORAGE_AZURE_FILE_ENDPOINT points the account at the stand-in.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ShareSASPermissions, StorageSharedKeyCredential, generateFileSASQueryParameters } from '@azure/storage-file-share';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFiles, type FilesStandIn } from './azure-files-stand-in.js';
import { startEntra, type EntraStandIn } from './entra-stand-in.js';
import { cleanup, exists, listFiles, makePki, makeTar, runSi, type Pki, modelDest } from './helpers.js';

const ACCOUNT = 'kservefiles';
const KEY = Buffer.from('azure-files-account-key-for-the-stand-in-0123456789').toString('base64');
const BASE = `https://${ACCOUNT}.file.core.windows.net`;
const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const CLIENT = 'kserve-sp';
const SECRET = 'files-sp-SECRET-value-42';
const FEDERATED = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ6a3NlcnZlOmZpbGVzIn0.ZmVk';
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('storage-initializer Azure Files (Files REST stand-in)', () => {
  const big = randomBytes(13 * 1024 * 1024 + 77);
  const tree: Record<string, Buffer> = {
    'model/a.onnx': Buffer.from('onnx-bytes'),
    'model/b.json': Buffer.from('{"b":1}'),
    'model/c.txt': Buffer.from('c-bytes'),
    'model/sub/d.bin': Buffer.from('d-bytes'),
    'model/sub/e.bin': Buffer.from('e-bytes'),
    'model/sub/deep/f.bin': Buffer.from('f-bytes'),
  };
  let pki: Pki;
  let files: FilesStandIn;
  let entra: EntraStandIn;
  let env: Record<string, string>;
  const dirs: string[] = [];
  const dest = modelDest(dirs);

  beforeAll(async () => {
    pki = makePki();
    dirs.push(pki.dir);
    entra = await startEntra(pki, { tenant: TENANT, client: CLIENT, secret: SECRET, federated: FEDERATED });
    files = await startFiles(pki, {
      account: ACCOUNT,
      key: KEY,
      tokens: entra.issued,
      pageSize: 2,
      shares: {
        models: {
          ...Object.fromEntries(Object.entries(tree).map(([k, body]) => [k, { body }])),
          'model-v2/x.onnx': { body: Buffer.from('sibling, must not be pulled') },
          'single/model.onnx': { body: Buffer.from('single-bytes') },
          'nomd5/w.bin': { body: Buffer.from('no-md5-bytes'), md5: false },
          'big/weights.bin': { body: big },
          'stale/weights.bin': { body: big, md5: createHash('md5').update('other bytes').digest('base64') },
          'archives/model.tar': { body: makeTar([{ name: 'm/m.onnx', content: 'from-tar' }]) },
        },
        evil: { 'm/../escape.txt': { body: Buffer.from('pwned') }, 'm/ok.txt': { body: Buffer.from('ok') } },
      },
    });
    env = { STORAGE_AZURE_FILE_ENDPOINT: files.url, NODE_EXTRA_CA_CERTS: pki.ca };
  }, 60_000);

  afterAll(async () => {
    await files?.stop();
    await entra?.stop();
    cleanup(...dirs);
  });

  it('downloads a directory tree with the account key (SharedKey verified), following page markers, whole segments only', async () => {
    const before = files.requests.length;
    const d = dest();
    const r = await runSi([`${BASE}/models/model`, d], { ...env, AZURE_STORAGE_ACCESS_KEY: KEY });
    expect(r.code, r.out).toBe(0);
    expect(listFiles(d)).toEqual(
      Object.keys(tree)
        .map((k) => k.slice('model/'.length))
        .sort(),
    );
    for (const [k, body] of Object.entries(tree)) expect(readFileSync(path.join(d, k.slice('model/'.length)))).toEqual(body);
    const seen = files.requests.slice(before);
    expect(seen.every((q) => q.auth === 'sharedkey')).toBe(true);
    // model/ holds 4 entries and model/sub 3: two pages each at 2 entries a page.
    expect(seen.filter((q) => /\/models\/model\/sub\?.*comp=list/.test(q.url) && /marker=/.test(q.url)).length).toBe(1);
    expect(seen.filter((q) => /\/models\/model\?.*comp=list/.test(q.url) && /marker=/.test(q.url)).length).toBe(1);
    expect(r.out).not.toContain(KEY);
  });

  it('downloads a single file to <dest>/<basename>, and unpacks a single tar file', async () => {
    const d = dest();
    const r = await runSi([`${BASE}/models/single/model.onnx`, d, `${BASE}/models/archives/model.tar`, `${d}-tar`], { ...env, AZURE_STORAGE_ACCESS_KEY: KEY });
    dirs.push(`${d}-tar`);
    expect(r.code, r.out).toBe(0);
    expect(listFiles(d)).toEqual(['model.onnx']);
    expect(readFileSync(path.join(d, 'model.onnx'), 'utf8')).toBe('single-bytes');
    expect(readFileSync(path.join(`${d}-tar`, 'm/m.onnx'), 'utf8')).toBe('from-tar');
  });

  it('splits a large file into parallel ranged reads (x-ms-range) whose bytes equal the stored ones, checked against Content-MD5', async () => {
    const before = files.requests.length;
    const d = dest();
    const r = await runSi([`${BASE}/models/big/weights.bin`, d], { ...env, AZURE_STORAGE_ACCESS_KEY: KEY, STORAGE_PART_SIZE: String(4 * 1024 * 1024) });
    expect(r.code, r.out).toBe(0);
    expect(sha(readFileSync(path.join(d, 'weights.bin')))).toBe(sha(big));
    const ranges = files.requests
      .slice(before)
      .filter((q) => q.method === 'GET' && q.range !== undefined)
      .map((q) => q.range);
    // 13 MiB + 77 bytes in 4 MiB parts: 4 ranges covering the file exactly once.
    expect(ranges.sort()).toEqual(['bytes=0-4194303', 'bytes=12582912-13631564', 'bytes=4194304-8388607', 'bytes=8388608-12582911']);
  });

  it('refuses a file whose bytes do not match its Content-MD5, and leaves nothing in the destination', async () => {
    const d = dest();
    const r = await runSi([`${BASE}/models/stale`, d], { ...env, AZURE_STORAGE_ACCESS_KEY: KEY });
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/checksum mismatch: weights\.bin: MD5 [0-9a-f]{32} does not match the store's [0-9a-f]{32}/);
    expect(exists(d) ? listFiles(d) : []).toEqual([]);
  });

  it('downloads a file stored without Content-MD5 (size-checked only)', async () => {
    const d = dest();
    const r = await runSi([`${BASE}/models/nomd5`, d], { ...env, AZURE_STORAGE_ACCESS_KEY: KEY });
    expect(r.code, r.out).toBe(0);
    expect(readFileSync(path.join(d, 'w.bin'), 'utf8')).toBe('no-md5-bytes');
  });

  it('uses a share SAS carried in the URI query (signature verified) and never prints its signature', async () => {
    const sas = generateFileSASQueryParameters(
      { shareName: 'models', permissions: ShareSASPermissions.parse('rl'), expiresOn: new Date(Date.now() + 3600_000) },
      new StorageSharedKeyCredential(ACCOUNT, KEY),
    ).toString();
    const before = files.requests.length;
    const d = dest();
    const r = await runSi([`${BASE}/models/model/sub?${sas}`, d], env);
    expect(r.code, r.out).toBe(0);
    expect(listFiles(d)).toEqual(['d.bin', 'deep/f.bin', 'e.bin']);
    expect(files.requests.slice(before).every((q) => q.auth === 'sas')).toBe(true);
    // A SAS whose signature does not match is refused by the stand-in, and not printed either.
    const forged = new URLSearchParams(sas);
    const sig = forged.get('sig')!;
    forged.set('sig', Buffer.from('forged-signature-0123456789').toString('base64'));
    const bad = await runSi([`${BASE}/models/model/sub?${forged.toString()}`, dest()], env);
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/access denied: .*AuthenticationFailed/);
    for (const out of [r.out, bad.out]) {
      expect(out).not.toContain(sig);
      expect(out).not.toContain(encodeURIComponent(sig));
      expect(out).not.toContain(forged.get('sig')!);
    }
  });

  it('signs in as a service principal (AZ_CLIENT_ID/AZ_CLIENT_SECRET/AZ_TENANT_ID) and reads with the bearer token and the backup intent', async () => {
    const before = files.requests.length;
    const d = dest();
    const r = await runSi([`${BASE}/models/model/sub/deep`, d], {
      ...env,
      AZURE_AUTHORITY_HOST: entra.authority,
      AZ_TENANT_ID: TENANT,
      AZ_CLIENT_ID: CLIENT,
      AZ_CLIENT_SECRET: SECRET,
    });
    expect(r.code, r.out).toBe(0);
    expect(readFileSync(path.join(d, 'f.bin'), 'utf8')).toBe('f-bytes');
    expect(files.requests.slice(before).every((q) => q.auth === 'bearer')).toBe(true);
    expect(entra.tokenRequests.some((b) => new URLSearchParams(b).get('scope') === 'https://storage.azure.com/.default')).toBe(true);
    expect(r.out).not.toContain(SECRET);
  });

  it('signs in with AKS workload identity (AZURE_FEDERATED_TOKEN_FILE, no secret)', async () => {
    const tokenFile = path.join(pki.dir, 'azure-identity-token');
    writeFileSync(tokenFile, FEDERATED);
    const before = files.requests.length;
    const d = dest();
    const r = await runSi([`${BASE}/models/single/model.onnx`, d], {
      ...env,
      AZURE_AUTHORITY_HOST: entra.authority,
      AZURE_TENANT_ID: TENANT,
      AZURE_CLIENT_ID: CLIENT,
      AZURE_FEDERATED_TOKEN_FILE: tokenFile,
    });
    expect(r.code, r.out).toBe(0);
    expect(readFileSync(path.join(d, 'model.onnx'), 'utf8')).toBe('single-bytes');
    expect(files.requests.slice(before).every((q) => q.auth === 'bearer')).toBe(true);
    expect(entra.tokenRequests.some((b) => new URLSearchParams(b).get('client_assertion') === FEDERATED)).toBe(true);
  });

  it('reports a wrong account key as access denied without printing it, and no credential at all likewise', async () => {
    const wrong = Buffer.from('not-the-key-not-the-key-not-the-key').toString('base64');
    const r = await runSi([`${BASE}/models/model`, dest()], { ...env, AZURE_STORAGE_ACCESS_KEY: wrong });
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/error: https:\/\/kservefiles\.file\.core\.windows\.net\/models\/model: access denied: .*AuthenticationFailed/);
    expect(r.out).not.toContain(wrong);
    expect(r.out).not.toMatch(/SharedKey [^ ]+:/);
    const anonymous = await runSi([`${BASE}/models/model`, dest()], env);
    expect(anonymous.code).toBe(1);
    expect(anonymous.out).toMatch(/access denied: .*NoAuthenticationInformation/);
  });

  it('reports a missing path and a missing share as not found', async () => {
    const missing = await runSi([`${BASE}/models/nothing-here`, dest()], { ...env, AZURE_STORAGE_ACCESS_KEY: KEY });
    expect(missing.code).toBe(1);
    expect(missing.out).toMatch(/not found: no file https:\/\/kservefiles\.file\.core\.windows\.net\/models\/nothing-here and no files under it/);
    const share = await runSi([`${BASE}/noshare/model`, dest()], { ...env, AZURE_STORAGE_ACCESS_KEY: KEY });
    expect(share.code).toBe(1);
    expect(share.out).toMatch(/not found: no file/);
  });

  it('refuses a listing entry that would walk out of the destination, and writes nothing', async () => {
    const d = dest();
    const r = await runSi([`${BASE}/evil/m`, d], { ...env, AZURE_STORAGE_ACCESS_KEY: KEY });
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/invalid: .*entry '\.\.' .*outside the destination/);
    expect(exists(path.join(path.dirname(d), 'escape.txt'))).toBe(false);
    expect(exists(d) ? listFiles(d) : []).toEqual([]);
  });
});
