/**
 * The digests a store declares, computed incrementally: MD5 (S3 single-part ETags, Azure
 * Content-MD5, GCS md5Hash) and CRC32C (GCS, base64 big-endian). Used by the hash worker
 * (hash-worker.ts), never on the download's event loop. `crc32c` is the same CRC as a number,
 * for the model repository's TFRecord framing (server/repository/tfrecord.ts).
 */
import { createHash } from 'node:crypto';

export type HashAlgorithm = 'md5' | 'crc32c';

/** Slicing-by-8 tables: 8 × 256 entries, one byte of input per table per step; table s is table s-1 advanced by one zero byte through table 0. */
const CRC32C_TABLES = (() => {
  const t = Array.from({ length: 8 }, () => new Uint32Array(256));
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    t[0]![i] = c >>> 0;
  }
  for (let i = 0; i < 256; i++) {
    for (let s = 1; s < 8; s++) t[s]![i] = (t[0]![t[s - 1]![i]! & 0xff]! ^ (t[s - 1]![i]! >>> 8)) >>> 0;
  }
  return t;
})();

/** Feeds bytes in order; `digest` gives the store's notation (hex MD5, base64 CRC32C). */
export interface Digest {
  update(chunk: Uint8Array): void;
  digest(): string;
}

class Crc32c implements Digest {
  private crc = ~0 >>> 0;

  update(b: Uint8Array): void {
    const [t0, t1, t2, t3, t4, t5, t6, t7] = CRC32C_TABLES as [Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array];
    let crc = this.crc;
    let i = 0;
    const n8 = b.length - (b.length % 8);
    for (; i < n8; i += 8) {
      const lo = (crc ^ (b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24))) >>> 0;
      crc = t7[lo & 0xff]! ^ t6[(lo >>> 8) & 0xff]! ^ t5[(lo >>> 16) & 0xff]! ^ t4[lo >>> 24]! ^ t3[b[i + 4]!]! ^ t2[b[i + 5]!]! ^ t1[b[i + 6]!]! ^ t0[b[i + 7]!]!;
    }
    for (; i < b.length; i++) crc = t0[(crc ^ b[i]!) & 0xff]! ^ (crc >>> 8);
    this.crc = crc >>> 0;
  }

  value(): number {
    return ~this.crc >>> 0;
  }

  digest(): string {
    const out = Buffer.alloc(4);
    out.writeUInt32BE(this.value());
    return out.toString('base64');
  }
}

export function makeDigest(algorithm: HashAlgorithm): Digest {
  if (algorithm === 'crc32c') return new Crc32c();
  const h = createHash('md5');
  return { update: (c) => h.update(c), digest: () => h.digest('hex') };
}

/** The CRC32C (Castagnoli) of `bytes`, as an unsigned 32-bit number. */
export function crc32c(bytes: Uint8Array): number {
  const c = new Crc32c();
  c.update(bytes);
  return c.value();
}
