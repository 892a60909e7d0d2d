/**
 * Errors name the URI without any secret, for every provider (issue 18). Each row points one
 * provider, with its credentials of every kind, at a hostile store on loopback that answers
 * every request with a denial whose body echoes the request back: URL, headers (the
 * Authorization signature, tokens, keys) and body (a client secret). Whatever the provider
 * or its SDK puts into its error, the output must hold no secret and one error line naming
 * the URI.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// helpers.ts's runSi, without its imports of the server's test helpers: this suite needs
// nothing but the built CLI.
const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/bin/storage-initializer.js');
function runSi(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', STORAGE_RETRY_BASE_MS: '20', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out })));
}

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'si-redact-'));
  dirs.push(d);
  return d;
};

let server: http.Server;
let port = 0;
/** Every request the hostile store saw, so a row can check its credentials were sent at all. */
const seen: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const echo = `${req.method} ${req.url} ${JSON.stringify(req.headers)} ${body}`;
      seen.push(echo);
      const xml = (code: string) => `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>denied: ${echo.replace(/[<>&]/g, ' ')}</Message></Error>`;
      if (req.url?.includes('/webhdfs/')) {
        res.writeHead(403, { 'content-type': 'application/json' }).end(JSON.stringify({ RemoteException: { exception: 'AccessControlException', message: `denied: ${echo}` } }));
      } else if (req.headers['x-ms-version']) {
        res.writeHead(403, { 'content-type': 'application/xml', 'x-ms-error-code': 'AuthenticationFailed' }).end(xml('AuthenticationFailed'));
      } else if (req.url?.includes('oauth2') || req.url?.includes('openid')) {
        res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'invalid_client', error_description: `denied: ${echo}` }));
      } else if (req.url?.startsWith('/api/') || req.url?.includes('/resolve/')) {
        res.writeHead(401, { 'content-type': 'application/json', 'x-error-code': 'RepoNotFound' }).end(JSON.stringify({ error: `denied: ${echo}` }));
      } else if (req.url?.startsWith('/storage/') || req.url?.startsWith('/b/')) {
        res.writeHead(403, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 403, message: `denied: ${echo}` } }));
      } else {
        res.writeHead(403, { 'content-type': 'application/xml' }).end(xml('AccessDenied'));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface Row {
  provider: string;
  /** The URI as given on the command line. */
  uri: () => string;
  /** How the URI must be named in the error line (redacted). */
  shown: () => string;
  env: () => Record<string, string>;
  /** Values (or patterns: a request signature is not known in advance) never in the output. */
  secrets: Array<string | RegExp>;
  /**
   * False where the run is refused before any request, which is then the behaviour checked:
   * an authority host must be https (the sign-in's own echo is in azure.test.ts: a wrong
   * secret is never printed), and fetch refuses an endpoint with user info.
   */
  reaches?: false;
}

const at = () => `127.0.0.1:${port}`;
const SAS = 'sv=2022-11-02&ss=b&srt=co&sp=rl&se=2099-01-01T00:00:00Z&sig=SAS%2Bsig%2Fsecret0123456789%3D';
const AZ_KEY = Buffer.from('azure-account-key-secret-0123456789').toString('base64');

const ROWS: Row[] = [
  {
    provider: 's3 (access key, session token, endpoint user info)',
    uri: () => 's3://bucket/model',
    shown: () => 's3://bucket/model',
    env: () => ({
      AWS_ENDPOINT_URL: `http://s3user:s3-endpoint-pass@${at()}`,
      AWS_ACCESS_KEY_ID: 'AKIAREDACTTEST0001',
      AWS_SECRET_ACCESS_KEY: 's3-secret-key-0123456789',
      AWS_SESSION_TOKEN: 's3-session-token-0123456789',
    }),
    secrets: ['AKIAREDACTTEST0001', 's3-secret-key-0123456789', 's3-session-token-0123456789', 's3-endpoint-pass', /Signature=[0-9a-f]{8}/],
  },
  {
    provider: 's3 (STORAGE_CONFIG secret)',
    uri: () => 's3://bucket/model',
    shown: () => 's3://bucket/model',
    env: () => ({
      STORAGE_CONFIG: JSON.stringify({ type: 's3', endpoint_url: `http://${at()}`, access_key_id: 'AKIAREDACTTEST0002', secret_access_key: 's3-config-secret-0123456789' }),
    }),
    secrets: ['AKIAREDACTTEST0002', 's3-config-secret-0123456789', /Signature=[0-9a-f]{8}/],
  },
  {
    provider: 'gs (endpoint user info)',
    uri: () => 'gs://bucket/model',
    shown: () => 'gs://bucket/model',
    env: () => ({ GCS_ENDPOINT: `http://gsuser:gcs-endpoint-pass@${at()}` }),
    secrets: ['gcs-endpoint-pass'],
  },
  {
    provider: 'azure blob (SAS in the URI)',
    uri: () => `https://acct.blob.core.windows.net/models/model?${SAS}`,
    shown: () => 'https://acct.blob.core.windows.net/models/model?…',
    env: () => ({ STORAGE_AZURE_BLOB_ENDPOINT: `http://${at()}/acct` }),
    secrets: ['SAS%2Bsig%2Fsecret0123456789%3D', 'SAS+sig/secret0123456789=', 'secret0123456789'],
  },
  {
    provider: 'azure blob (account key)',
    uri: () => 'https://acct.blob.core.windows.net/models/model',
    shown: () => 'https://acct.blob.core.windows.net/models/model',
    env: () => ({ STORAGE_AZURE_BLOB_ENDPOINT: `http://${at()}/acct`, AZURE_STORAGE_ACCESS_KEY: AZ_KEY }),
    secrets: [AZ_KEY, 'SharedKey acct:'],
  },
  {
    provider: 'azure blob (service principal)',
    uri: () => 'https://acct.blob.core.windows.net/models/model',
    shown: () => 'https://acct.blob.core.windows.net/models/model',
    env: () => ({
      STORAGE_AZURE_BLOB_ENDPOINT: `http://${at()}/acct`,
      AZ_CLIENT_ID: 'client-id',
      AZ_TENANT_ID: 'tenant-id',
      AZ_CLIENT_SECRET: 'az-client-secret-0123456789',
      AZURE_AUTHORITY_HOST: `http://${at()}`,
    }),
    secrets: ['az-client-secret-0123456789'],
    reaches: false,
  },
  {
    provider: 'azure files (SAS in the URI)',
    uri: () => `https://acct.file.core.windows.net/share/model?${SAS}`,
    shown: () => 'https://acct.file.core.windows.net/share/model?…',
    env: () => ({ STORAGE_AZURE_FILE_ENDPOINT: `http://${at()}/acct` }),
    secrets: ['SAS%2Bsig%2Fsecret0123456789%3D', 'SAS+sig/secret0123456789=', 'secret0123456789'],
  },
  {
    provider: 'azure files (account key)',
    uri: () => 'https://acct.file.core.windows.net/share/model',
    shown: () => 'https://acct.file.core.windows.net/share/model',
    env: () => ({ STORAGE_AZURE_FILE_ENDPOINT: `http://${at()}/acct`, AZURE_STORAGE_ACCESS_KEY: AZ_KEY }),
    secrets: [AZ_KEY, 'SharedKey acct:'],
  },
  {
    provider: 'hf (token, endpoint user info)',
    uri: () => 'hf://org/model:main',
    shown: () => 'hf://org/model:main',
    env: () => ({ HF_ENDPOINT: `http://hfuser:hf-endpoint-pass@${at()}`, HF_TOKEN: 'hf_tokensecret0123456789' }),
    secrets: ['hf_tokensecret0123456789', 'hf-endpoint-pass'],
    reaches: false,
  },
  {
    provider: 'hf (token)',
    uri: () => 'hf://org/model',
    shown: () => 'hf://org/model',
    env: () => ({ HF_ENDPOINT: `http://${at()}`, HF_TOKEN: 'hf_tokensecret9876543210' }),
    secrets: ['hf_tokensecret9876543210'],
  },
  {
    provider: 'webhdfs (HEADERS, TLS key from the HDFS secret)',
    uri: () => 'hdfs://user/me/model',
    shown: () => 'hdfs://user/me/model',
    env: () => ({
      STORAGE_CONFIG: JSON.stringify({
        type: 'hdfs',
        HDFS_NAMENODE: `http://${at()}`,
        HEADERS: JSON.stringify({ Authorization: 'Bearer hdfs-gateway-token-0123456789', 'X-Api-Key': 'hdfs-api-key-0123456789' }),
      }),
    }),
    secrets: ['hdfs-gateway-token-0123456789', 'hdfs-api-key-0123456789'],
  },
  {
    provider: 'http (user info, token query, <host>-headers)',
    uri: () => `http://webuser:http-url-pass@${at()}/m/model.onnx?token=http-query-token-0123&X-Amz-Signature=presigned0123456789`,
    shown: () => `http://${at()}/m/model.onnx?…`,
    env: () => ({ '127.0.0.1-headers': JSON.stringify({ Authorization: 'Bearer http-header-token-0123456789' }) }),
    secrets: ['http-url-pass', 'http-query-token-0123', 'presigned0123456789', 'http-header-token-0123456789'],
  },
];

describe('storage-initializer errors name the URI without any secret, for every provider', () => {
  it.each(ROWS.map((r) => [r.provider, r] as const))('%s', async (_name, row) => {
    const before = seen.length;
    const r = await runSi([row.uri(), path.join(tmp(), 'm')], { STORAGE_MAX_ATTEMPTS: '1', ...row.env() });
    expect(r.code, r.out).toBe(1);
    const errors = r.out.split('\n').filter((l) => l.startsWith('storage-initializer: error:'));
    expect(errors, r.out).toHaveLength(1);
    expect(errors[0]).toContain(`error: ${row.shown()}: `);
    expect(r.out).not.toMatch(/\n\s+at /); // no stack trace
    for (const s of row.secrets) {
      if (typeof s === 'string') expect(r.out, r.out).not.toContain(s);
      else expect(r.out, r.out).not.toMatch(s);
    }
    // The hostile store was reached: the denial, not a setup failure, is what was scrubbed.
    if (row.reaches === false) expect(seen.length, r.out).toBe(before);
    else expect(seen.length, r.out).toBeGreaterThan(before);
  });
});
