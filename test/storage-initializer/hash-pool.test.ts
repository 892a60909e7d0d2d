/**
 * Checksums off the event loop: the hash workers digest a real file as its bytes are
 * declared written, in any order of part completion, with the stores' notations (hex MD5,
 * base64 big-endian CRC32C), and the written-prefix bookkeeping that feeds them.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeDigest } from '../../storage-initializer/checksum.js';
import { HashPool, hashWorkers } from '../../storage-initializer/hash-pool.js';
import { WrittenRanges } from '../../storage-initializer/written-ranges.js';

const dir = mkdtempSync(path.join(tmpdir(), 'si-hash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('written prefix', () => {
  it.each([
    // [writes as [position, length], prefix end after each]
    [
      'in order',
      [
        [0, 10],
        [10, 5],
        [15, 1],
      ],
      [10, 15, 16],
    ],
    [
      'a part ahead of the gap waits for it',
      [
        [10, 10],
        [30, 5],
        [0, 10],
        [20, 10],
      ],
      [0, 0, 20, 35],
    ],
    [
      'overlaps and repeats (a retried part) count once',
      [
        [0, 8],
        [4, 8],
        [0, 12],
        [20, 4],
        [18, 4],
        [12, 6],
      ],
      [8, 12, 12, 12, 12, 24],
    ],
    [
      'empty writes change nothing',
      [
        [0, 0],
        [5, 0],
        [0, 3],
      ],
      [0, 0, 3],
    ],
  ])('%s', (_name, writes, want) => {
    const w = new WrittenRanges(0);
    const got = writes.map(([p, n]) => {
      w.add(p!, n!);
      return w.prefixEnd;
    });
    expect(got).toEqual(want);
  });
});

describe('digests', () => {
  it.each([
    ['md5', Buffer.from('123456789'), '25f9e794323b453885f5181f1b624d0b'],
    // The CRC32C check value of "123456789" is 0xE3069283.
    ['crc32c', Buffer.from('123456789'), Buffer.from([0xe3, 0x06, 0x92, 0x83]).toString('base64')],
    ['crc32c', Buffer.alloc(0), 'AAAAAA=='],
  ] as const)('%s of %j', (algorithm, input, want) => {
    const d = makeDigest(algorithm);
    // Fed in uneven pieces: the slicing-by-8 loop and its byte-wise tail must agree.
    for (let i = 0; i < input.length; i += 5) d.update(input.subarray(i, i + 5));
    expect(d.digest()).toBe(want);
  });

  // RFC 3720 B.4's vectors and the check value, fed whole and in pieces of every size up to 17:
  // the slicing-by-8 tables are used only for runs of eight bytes or more.
  it.each([
    ['32 zero bytes', Buffer.alloc(32), 0x8a9136aa],
    ['32 bytes of 0xff', Buffer.alloc(32, 0xff), 0x62a8ab43],
    ['32 incrementing bytes', Buffer.from(Array.from({ length: 32 }, (_, i) => i)), 0x46dd794e],
    ['32 decrementing bytes', Buffer.from(Array.from({ length: 32 }, (_, i) => 31 - i)), 0x113fdb5c],
    ['"123456789"', Buffer.from('123456789'), 0xe3069283],
  ] as const)('crc32c of %s in pieces of any size', (_name, input, want) => {
    const expected = Buffer.alloc(4);
    expected.writeUInt32BE(want);
    for (let piece = 1; piece <= 17; piece++) {
      const d = makeDigest('crc32c');
      for (let i = 0; i < input.length; i += piece) d.update(input.subarray(i, i + piece));
      expect(d.digest(), `pieces of ${piece}`).toBe(expected.toString('base64'));
    }
  });

  it('uses one to four workers by core count', () => {
    expect([1, 2, 3, 4, 8, 64].map(hashWorkers)).toEqual([1, 1, 1, 2, 4, 4]);
  });
});

describe('hash pool', () => {
  it('digests a file as its parts are declared written, in any order, on worker threads', async () => {
    const data = randomBytes(9 * 1024 * 1024 + 17);
    const file = path.join(dir, 'obj.bin');
    writeFileSync(file, data);
    const crcRef = makeDigest('crc32c');
    crcRef.update(data);
    const pool = new HashPool(2);
    try {
      const md5 = pool.session(file, 0, data.length, 'md5');
      const crc = pool.session(file, 0, data.length, 'crc32c');
      const part = pool.session(file, 1024, 4096, 'md5');
      const w = new WrittenRanges(0);
      for (const [p, n] of [
        [4 * 1024 * 1024, 5 * 1024 * 1024 + 17],
        [0, 1024 * 1024],
        [1024 * 1024, 3 * 1024 * 1024],
      ] as const) {
        w.add(p, n);
        md5.advance(w.prefixEnd);
        crc.advance(w.prefixEnd);
      }
      part.advance(4096);
      const [m, c, p] = await Promise.all([md5.digest(), crc.digest(), part.digest()]);
      expect(m).toBe(createHash('md5').update(data).digest('hex'));
      expect(c).toBe(crcRef.digest());
      expect(p).toBe(createHash('md5').update(data.subarray(1024, 4096)).digest('hex'));
      // An empty range is digested at once; a file shorter than its range is an error.
      expect(await pool.session(file, 0, 0, 'md5').digest()).toBe('d41d8cd98f00b204e9800998ecf8427e');
      const short = pool.session(file, 0, data.length + 10, 'md5');
      short.advance(data.length + 10);
      await expect(short.digest()).rejects.toThrow(/ends at/);
    } finally {
      await pool.close();
    }
  });
});
