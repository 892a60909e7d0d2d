/**
 * S3 multipart ETags: an object uploaded in N parts has the ETag `<hex MD5 of the N parts'
 * binary MD5s>-<N>`, not an MD5 of its bytes. Given the part sizes (HeadObject with
 * PartNumber, from the provider), the bytes on disk are checked by digesting each part's
 * range in the hash workers (hash-pool.ts, off the event loop, the parts spread over the
 * workers) as the download writes them, and comparing the digest of their digests with the
 * ETag.
 */
import { createHash } from 'node:crypto';
import type { HashPool, HashSession } from './hash-pool.js';
import { errors } from './errors.js';

export interface MultipartEtag {
  /** Hex MD5 of the concatenated part MD5s (the ETag before the '-'). */
  md5: string;
  parts: number;
}

/** S3 allows at most this many parts; an ETag claiming more is not a multipart ETag. */
const MAX_PARTS = 10_000;

/** `"<32 hex>-<N>"` (quotes and case as stores send them) → its parts, else undefined. */
export function parseMultipartEtag(etag: string | undefined): MultipartEtag | undefined {
  const m = /^"?([0-9a-fA-F]{32})-([1-9][0-9]{0,4})"?$/.exec(etag ?? '');
  if (!m) return undefined;
  const parts = Number(m[2]);
  return parts <= MAX_PARTS ? { md5: m[1]!.toLowerCase(), parts } : undefined;
}

/** Part sizes the store declared must tile the object exactly, in N positive parts. */
export function checkPartSizes(key: string, size: number, etag: MultipartEtag, sizes: readonly number[]): void {
  const sum = sizes.reduce((a, b) => a + b, 0);
  if (sizes.length !== etag.parts || sizes.some((s) => !Number.isSafeInteger(s) || s <= 0) || sum !== size) {
    throw errors.checksumMismatch(key, `the store's ${sizes.length} part sizes (${sum} bytes) do not make up its ${etag.parts}-part ETag over ${size} bytes`);
  }
}

/**
 * One multipart object's check: a hash session per part (part sizes checked first), fed as
 * the file's contiguous written prefix grows, so the digests keep pace with the download.
 * `advance(upTo)` is monotonic and names only written bytes (the HashSession contract);
 * `result()` advances to the end and throws StorageError('checksum_mismatch') on a
 * difference. Only the parts the prefix reaches are told, so a 10,000-part object costs one
 * message per part, not one per part per step.
 */
export class MultipartCheck {
  private readonly sessions: HashSession[];
  private readonly ends: number[];
  /** First part not yet advanced to its end. */
  private next = 0;

  constructor(
    hashes: HashPool,
    private readonly key: string,
    file: string,
    private readonly size: number,
    private readonly etag: MultipartEtag,
    sizes: readonly number[],
  ) {
    checkPartSizes(key, size, etag, sizes);
    let at = 0;
    this.ends = [];
    this.sessions = sizes.map((n) => {
      const s = hashes.session(file, at, at + n, 'md5');
      at += n;
      this.ends.push(at);
      return s;
    });
  }

  advance(upTo: number): void {
    for (let i = this.next; i < this.sessions.length; i++) {
      const start = i === 0 ? 0 : this.ends[i - 1]!;
      if (start >= upTo) break;
      this.sessions[i]!.advance(Math.min(upTo, this.ends[i]!));
      if (this.ends[i]! <= upTo) this.next = i + 1;
    }
  }

  cancel(): void {
    for (const s of this.sessions) s.cancel();
  }

  async result(): Promise<void> {
    this.advance(this.size);
    let digests: string[];
    try {
      digests = await Promise.all(this.sessions.map((s) => s.digest()));
    } catch (err) {
      throw errors.unverifiable(this.key, err);
    }
    const got = multipartMd5(digests);
    const { md5, parts } = this.etag;
    if (got !== md5) throw errors.checksumMismatch(this.key, `multipart ETag ${got}-${parts} does not match the store's ${md5}-${parts}`);
  }
}

/** Checks `file`, already fully written, against a multipart ETag (MultipartCheck in one go). */
export async function verifyMultipart(hashes: HashPool, key: string, file: string, size: number, etag: MultipartEtag, sizes: readonly number[]): Promise<void> {
  await new MultipartCheck(hashes, key, file, size, etag, sizes).result();
}

/** MD5 of the parts' binary digests: at most 160 KB (10,000 × 16 bytes), so hashed inline. */
export function multipartMd5(hexDigests: readonly string[]): string {
  const h = createHash('md5');
  for (const d of hexDigests) h.update(Buffer.from(d, 'hex'));
  return h.digest('hex');
}
