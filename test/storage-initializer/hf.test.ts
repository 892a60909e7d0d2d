/**
 * storage-initializer hf:// against a Hub stand-in on loopback (no hub is reachable here):
 * a real HTTP server made here that answers the Hub REST calls the provider makes
 * (revision → commit, paginated recursive tree, resolve with ranges), with a private repo
 * that needs HF_TOKEN, a gated one, and LFS files redirected to a second origin (the CDN),
 * which must never see the token.
 */
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, listFiles, runSi, modelDest } from './helpers.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const TOKEN = 'hf_testTOKENvalue123456';

interface Repo {
  private?: boolean;
  gated?: boolean;
  /** revision name → commit → files */
  revisions: Record<string, string>;
  commits: Record<string, Record<string, Buffer>>;
}

const weights = randomBytes(5 * 1024 * 1024 + 7);
const REPOS: Record<string, Repo> = {
  'org/tiny': {
    revisions: { main: 'a'.repeat(40), 'v1.0': 'b'.repeat(40) },
    commits: {
      ['a'.repeat(40)]: {
        'config.json': Buffer.from('{"v": 2}'),
        'model.safetensors': weights,
        'tokenizer/vocab.txt': Buffer.from('a b c'),
        'README.md': Buffer.from('# tiny'),
        '.gitattributes': Buffer.from('*.safetensors filter=lfs'),
      },
      ['b'.repeat(40)]: { 'config.json': Buffer.from('{"v": 1}') },
    },
  },
  'org/private': { private: true, revisions: { main: 'c'.repeat(40) }, commits: { ['c'.repeat(40)]: { 'model.onnx': Buffer.from('private-bytes') } } },
  // Private, and its tree listing names a next page on another origin (the CDN's).
  'org/elsewhere': {
    private: true,
    revisions: { main: 'e'.repeat(40) },
    commits: { ['e'.repeat(40)]: { 'a.json': Buffer.from('1'), 'b.json': Buffer.from('2'), 'c.json': Buffer.from('3') } },
  },
  'org/gated': { gated: true, revisions: { main: 'd'.repeat(40) }, commits: { ['d'.repeat(40)]: { 'model.onnx': Buffer.from('x') } } },
};

const isLfs = (p: string) => p.endsWith('.safetensors');

function listen(handler: http.RequestListener): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer(handler);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
}

function sendRange(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer): void {
  const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
  if (m) {
    const start = Number(m[1]);
    const end = Math.min(Number(m[2]), body.length - 1);
    res.writeHead(206, { 'content-length': end - start + 1, 'content-range': `bytes ${start}-${end}/${body.length}`, 'accept-ranges': 'bytes' });
    res.end(body.subarray(start, end + 1));
  } else {
    res.writeHead(200, { 'content-length': body.length, 'accept-ranges': 'bytes' });
    res.end(body);
  }
}

describe('storage-initializer hf:// (Hub API on loopback)', () => {
  let hub: { server: http.Server; url: string };
  let cdn: { server: http.Server; url: string };
  const hubLog: string[] = [];
  const cdnLog: Array<{ url: string; auth: string | undefined; range: string | undefined }> = [];
  const dirs: string[] = [];
  const dest = modelDest(dirs);

  beforeAll(async () => {
    cdn = await listen((req, res) => {
      cdnLog.push({ url: req.url ?? '', auth: req.headers.authorization, range: req.headers.range });
      const [, repoOwner, repoName, commit, ...file] = decodeURIComponent(req.url ?? '').split('/');
      const body = REPOS[`${repoOwner}/${repoName}`]?.commits[commit ?? '']?.[file.join('/')];
      if (!body) {
        res.writeHead(404).end();
        return;
      }
      sendRange(req, res, body);
    });
    hub = await listen((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      hubLog.push(`${req.method} ${url.pathname}${url.search}`);
      const fail = (status: number, code: string) => res.writeHead(status, { 'x-error-code': code, 'content-type': 'application/json' }).end(JSON.stringify({ error: code }));
      const api = /^\/api\/models\/([^/]+\/[^/]+)\/(revision|tree)\/([^/]+)$/.exec(url.pathname);
      const resolve = /^\/([^/]+\/[^/]+)\/resolve\/([0-9a-f]{40})\/(.+)$/.exec(url.pathname);
      const repoId = decodeURIComponent(api?.[1] ?? resolve?.[1] ?? '');
      const repo = REPOS[repoId];
      if (!repo || (repo.private && req.headers.authorization !== `Bearer ${TOKEN}`)) {
        fail(401, 'RepoNotFound');
        return;
      }
      if (repo.gated) {
        fail(403, 'GatedRepo');
        return;
      }
      if (api?.[2] === 'revision') {
        const commit = repo.revisions[decodeURIComponent(api[3]!)];
        if (!commit) fail(404, 'RevisionNotFound');
        else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: repoId, sha: commit }));
        return;
      }
      if (api?.[2] === 'tree') {
        const files = repo.commits[api[3]!];
        if (!files || url.searchParams.get('recursive') !== 'true') {
          fail(404, 'RevisionNotFound');
          return;
        }
        // Two entries a page, with a folder entry, as the Hub paginates with Link headers.
        const entries = [
          { type: 'directory', path: 'tokenizer', oid: '0', size: 0 },
          ...Object.entries(files).map(([p, b]) => ({
            type: 'file',
            path: p,
            oid: sha(b).slice(0, 40),
            size: isLfs(p) ? 134 : b.length,
            ...(isLfs(p) ? { lfs: { oid: sha(b), size: b.length, pointerSize: 134 } } : {}),
          })),
        ];
        const cursor = Number(url.searchParams.get('cursor') ?? '0');
        const page = entries.slice(cursor, cursor + 2);
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        const nextOrigin = repoId === 'org/elsewhere' ? cdn.url : hub.url;
        if (cursor + 2 < entries.length) headers['link'] = `<${nextOrigin}${url.pathname}?recursive=true&cursor=${cursor + 2}>; rel="next"`;
        res.writeHead(200, headers).end(JSON.stringify(page));
        return;
      }
      if (resolve) {
        const file = decodeURIComponent(resolve[3]!);
        const body = repo.commits[resolve[2]!]?.[file];
        if (!body) {
          fail(404, 'EntryNotFound');
          return;
        }
        if (isLfs(file)) {
          res.writeHead(302, { location: `${cdn.url}/${repoId}/${resolve[2]}/${file}` }).end();
          return;
        }
        sendRange(req, res, body);
        return;
      }
      res.writeHead(404).end();
    });
  });

  afterAll(async () => {
    await Promise.all([hub, cdn].map((s) => new Promise((r) => s.server.close(r))));
    cleanup(...dirs);
  });

  it('downloads every file of a repo at main, through paginated listings, all at the one commit', async () => {
    hubLog.length = 0;
    const d = dest();
    const r = await runSi(['hf://org/tiny', d], { HF_ENDPOINT: hub.url });
    expect(r.code, r.out).toBe(0);
    expect(listFiles(d)).toEqual(['.gitattributes', 'README.md', 'config.json', 'model.safetensors', 'tokenizer/vocab.txt']);
    expect(sha(readFileSync(path.join(d, 'model.safetensors')))).toBe(sha(weights));
    expect(readFileSync(path.join(d, 'tokenizer/vocab.txt'), 'utf8')).toBe('a b c');
    expect(hubLog.filter((l) => l.includes('/tree/')).length).toBe(3);
    expect(hubLog.filter((l) => l.includes('/resolve/')).every((l) => l.includes(`/resolve/${'a'.repeat(40)}/`))).toBe(true);
  });

  it('downloads the revision named after the colon', async () => {
    const d = dest();
    const r = await runSi(['hf://org/tiny:v1.0', d], { HF_ENDPOINT: hub.url });
    expect(r.code, r.out).toBe(0);
    expect(listFiles(d)).toEqual(['config.json']);
    expect(readFileSync(path.join(d, 'config.json'), 'utf8')).toBe('{"v": 1}');
  });

  it('applies STORAGE_ALLOW_PATTERNS and STORAGE_IGNORE_PATTERNS to repo paths', async () => {
    const d = dest();
    const r = await runSi(['hf://org/tiny', d], { HF_ENDPOINT: hub.url, STORAGE_ALLOW_PATTERNS: '*.json,*.safetensors,tokenizer/*', STORAGE_IGNORE_PATTERNS: '["*.safetensors"]' });
    expect(r.code, r.out).toBe(0);
    expect(listFiles(d)).toEqual(['config.json', 'tokenizer/vocab.txt']);
  });

  it('reads a large LFS file from the CDN as ranged parts, without sending the token there', async () => {
    cdnLog.length = 0;
    const d = dest();
    const r = await runSi(['hf://org/tiny', d], { HF_ENDPOINT: hub.url, HF_TOKEN: TOKEN, STORAGE_PART_SIZE: String(1024 * 1024), STORAGE_ALLOW_PATTERNS: '*.safetensors' });
    expect(r.code, r.out).toBe(0);
    expect(sha(readFileSync(path.join(d, 'model.safetensors')))).toBe(sha(weights));
    expect(cdnLog.filter((q) => /^bytes=\d+-\d+$/.test(q.range ?? '')).length).toBe(6);
    expect(cdnLog.every((q) => q.auth === undefined)).toBe(true);
  });

  it("never sends HF_TOKEN to another origin a listing's Link: next names", async () => {
    cdnLog.length = 0;
    const r = await runSi(['hf://org/elsewhere', dest()], { HF_ENDPOINT: hub.url, HF_TOKEN: TOKEN });
    // The page is asked for (the CDN has no such listing: the download fails), without the token.
    const asked = cdnLog.filter((q) => q.url.includes('/api/models/org/elsewhere/tree/'));
    expect(asked.length, r.out).toBeGreaterThan(0);
    expect(asked.map((q) => q.auth)).toEqual(asked.map(() => undefined));
    expect(r.code).toBe(1);
    expect(r.out).not.toContain(TOKEN);
  });

  it('uses HF_TOKEN for a private repo and never prints it; without it the repo is not found', async () => {
    const d = dest();
    const ok = await runSi(['hf://org/private', d], { HF_ENDPOINT: hub.url, HF_TOKEN: TOKEN });
    expect(ok.code, ok.out).toBe(0);
    expect(readFileSync(path.join(d, 'model.onnx'), 'utf8')).toBe('private-bytes');
    expect(ok.out).not.toContain(TOKEN);
    const no = await runSi(['hf://org/private', dest()], { HF_ENDPOINT: hub.url });
    expect(no.code).toBe(1);
    expect(no.out).toMatch(/error: hf:\/\/org\/private: not found: .*RepoNotFound \(or it is private and HF_TOKEN is missing or not allowed\)/);
  });

  it('reports a gated repo, a missing revision and a malformed URI with one line each', async () => {
    const gated = await runSi(['hf://org/gated', dest()], { HF_ENDPOINT: hub.url, HF_TOKEN: TOKEN });
    expect(gated.code).toBe(1);
    expect(gated.out).toMatch(/access denied: .*gated repository/);
    expect(gated.out).not.toContain(TOKEN);
    const rev = await runSi(['hf://org/tiny:nope', dest()], { HF_ENDPOINT: hub.url });
    expect(rev.code).toBe(1);
    expect(rev.out).toMatch(/not found: .*RevisionNotFound/);
    const bad = await runSi(['hf://just-a-name', dest()], { HF_ENDPOINT: hub.url });
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/invalid: expected hf:\/\/<owner>\/<model>\[:<revision>\]/);
  });
});
