/**
 * S3 multipart ETags: an object uploaded in N parts has the ETag `<hex MD5 of the N parts'
 * binary MD5s>-<N>`, not an MD5 of its bytes. Given the part sizes (HeadObject with
 * PartNumber, from the provider), the bytes on disk are checked by digesting each part's
 * range in the hash workers (hash-pool.ts, off the event loop, the parts spread over the
 * workers) and comparing the digest of their digests with the ETag.
 */
import { createHash } from 'node:crypto';
import type { HashPool } from './hash-pool.js';
import { StorageError } from './errors.js';

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
    throw new StorageError('checksum_mismatch', `${key}: the store's ${sizes.length} part sizes (${sum} bytes) do not make up its ${etag.parts}-part ETag over ${size} bytes`);
  }
}

/**
 * Digests each part of `file` (already fully written) and compares the multipart ETag.
 * Throws StorageError('checksum_mismatch') on a difference.
 */
export async function verifyMultipart(hashes: HashPool, key: string, file: string, size: number, etag: MultipartEtag, sizes: readonly number[]): Promise<void> {
  checkPartSizes(key, size, etag, sizes);
  let at = 0;
  const sessions = sizes.map((n) => {
    const s = hashes.session(file, at, at + n, 'md5');
    at += n;
    s.advance(at);
    return s;
  });
  let digests: string[];
  try {
    digests = await Promise.all(sessions.map((s) => s.digest()));
  } catch (err) {
    throw new StorageError('checksum_mismatch', `${key}: could not read it back to check it (${err instanceof Error ? err.message : String(err)})`);
  }
  const got = multipartMd5(digests);
  if (got !== etag.md5) throw new StorageError('checksum_mismatch', `${key}: multipart ETag ${got}-${etag.parts} does not match the store's ${etag.md5}-${etag.parts}`);
}

/** MD5 of the parts' binary digests: at most 160 KB (10,000 × 16 bytes), so hashed inline. */
export function multipartMd5(hexDigests: readonly string[]): string {
  const h = createHash('md5');
  for (const d of hexDigests) h.update(Buffer.from(d, 'hex'));
  return h.digest('hex');
}
