/**
 * The storage-initializer against hostile stores and archives (issue 16): credentials never
 * printed, archive bombs and corrupt members refused with one line, a kill -9 during the
 * final move never leaves a partial model unmarked.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMIT_MARKER } from '../../storage-initializer/commit.js';
import { requireStrace } from '../helpers/strace.js';
import { SI_CLI, cleanup, listFiles, makeTar, makeZip, runSi, tempDir } from './helpers.js';

const dirs: string[] = [];
const tmp = () => {
  const d = tempDir();
  dirs.push(d);
  return d;
};
afterAll(() => cleanup(...dirs));

/** A file holding `body`, as a local source. */
function archiveFile(name: string, body: Buffer): string {
  const f = path.join(tmp(), name);
  writeFileSync(f, body);
  return f;
}

const errorLines = (out: string) => out.split('\n').filter((l) => l.startsWith('storage-initializer: error:'));

describe('storage-initializer never prints credentials', () => {
  let server: http.Server;
  let base: string;
  const SECRETS = [
    'hunter2',
    'alice-the-user',
    'sv-sig-Zm9vYmFy',
    'AMZSIGdeadbeef',
    'tok-123456',
    'AKIAEXAMPLEKEY1',
    'wJalrXUtnFEMIsecretKEY',
    'FwoGZXIvYXdzEsession',
    'Bearer-hdr-secret-99',
  ];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const url = (req.url ?? '').split('?')[0]!;
      if (url.startsWith('/stall/')) {
        res.writeHead(200, { 'content-length': '1000' });
        res.write('x'.repeat(10)); // then nothing: the idle-read timeout fires
        return;
      }
      if (url.startsWith('/truncate/')) {
        res.writeHead(200, { 'content-length': '1000' });
        res.end('x'.repeat(10)); // the connection closes early
        res.socket?.destroy();
        return;
      }
      res.writeHead(500).end('no');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const query = '?sv=2022&sig=sv-sig-Zm9vYmFy&X-Amz-Signature=AMZSIGdeadbeef&token=tok-123456';
  const env = {
    AWS_ACCESS_KEY_ID: 'AKIAEXAMPLEKEY1',
    AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMIsecretKEY',
    AWS_SESSION_TOKEN: 'FwoGZXIvYXdzEsession',
    '127.0.0.1-headers': JSON.stringify({ Authorization: 'Bearer Bearer-hdr-secret-99' }),
    STORAGE_MAX_ATTEMPTS: '2',
    STORAGE_READ_TIMEOUT: '0.3',
    STORAGE_CONNECT_TIMEOUT: '1',
  };

  it.each([
    ['a stalled download', () => `http://alice-the-user:hunter2@${base}/stall/model.onnx${query}`],
    ['a truncated download', () => `http://alice-the-user:hunter2@${base}/truncate/model.onnx${query}`],
    ['a 5xx answer', () => `http://alice-the-user:hunter2@${base}/fail/model.onnx${query}`],
    ['a malformed %zz URL', () => `http://alice-the-user:hunter2@${base}/bad/%zz${query}`],
    ['an unparsable URL', () => `http://alice-the-user:hunter2@[::zz]/m.onnx${query}`],
    ['an unreachable S3 endpoint with keys', () => `s3://bucket/model${query}`],
  ])('in the full output of %s', async (_what, uri) => {
    const r = await runSi([uri(), path.join(tmp(), 'm')], { ...env, AWS_ENDPOINT_URL: 'http://127.0.0.1:1', STORAGE_LOG_LEVEL: 'debug' });
    expect(r.code).toBe(1);
    expect(errorLines(r.out)).toHaveLength(1);
    for (const s of SECRETS) expect(r.out, r.out).not.toContain(s);
    expect(r.out).not.toMatch(/\n\s+at /); // no stack trace
  });
});

describe('storage-initializer archive bombs and corrupt archives', () => {
  it('refuses a zip whose entries share one compressed stream, writing nothing', async () => {
    const members = [
      { name: 'w0000.bin', content: Buffer.alloc(1024 * 1024), deflate: true },
      ...Array.from({ length: 20 }, (_, i) => ({ name: `w${String(i + 1).padStart(4, '0')}.bin`, sameDataAs: 0 })),
    ];
    const src = archiveFile('bomb.zip', makeZip(members));
    const dest = path.join(tmp(), 'models');
    const r = await runSi([src, dest]);
    expect(r.code).toBe(1);
    expect(errorLines(r.out)).toHaveLength(1);
    expect(r.out).toMatch(/bomb\.zip: unsafe archive: members 'w0000\.bin' and 'w\d+\.bin' share data \(overlapping entries\)/);
    expect(listFiles(dest)).toEqual([]);
  });

  it('bounds the expansion by ratio (tgz) and absolutely (zip), each configurable', async () => {
    const tgz = archiveFile('big.tgz', gzipSync(makeTar([{ name: 'zeros.bin', content: Buffer.alloc(8 * 1024 * 1024) }])));
    const dest = path.join(tmp(), 'models');
    const r = await runSi([tgz, dest], { STORAGE_EXTRACT_RATIO_FLOOR: '0', STORAGE_MAX_EXTRACT_RATIO: '100' });
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/big\.tgz: unsafe archive: expands to more than \d+ bytes \(100× the \d+-byte archive \(STORAGE_MAX_EXTRACT_RATIO\)\) at member 'zeros\.bin'/);
    expect(listFiles(dest)).toEqual([]);
    // The same archive within the default bounds (ratio applied above 64 MiB only).
    const ok = await runSi([tgz, dest]);
    expect(ok.code, ok.out).toBe(0);
    expect(listFiles(dest)).toEqual(['zeros.bin']);

    const zip = archiveFile(
      'two.zip',
      makeZip([
        { name: 'a.bin', content: Buffer.alloc(600), deflate: true },
        { name: 'b.bin', content: Buffer.alloc(600), deflate: true },
      ]),
    );
    const dest2 = path.join(tmp(), 'models');
    const z = await runSi([zip, dest2], { STORAGE_MAX_EXTRACTED_BYTES: '1000' });
    expect(z.code).toBe(1);
    expect(z.out).toContain("two.zip: unsafe archive: expands to more than 1000 bytes (STORAGE_MAX_EXTRACTED_BYTES=1000) at member 'b.bin'");
    expect(listFiles(dest2)).toEqual([]);
  });

  it('bounds the member count', async () => {
    const tar = archiveFile('many.tar', makeTar(Array.from({ length: 20 }, (_, i) => ({ name: `f${i}`, content: 'x' }))));
    const dest = path.join(tmp(), 'models');
    const r = await runSi([tar, dest], { STORAGE_MAX_ARCHIVE_ENTRIES: '10' });
    expect(r.code).toBe(1);
    expect(r.out).toContain("many.tar: unsafe archive: more than 10 members (STORAGE_MAX_ARCHIVE_ENTRIES) at 'f10'");
    expect(listFiles(dest)).toEqual([]);
  });

  it.each([
    [
      'a corrupt deflate stream',
      [
        { name: 'ok.txt', content: 'fine' },
        { name: 'bad.bin', content: Buffer.alloc(64 * 1024, 7), deflate: true, corrupt: true },
      ],
    ],
    ['a stored member failing its CRC', [{ name: 'bad.txt', content: 'some text here', corrupt: true }]],
  ])('fails on %s with one line, no crash, no temp files', async (_what, members) => {
    const src = archiveFile('corrupt.zip', makeZip(members));
    const dest = path.join(tmp(), 'models');
    const r = await runSi([src, dest]);
    expect(r.code).toBe(1);
    expect(errorLines(r.out), r.out).toHaveLength(1);
    expect(r.out).toMatch(/corrupt\.zip: invalid: not a valid zip archive: member 'bad\.(bin|txt)': /);
    expect(r.out).not.toMatch(/\n\s+at |Unhandled|node:events/);
    expect(listFiles(dest)).toEqual([]);
  });
});

describe('storage-initializer killed during the final move', () => {
  const FILES = 2000;

  function manyFileModel(): string {
    const src = path.join(tmp(), 'src');
    for (let d = 0; d < 10; d++) {
      mkdirSync(path.join(src, `d${d}`), { recursive: true });
      for (let f = 0; f < FILES / 20; f++) writeFileSync(path.join(src, `d${d}`, `f${f}`), `${d}/${f}`);
    }
    for (let f = 0; f < FILES / 2; f++) writeFileSync(path.join(src, `top${f}`), `top${f}`);
    return src;
  }

  /**
   * Runs the storage-initializer and kills it (SIGKILL) on entering its `nth` rename, by
   * strace's fault injection: the commit marker is the first rename, the entries' moves the
   * ones after it, so the kill lands inside the move whatever the machine's speed. One
   * threadpool thread does every rename (strace counts per thread).
   */
  function runKilledAtRename(src: string, dest: string, nth: number): Promise<NodeJS.Signals | number | null> {
    return new Promise((resolve) => {
      mkdirSync(dest, { recursive: true });
      const renames = '/^rename';
      const child = spawn(
        'strace',
        ['-f', '-qq', '-o', '/dev/null', '-e', `trace=${renames}`, '-e', `inject=${renames}:signal=KILL:when=${nth}`, process.execPath, SI_CLI, src, dest],
        {
          stdio: 'ignore',
          env: { PATH: process.env['PATH'] ?? '', UV_THREADPOOL_SIZE: '1' },
        },
      );
      child.on('exit', (code, signal) => resolve(signal ?? code));
    });
  }

  const modelFiles = (dest: string) => listFiles(dest).filter((f) => !f.startsWith('.storage-initializer-'));

  it('shows all or nothing once the next run has honoured the marker, for a kill anywhere in the move', async () => {
    requireStrace();
    const src = manyFileModel();
    const expected = listFiles(src);
    expect(expected).toHaveLength(FILES);
    const counts: number[] = [];
    // Killed after the first move, in the middle, and just before the last of its 1,010 entries.
    for (const nth of [3, 500, 1010]) {
      const dest = path.join(tmp(), 'models');
      await runKilledAtRename(src, dest, nth);
      const after = modelFiles(dest).length;
      counts.push(after);
      // Partial content only ever exists next to the marker that says so.
      expect(after, `model files seen after the kill at rename ${nth}`).toBeGreaterThan(0);
      expect(after).toBeLessThan(FILES);
      expect(readdirSync(dest)).toContain(COMMIT_MARKER);
      // The next run (even one whose own source fails) finishes the interrupted move first.
      const next = await runSi([path.join(src, 'missing'), dest]);
      expect(next.code).toBe(1);
      expect(modelFiles(dest)).toEqual(expected);
      expect(existsSync(path.join(dest, COMMIT_MARKER))).toBe(false);
      expect(readdirSync(dest).filter((n) => n.startsWith('.storage-initializer-'))).toEqual([]);
    }
    console.log(`killed during the move: model files seen after each kill: ${counts.join(', ')}`);
  }, 240_000);
});
