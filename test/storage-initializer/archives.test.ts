/**
 * .tar.bz2 / .tbz2 and .tar.xz / .txz archives, unpacked by the real CLI from file:// (the
 * engine unpacks a single archive object whatever its store), with the same refusals as the
 * other formats: traversal, bombs (ratio and absolute bounds) and corrupt streams. Archives
 * are compressed with the system's bzip2 and xz tools from tars made here.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, exists, listFiles, makeTar, runSi, tempDir, modelDest } from './helpers.js';

const FORMATS = [
  { ext: 'tar.bz2', alt: 'tbz2', tool: 'bzip2', name: 'bzip2' },
  { ext: 'tar.xz', alt: 'txz', tool: 'xz', name: 'xz' },
] as const;

const compress = (tool: string, data: Buffer) => execFileSync(tool, ['-c', '-9'], { input: data, maxBuffer: 64 * 1024 * 1024 });
const errorLines = (out: string) => out.split('\n').filter((l) => l.startsWith('storage-initializer: error:'));

describe.each(FORMATS)('storage-initializer .$ext archives', ({ ext, alt, tool, name }) => {
  let src: string;
  const dirs: string[] = [];
  const weights = randomBytes(300 * 1024);
  const dest = modelDest(dirs);
  const put = (file: string, data: Buffer) => {
    writeFileSync(path.join(src, file), data);
    return `file://${path.join(src, file)}`;
  };

  beforeAll(() => {
    src = tempDir('si-archives-');
    dirs.push(src);
  });

  afterAll(() => cleanup(...dirs));

  it(`unpacks .${ext} and .${alt} with folders, files and links inside, and removes the archive`, async () => {
    const tar = makeTar([
      { name: 'model/', type: '5' },
      { name: 'model/1/', type: '5' },
      { name: 'model/1/model.onnx', content: weights },
      { name: 'model/config.pbtxt', content: 'name: "m"' },
      { name: 'model/latest', type: '2', link: '1' },
    ]);
    for (const file of [`m.${ext}`, `m.${alt}`]) {
      const d = dest();
      const r = await runSi([put(file, compress(tool, tar)), d]);
      expect(r.code, r.out).toBe(0);
      expect(listFiles(d)).toEqual(['model/1/model.onnx', 'model/config.pbtxt', 'model/latest']);
      expect(readFileSync(path.join(d, 'model/latest/model.onnx')).equals(weights)).toBe(true);
      expect(exists(path.join(d, file))).toBe(false);
    }
  });

  it('refuses members that leave the destination, writing nothing', async () => {
    const d = dest();
    const r = await runSi([
      put(
        `evil.${ext}`,
        compress(
          tool,
          makeTar([
            { name: 'ok.txt', content: 'ok' },
            { name: '../escape.txt', content: 'pwned' },
          ]),
        ),
      ),
      d,
    ]);
    expect(r.code).toBe(1);
    expect(errorLines(r.out)).toEqual([expect.stringMatching(/unsafe archive: member '\.\.\/escape\.txt' contains '\.\.'/)]);
    expect(exists(path.join(path.dirname(d), 'escape.txt'))).toBe(false);
    expect(exists(path.join(d, 'ok.txt'))).toBe(false);
  });

  it('stops a decompression bomb at the ratio bound and at the absolute bound', async () => {
    // 16 MiB of zeros compress to well under a kilobyte in both formats.
    const bomb = compress(tool, makeTar([{ name: 'zeros.bin', content: Buffer.alloc(16 * 1024 * 1024) }]));
    const ratio = await runSi([put(`bomb.${ext}`, bomb), dest()], { STORAGE_EXTRACT_RATIO_FLOOR: String(1024 * 1024) });
    expect(ratio.code).toBe(1);
    expect(errorLines(ratio.out)).toEqual([expect.stringMatching(/unsafe archive: expands to more than \d+ bytes \(200× the \d+-byte archive \(STORAGE_MAX_EXTRACT_RATIO\)\)/)]);
    const abs = await runSi([put(`bomb2.${ext}`, bomb), dest()], { STORAGE_MAX_EXTRACTED_BYTES: String(4 * 1024 * 1024) });
    expect(abs.code).toBe(1);
    expect(errorLines(abs.out)).toEqual([expect.stringMatching(/unsafe archive: expands to more than 4194304 bytes \(STORAGE_MAX_EXTRACTED_BYTES=4194304\)/)]);
  });

  it('reports a corrupt stream as one clear line', async () => {
    const good = compress(tool, makeTar([{ name: 'a.bin', content: randomBytes(64 * 1024) }]));
    const bad = Buffer.from(good);
    for (let i = Math.floor(bad.length / 2); i < Math.floor(bad.length / 2) + 64; i++) bad[i] = bad[i]! ^ 0xff;
    const r = await runSi([put(`corrupt.${ext}`, bad), dest()]);
    expect(r.code).toBe(1);
    expect(errorLines(r.out)).toEqual([expect.stringMatching(new RegExp(`invalid: not a valid ${name}-compressed tar archive`))]);
  });
});
