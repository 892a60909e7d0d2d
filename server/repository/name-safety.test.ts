/**
 * Model names and repository paths cannot escape the repository (#16 item 7): `..`,
 * absolute paths, slashes (plain and percent-encoded), NUL, and symlinks leading out are
 * refused as unknown models (404 / NOT_FOUND), never a 500 and never a file outside the
 * root; a symlink inside the root, long and unicode names are handled.
 */
import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grpc, grpcClient, grpcError } from '../../test/grpc/client.js';
import { expectError, post } from '../../test/helpers/http.js';
import { type TestServer, makeRepository, startServer } from '../../test/helpers/server.js';
import { repositorySource } from './model-source.js';

let repo: ReturnType<typeof makeRepository>;
let outside: ReturnType<typeof makeRepository>;
beforeAll(() => {
  outside = makeRepository({ secret: 'identity_fp32' });
  repo = makeRepository({ m: 'identity_fp32' });
  // Links out of the repository: a model folder and the whole tree above it.
  symlinkSync(path.join(outside.dir, 'secret'), path.join(repo.dir, 'escape'));
  symlinkSync('/', path.join(repo.dir, 'root'));
  // A link that stays inside (as ConfigMap-style layouts do) is fine.
  mkdirSync(path.join(repo.dir, '.data'));
  symlinkSync(path.join(repo.dir, 'm'), path.join(repo.dir, 'alias'));
});
afterAll(() => {
  repo.cleanup();
  outside.cleanup();
});

describe('the repository source', () => {
  it('lists only folders inside the root, links inside it included', async () => {
    expect(await repositorySource(repo.dir).list()).toEqual(['alias', 'm']);
  });

  it.each(['..', '../m', '/etc', 'm/../..', 'a\\..\\..', 'm\u0000', '.data', 'escape', 'root', '../../tmp', ''])('refuses %j', async (name) => {
    expect(await repositorySource(repo.dir).locate(name)).toBeUndefined();
  });

  it('finds a model by its name and through a link inside the root', async () => {
    expect(await repositorySource(repo.dir).locate('m')).toBe(path.join(repo.dir, 'm'));
    expect(await repositorySource(repo.dir).locate('alias')).toBe(path.join(repo.dir, 'alias'));
  });
});

describe('over REST and gRPC', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer(['--model_repository', repo.dir], { grpc: true });
  });
  afterAll(() => t.close());

  it.each(['..%2F..%2Fetc', '%2E%2E', 'escape', 'root', '%2Fetc%2Fpasswd', 'm%00', 'ü', 'x'.repeat(255), encodeURIComponent('名前')])(
    'loading or inferring %s is a client error (404 / 414), not a 500',
    async (name) => {
      for (const p of [`/v2/repository/models/${name}/load`, `/v2/models/${name}/infer`, `/v2/models/${name}/ready`]) {
        const r = p.endsWith('/ready')
          ? await fetch(`${t.url}${p}`).then(async (res) => ({ status: res.status, headers: res.headers, text: await res.text(), bytes: Buffer.alloc(0) }))
          : await post(`${t.url}${p}`, { inputs: [] });
        expect(r.status, `${p}: ${r.text}`).toBeGreaterThanOrEqual(400);
        expect(r.status, `${p}: ${r.text}`).toBeLessThan(500);
        if (r.status === 404) expectError(r, 404, /does not exist|not found/);
      }
      expect(t.server.repository.names().some((n) => n !== 'm' && n !== 'alias')).toBe(false);
    },
  );

  it('a name over 256 characters is a 414 in the {"error"} shape', async () => {
    const r = await post(`${t.url}/v2/models/${'x'.repeat(300)}/infer`, { inputs: [] });
    expectError(r, 414);
  });

  it.each(['../m', '/etc', 'escape', 'root', 'ü', 'x'.repeat(5000)])('gRPC RepositoryModelLoad %j is NOT_FOUND', async (name) => {
    const c = grpcClient(t.grpcAddress as string);
    try {
      const err = await grpcError(c.call('RepositoryModelLoad', { model_name: name }));
      expect(err.code).toBe(grpc.status.NOT_FOUND);
      const inf = await grpcError(c.infer({ model_name: name, inputs: [] }));
      expect(inf.code).toBe(grpc.status.NOT_FOUND);
    } finally {
      c.close();
    }
  });
});
