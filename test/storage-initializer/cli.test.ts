/** The storage-initializer command: argument contract, schemes, local sources, atomic replacement, bounded memory; and its config/pattern tables. */
import { spawnSync } from 'node:child_process';
import { mkdirSync, openSync, closeSync, ftruncateSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { archiveKind, memberPath } from '../../storage-initializer/archive.js';
import { loadConfig, parsePatterns } from '../../storage-initializer/config.js';
import { fnmatchRegExp, makeFilter } from '../../storage-initializer/patterns.js';
import { ROOT } from '../helpers/server.js';
import { cleanup, listFiles, runSi, tempDir } from './helpers.js';

const dirs: string[] = [];
const tmp = () => {
  const d = tempDir();
  dirs.push(d);
  return d;
};
afterAll(() => cleanup(...dirs));

function sourceTree(): string {
  const src = path.join(tmp(), 'src');
  mkdirSync(path.join(src, 'sub/deep'), { recursive: true });
  writeFileSync(path.join(src, 'model.onnx'), 'onnx');
  writeFileSync(path.join(src, 'sub/config.pbtxt'), 'cfg');
  writeFileSync(path.join(src, 'sub/deep/w.bin'), 'w');
  return src;
}

describe('storage-initializer command', () => {
  it.each([[[]], [['s3://b/m']], [['s3://b/m', '/tmp/x', 'gs://b/m']]])('prints usage and exits 1 for %j', async (args) => {
    const r = await runSi(args);
    expect(r.code).toBe(1);
    expect(r.out).toContain('Usage: storage-initializer [--cache_dir DIR [--cache_max_bytes SIZE]] [--concurrency N|auto] <src_uri> <dest_path> [<src_uri> <dest_path> ...]');
  });

  it.each([
    [['--cache_dri', '/c', 's3://b/m', '/tmp/x'], 'storage-initializer: unknown flag --cache_dri'],
    [['s3://b/m', '/tmp/x', '--cache_dir'], 'storage-initializer: --cache_dir needs a value'],
  ])('refuses %j with one line and the usage, exit 1', async (args, line) => {
    const r = await runSi(args);
    expect(r.code).toBe(1);
    expect(r.out).toContain(line);
    expect(r.out).toContain('Usage: storage-initializer');
  });

  it('takes --cache-dir in either spelling and form, anywhere among the pairs', async () => {
    const src = sourceTree();
    const cache = tmp();
    const dest = path.join(tmp(), 'models');
    const r = await runSi([src, dest, '--cache-dir', cache]);
    expect(r.code, r.out).toBe(0);
    expect(listFiles(dest)).toEqual(['model.onnx', 'sub/config.pbtxt', 'sub/deep/w.bin']);
  });

  it('takes --concurrency N or auto (over STORAGE_CONCURRENCY), and refuses a bad value with one line', async () => {
    const src = sourceTree();
    for (const [flag, env] of [
      ['2', 'auto'],
      ['auto', '1'],
    ] as const) {
      const dest = path.join(tmp(), 'models');
      const r = await runSi(['--concurrency', flag, src, dest], { STORAGE_CONCURRENCY: env });
      expect(r.code, r.out).toBe(0);
      expect(listFiles(dest)).toEqual(['model.onnx', 'sub/config.pbtxt', 'sub/deep/w.bin']);
    }
    const bad = await runSi(['--concurrency', '0', src, path.join(tmp(), 'models')]);
    expect(bad.code).toBe(1);
    expect(bad.out).toContain("error: STORAGE_CONCURRENCY: invalid: STORAGE_CONCURRENCY must be a number >= 1, got '0'");
    const badEnv = await runSi([src, path.join(tmp(), 'models')], { STORAGE_CONCURRENCY: 'lots' });
    expect(badEnv.out).toContain("STORAGE_CONCURRENCY must be a number >= 1, got 'lots'");
  });

  it('prints usage with --help and exits 0', async () => {
    const r = await runSi(['--help']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('Usage: storage-initializer');
  });

  it('is linked as node_modules/.bin/storage-initializer and runs as kserve-ts storage-initializer', () => {
    const bin = spawnSync(path.join(ROOT, 'node_modules/.bin/storage-initializer'), ['--help'], { encoding: 'utf8' });
    expect(bin.status).toBe(0);
    const help = spawnSync(process.execPath, [path.join(ROOT, 'dist/bin/kserve-ts.js'), '--help'], { encoding: 'utf8' });
    expect(help.stdout).toContain('storage-initializer');
    const src = sourceTree();
    const dest = path.join(tmp(), 'a/b/models');
    const sub = spawnSync(process.execPath, [path.join(ROOT, 'dist/bin/kserve-ts.js'), 'storage-initializer', src, dest], { encoding: 'utf8' });
    expect(sub.status, sub.stderr).toBe(0);
    expect(listFiles(dest)).toEqual(['model.onnx', 'sub/config.pbtxt', 'sub/deep/w.bin']);
  });

  it('rejects unknown schemes naming the URI, and explains pvc://', async () => {
    const r = await runSi(['ftp://nn/models/m', path.join(tmp(), 'm')]);
    expect(r.code).toBe(1);
    expect(r.out).toContain("error: ftp://nn/models/m: unsupported storage scheme: 'ftp://' is not supported");
    const p = await runSi(['pvc://claim/models', path.join(tmp(), 'm')]);
    expect(p.code).toBe(1);
    expect(p.out).toContain('pvc://claim/models: unsupported storage scheme: pvc:// is not downloaded: the webhook mounts the PersistentVolumeClaim');
  });

  it('copies file:// folders and single files and plain local paths, creating destination folders', async () => {
    const src = sourceTree();
    const d1 = path.join(tmp(), 'x/y');
    const d2 = path.join(tmp(), 'single');
    const r = await runSi([`file://${src}`, d1, path.join(src, 'sub/config.pbtxt'), d2]);
    expect(r.code, r.out).toBe(0);
    expect(listFiles(d1)).toEqual(['model.onnx', 'sub/config.pbtxt', 'sub/deep/w.bin']);
    expect(listFiles(d2)).toEqual(['config.pbtxt']);
    expect(r.out).toMatch(/all 2 sources downloaded: 11 bytes, 4 files/);
    const missing = await runSi([path.join(src, 'nope'), path.join(tmp(), 'm')]);
    expect(missing.code).toBe(1);
    expect(missing.out).toContain('nope: not found');
  });

  it('replaces an earlier download and removes a stale temporary folder from a killed run', async () => {
    const src = sourceTree();
    const dest = path.join(tmp(), 'models');
    mkdirSync(path.join(dest, 'sub'), { recursive: true });
    mkdirSync(path.join(dest, '.storage-initializer-1-stale'), { recursive: true });
    writeFileSync(path.join(dest, '.storage-initializer-1-stale/half.bin'), 'partial');
    writeFileSync(path.join(dest, 'sub/config.pbtxt'), 'old');
    writeFileSync(path.join(dest, 'sub/old-only.txt'), 'old');
    const r = await runSi([src, dest]);
    expect(r.code, r.out).toBe(0);
    expect(listFiles(dest)).toEqual(['model.onnx', 'sub/config.pbtxt', 'sub/deep/w.bin']);
    expect(readFileSync(path.join(dest, 'sub/config.pbtxt'), 'utf8')).toBe('cfg');
  });

  it('streams a 2 GiB sparse object with bounded memory', async () => {
    const size = 2 * 1024 ** 3;
    const src = path.join(tmp(), 'big.bin');
    const fd = openSync(src, 'w');
    ftruncateSync(fd, size);
    closeSync(fd);
    const dest = path.join(tmp(), 'models');
    // A fixed number of parallel parts: `auto` sets it from the CPU count and the rates it
    // measures, and each part in flight holds its own buffers.
    const r = await runSi(['--concurrency', '4', src, dest], { STORAGE_PROGRESS_INTERVAL: '1' });
    expect(r.code, r.out).toBe(0);
    expect(statSync(path.join(dest, 'big.bin')).size).toBe(size);
    const rss = /peak RSS ([\d.]+) MiB/.exec(r.out);
    expect(rss, r.out).not.toBeNull();
    // Streamed, the peak is the process's own (about 100 MiB measured, benchmarks/RESULTS.md),
    // whatever the object's size; holding the object would need all 2 GiB. The bound sits
    // between the two, far from both.
    expect(Number(rss![1]) * 1024 ** 2).toBeLessThan(size / 4);
  }, 120_000);
});

describe('storage-initializer configuration', () => {
  it.each([
    ['*.onnx', 'model.onnx', true],
    ['*.onnx', 'sub/model.onnx', true], // fnmatch: * crosses '/'
    ['sub/*', 'sub/deep/x', true],
    ['model.?nnx', 'model.onnx', true],
    ['[!a]*', 'abc', false],
    ['[ab]*', 'b.txt', true],
    ['*.bin', 'model.onnx', false],
    ['a+b(1).txt', 'a+b(1).txt', true],
  ])('fnmatch %s on %s → %s', (pattern, key, match) => {
    expect(fnmatchRegExp(pattern).test(key)).toBe(match);
  });

  it('parses pattern lists as JSON arrays or comma lists, allow then ignore', () => {
    expect(parsePatterns('["*.onnx", "*.pbtxt"]')).toEqual(['*.onnx', '*.pbtxt']);
    expect(parsePatterns('*.onnx, *.pbtxt')).toEqual(['*.onnx', '*.pbtxt']);
    expect(parsePatterns('')).toEqual([]);
    const keep = makeFilter(['*.onnx', '*.json'], ['test/*']);
    expect(['a.onnx', 'test/b.onnx', 'c.json', 'd.bin'].filter(keep)).toEqual(['a.onnx', 'c.json']);
  });

  it('reads the anchor variables once into a frozen config', () => {
    const c = loadConfig({
      S3_ENDPOINT: 'minio.local:9000',
      S3_USE_HTTPS: '0',
      S3_VERIFY_SSL: 'false',
      awsAnonymousCredential: 'True',
      S3_USER_VIRTUAL_BUCKET: 'true',
      AWS_DEFAULT_REGION: 'eu-west-1',
      S3_MAX_ATTEMPTS: '7',
    });
    expect(c.s3).toMatchObject({ endpoint: 'http://minio.local:9000', verifySsl: false, anonymous: true, virtualBucket: true, region: 'eu-west-1' });
    expect(c.maxAttempts).toBe(7);
    expect(Object.isFrozen(c) && Object.isFrozen(c.s3)).toBe(true);
    expect(loadConfig({ S3_ENDPOINT: 'minio.local:9000' }).s3.endpoint).toBe('https://minio.local:9000');
    expect(loadConfig({ AWS_ENDPOINT_URL: 'http://a:1', S3_ENDPOINT: 'b:2' }).s3.endpoint).toBe('http://a:1');
    const sc = loadConfig({
      STORAGE_CONFIG: JSON.stringify({ type: 's3', endpoint_url: 'http://x:1', access_key_id: 'k', secret_access_key: 's', anonymous: 'false' }),
      AWS_ACCESS_KEY_ID: 'env',
    });
    expect(sc.s3).toMatchObject({ endpoint: 'http://x:1', accessKeyId: 'k', secretAccessKey: 's', anonymous: false });
    expect(loadConfig({ STORAGE_EMULATOR_HOST: '127.0.0.1:4443' }).gcs.endpoint).toBe('http://127.0.0.1:4443');
    expect(loadConfig({ 'example.com-headers': '{"Authorization":"Bearer t"}' }).http.headers.get('example.com')).toEqual({ Authorization: 'Bearer t' });
    expect(() => loadConfig({ STORAGE_PART_SIZE: 'big' })).toThrow(/STORAGE_PART_SIZE must be a number/);
    expect(() => loadConfig({ STORAGE_CONFIG: '{oops' })).toThrow(/STORAGE_CONFIG is not a JSON object/);
  });

  it('recognises archives and confines member paths', () => {
    expect(['m.zip', 'm.tar', 'm.tar.gz', 'M.TGZ', 'm.onnx'].map(archiveKind)).toEqual(['zip', 'tar', 'tgz', 'tgz', undefined]);
    expect(memberPath('/r', './a/./b')).toBe('/r/a/b');
    expect(() => memberPath('/r', '/etc/passwd')).toThrow(/absolute path/);
    expect(() => memberPath('/r', 'a/../../x')).toThrow(/contains '..'/);
    expect(() => memberPath('/r', 'a\\..\\..\\x')).toThrow(/contains '..'/);
  });
});

describe('one scheme table for the storage-initializer and the controller', () => {
  it('the CLI registry and the admission check read the same schemes', async () => {
    const { STORAGE_SCHEME_NAMES, STORAGE_HOST_ROUTES } = await import('../../storage-initializer/schemes.js');
    const { PROVIDER_LOADERS } = await import('../../storage-initializer/providers/index.js');
    const { SUPPORTED_STORAGE_SCHEMES, storageUriProblem } = await import('../../controller/webhooks/isvc/storage-uri.js');
    // oci:// is admitted besides: the pod webhook serves it as a modelcar, nothing downloads it.
    expect(SUPPORTED_STORAGE_SCHEMES).toEqual([...STORAGE_SCHEME_NAMES, 'oci']);
    expect(Object.keys(PROVIDER_LOADERS).sort()).toEqual([...STORAGE_SCHEME_NAMES, ...Object.keys(STORAGE_HOST_ROUTES)].sort());
    for (const s of STORAGE_SCHEME_NAMES) expect(storageUriProblem('f', `${s}://x/y`)).toBeUndefined();
    for (const r of Object.values(STORAGE_HOST_ROUTES)) expect(storageUriProblem('f', r.example)).toBeUndefined();
    expect(storageUriProblem('f', 'ftp://nn/m')).toContain("unsupported storage URI scheme 'ftp://'");
  });

  it('the usage text lists what the table has: every scheme, every host route, pvc:// as mounted', async () => {
    const { STORAGE_SCHEMES, STORAGE_HOST_ROUTES } = await import('../../storage-initializer/schemes.js');
    const { USAGE } = await import('../../storage-initializer/cli.js');
    for (const { example } of [...Object.values(STORAGE_SCHEMES), ...Object.values(STORAGE_HOST_ROUTES)]) expect(USAGE).toContain(example);
    expect(USAGE.replaceAll('\n', ' ')).toContain('pvc://claim[/path] is not downloaded: the pod webhook mounts the claim');
  });

  it.each<[string, unknown]>([
    ['pvc://claim', { claim: 'claim', path: '' }],
    ['pvc://claim/some/path', { claim: 'claim', path: 'some/path' }],
    ['PVC://claim/m', { claim: 'claim', path: 'm' }],
    ['pvc://', { problem: 'no-claim' }],
    ['pvc:///x', { problem: 'no-claim' }],
    ['pvc:///../x', { problem: 'no-claim' }],
    ['pvc://./x', { problem: 'no-claim' }],
    ['pvc://../x', { problem: 'dot-dot' }],
    ['pvc://claim/../../etc', { problem: 'dot-dot' }],
  ])('pvc URI rules, one place for the admission check and the pod webhook: %s', async (uri, want) => {
    const { parsePvcUri } = await import('../../storage-initializer/pvc-uri.js');
    const { storageUriProblem } = await import('../../controller/webhooks/isvc/storage-uri.js');
    expect(parsePvcUri(uri)).toEqual(want);
    const problem = storageUriProblem('f', uri);
    if ('claim' in (want as object)) expect(problem).toBeUndefined();
    else expect(problem).toContain((want as { problem: string }).problem === 'no-claim' ? 'names no claim' : "has a '..' path segment");
  });

  it('routes Azure hosts as KServe detects them, other https URIs to plain downloads', async () => {
    const { providerKeyOf } = await import('../../storage-initializer/schemes.js');
    expect(providerKeyOf('https://acct.blob.core.windows.net/c/p')).toBe('azure-blob');
    expect(providerKeyOf('https://acct.z12.blob.storage.azure.net/c/p?sv=1&sig=x')).toBe('azure-blob');
    expect(providerKeyOf('https://acct.file.core.windows.net/share/p')).toBe('azure-file');
    expect(providerKeyOf('http://acct.blob.core.windows.net/c/p')).toBe('http');
    expect(providerKeyOf('https://blob.core.windows.net.example.com/c/p')).toBe('https');
    expect(providerKeyOf('https://example.com/acct.blob.core.windows.net/p')).toBe('https');
    expect(providerKeyOf('hf://org/m')).toBe('hf');
  });
});
