/**
 * The hash worker thread (started by hash-pool.ts). It digests file ranges that the download
 * has already written, reading them back (from the page cache, in practice), so the
 * download's event loop never spends CPU on checksums.
 *
 * Messages in: `open` (a session over [start, end) of a file), `advance` (bytes before
 * `upTo` are on disk), `cancel`. Out: `{ id, digest }` once a session has read to its end,
 * or `{ id, error }`. Sessions are independent; the reads are synchronous because they
 * block only this thread, and only for data already written.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { makeDigest, type Digest, type HashAlgorithm } from './checksum.js';

export type HashRequest =
  { op: 'open'; id: number; file: string; start: number; end: number; algorithm: HashAlgorithm } | { op: 'advance'; id: number; upTo: number } | { op: 'cancel'; id: number };

export type HashReply = { id: number; digest: string } | { id: number; error: string };

interface Session {
  fd: number | undefined;
  file: string;
  pos: number;
  end: number;
  digest: Digest;
}

const CHUNK = 1 << 20;
const sessions = new Map<number, Session>();
const buf = Buffer.allocUnsafe(CHUNK);
const port = parentPort!;

function finish(id: number, s: Session, reply: HashReply): void {
  if (s.fd !== undefined) closeSync(s.fd);
  sessions.delete(id);
  port.postMessage(reply);
}

function advance(id: number, s: Session, upTo: number): void {
  const stop = Math.min(upTo, s.end);
  s.fd ??= openSync(s.file, 'r');
  while (s.pos < stop) {
    const n = readSync(s.fd, buf, 0, Math.min(CHUNK, stop - s.pos), s.pos);
    if (n === 0) throw new Error(`${s.file} ends at ${s.pos}, before ${stop}`);
    s.digest.update(buf.subarray(0, n));
    s.pos += n;
  }
  if (s.pos >= s.end) finish(id, s, { id, digest: s.digest.digest() });
}

port.on('message', (m: HashRequest) => {
  if (m.op === 'open') {
    sessions.set(m.id, { fd: undefined, file: m.file, pos: m.start, end: m.end, digest: makeDigest(m.algorithm) });
    if (m.start >= m.end) advance(m.id, sessions.get(m.id)!, m.end);
    return;
  }
  const s = sessions.get(m.id);
  if (!s) return;
  if (m.op === 'cancel') {
    if (s.fd !== undefined) closeSync(s.fd);
    sessions.delete(m.id);
    return;
  }
  try {
    advance(m.id, s, m.upTo);
  } catch (err) {
    finish(m.id, s, { id: m.id, error: err instanceof Error ? err.message : String(err) });
  }
});
