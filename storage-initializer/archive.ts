/**
 * Unpacking of a downloaded `.zip`, `.tar`, `.tar.gz`/`.tgz`, `.tar.bz2`/`.tbz2` or
 * `.tar.xz`/`.txz` into the (temporary)
 * destination, refusing anything that could write or point outside it: absolute names,
 * `..` segments, links whose target leaves the folder (also through other links: links
 * are created last, after every file, and their real paths are checked), and device files.
 * Bombs are refused too: the expanded size is bounded absolutely and by ratio to the archive
 * (`Limits`; declared member sizes are checked before anything is written, then every byte
 * written is counted), so is the member count, and zip members whose data overlap (several
 * entries sharing one compressed stream) are refused before extraction starts.
 * Refusal is StorageError('unsafe_archive'); the caller discards the whole folder.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { link, mkdir, realpath, rm, stat, symlink } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32 } from 'node:zlib';
import { Parser, type ReadEntry } from 'tar';
import { COMPRESSION_NAME, decompressor, type TarCompression } from './decompress.js';
import yauzl from 'yauzl';
import type { Limits } from './config.js';
import { StorageError, errors } from './errors.js';

export type ArchiveKind = 'zip' | 'tar' | TarCompression;

/** Name endings → kind, longest first. */
const ENDINGS: ReadonlyArray<readonly [string, ArchiveKind]> = [
  ['.tar.gz', 'tgz'],
  ['.tar.bz2', 'tbz2'],
  ['.tar.xz', 'txz'],
  ['.tgz', 'tgz'],
  ['.tbz2', 'tbz2'],
  ['.tbz', 'tbz2'],
  ['.txz', 'txz'],
  ['.zip', 'zip'],
  ['.tar', 'tar'],
];

/** The name endings of archives that are unpacked, longest first. */
export const ARCHIVE_ENDINGS: readonly string[] = ENDINGS.map(([ending]) => ending);

export function archiveKind(name: string): ArchiveKind | undefined {
  const n = name.toLowerCase();
  return ENDINGS.find(([ending]) => n.endsWith(ending))?.[1];
}

function unsafe(msg: string): StorageError {
  return errors.unsafeArchive(msg);
}

/** The absolute path an archive member may be written to, or a refusal. */
export function memberPath(root: string, name: string): string {
  const n = name.replace(/\\/g, '/');
  if (n.startsWith('/') || /^[a-zA-Z]:/.test(n)) throw unsafe(`member '${name}' has an absolute path`);
  const parts = n.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) throw unsafe(`member '${name}' contains '..'`);
  return path.join(root, ...parts);
}

function inside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

interface PendingLink {
  kind: 'symlink' | 'hardlink';
  at: string;
  name: string;
  target: string;
}

/** Longest symlink target read from a zip member (PATH_MAX). */
const MAX_LINK_TARGET = 4096;

/**
 * The expansion budget of one archive: `limit` bytes (the smaller of the absolute bound and
 * the ratio bound) and `maxEntries` members. `declare` is called with a member's declared
 * size before it is written, `written` with every byte actually written.
 */
class Budget {
  private declared = 0;
  private bytes = 0;
  private entries = 0;
  private readonly limit: number;
  private readonly why: string;

  constructor(
    private readonly limits: Limits,
    archiveBytes: number,
  ) {
    const byRatio = Math.max(limits.ratioFloorBytes, limits.maxExtractRatio * archiveBytes);
    this.limit = Math.min(limits.maxExtractedBytes, byRatio);
    this.why =
      this.limit === limits.maxExtractedBytes
        ? `STORAGE_MAX_EXTRACTED_BYTES=${limits.maxExtractedBytes}`
        : `${limits.maxExtractRatio}× the ${archiveBytes}-byte archive (STORAGE_MAX_EXTRACT_RATIO)`;
  }

  entry(name: string): void {
    if (++this.entries > this.limits.maxArchiveEntries) {
      throw unsafe(`more than ${this.limits.maxArchiveEntries} members (STORAGE_MAX_ARCHIVE_ENTRIES) at '${name}'`);
    }
  }

  declare(size: number, name: string): void {
    if (!Number.isSafeInteger(size) || size < 0) throw unsafe(`member '${name}' declares an invalid size`);
    this.declared += size;
    if (this.declared > this.limit) throw unsafe(`expands to more than ${this.limit} bytes (${this.why}) at member '${name}'`);
  }

  written(n: number, name: string): void {
    this.bytes += n;
    if (this.bytes > this.limit) throw unsafe(`expands to more than ${this.limit} bytes (${this.why}) at member '${name}'`);
  }

  /** Counts (and bounds) the bytes passing through, for the member `name`. */
  meter(name: string): Transform {
    return new Transform({
      transform: (chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback) => {
        try {
          this.written(chunk.length, name);
          cb(null, chunk);
        } catch (e) {
          cb(e as Error);
        }
      },
    });
  }
}

class Extraction {
  readonly links: PendingLink[] = [];
  readonly dirs = new Set<string>();

  constructor(
    readonly root: string,
    readonly budget: Budget,
  ) {}

  async dir(p: string): Promise<void> {
    if (this.dirs.has(p)) return;
    await mkdir(p, { recursive: true });
    this.dirs.add(p);
  }

  /**
   * Writes member `name`. `open` is called only once the target is prepared, and its stream
   * is piped at once: a body that fails is never left without an 'error' listener.
   */
  async file(name: string, open: () => Readable | Promise<Readable>, mode: number, check?: Transform): Promise<void> {
    const at = memberPath(this.root, name);
    if (at === this.root) throw unsafe(`member '${name}' has no name`);
    await this.dir(path.dirname(at));
    await rm(at, { force: true, recursive: true });
    const body = await open();
    const out = createWriteStream(at, { mode: mode & 0o111 ? 0o755 : 0o644 });
    if (check) await pipeline(body, check, this.budget.meter(name), out);
    else await pipeline(body, this.budget.meter(name), out);
  }

  addLink(kind: PendingLink['kind'], name: string, target: string): void {
    const at = memberPath(this.root, name);
    if (kind === 'hardlink') {
      this.links.push({ kind, at, name, target: memberPath(this.root, target) });
      return;
    }
    if (path.isAbsolute(target) || target.startsWith('\\')) throw unsafe(`link '${name}' points to the absolute path '${target}'`);
    if (!inside(this.root, path.resolve(path.dirname(at), target))) throw unsafe(`link '${name}' points outside the destination ('${target}')`);
    this.links.push({ kind, at, name, target });
  }

  /** Links last: nothing is ever written through one, and each must resolve inside the root. */
  async finish(): Promise<void> {
    for (const l of this.links.filter((x) => x.kind === 'hardlink')) {
      await this.dir(path.dirname(l.at));
      await rm(l.at, { force: true });
      try {
        await link(l.target, l.at);
      } catch {
        throw unsafe(`hard link '${l.name}' points to a member that is not in the archive`);
      }
    }
    const syms = this.links.filter((x) => x.kind === 'symlink');
    for (const l of syms) {
      await this.dir(path.dirname(l.at));
      await rm(l.at, { force: true, recursive: true });
      await symlink(l.target, l.at);
    }
    const realRoot = await realpath(this.root);
    for (const l of syms) {
      let real: string;
      try {
        real = await realpath(l.at);
      } catch {
        continue; // dangling, and lexically inside (checked when added)
      }
      if (!inside(realRoot, real)) throw unsafe(`link '${l.name}' resolves outside the destination`);
    }
  }
}

async function extractTar(file: string, compression: TarCompression | undefined, ex: Extraction): Promise<void> {
  const writes: Promise<void>[] = [];
  let failure: Error | undefined;
  const fail = (err: unknown) => {
    failure ??= err instanceof Error ? err : new Error('tar extraction failed', { cause: err });
  };
  const parser = new Parser({
    strict: true,
    onReadEntry: (entry: ReadEntry) => {
      entry.on('error', fail); // before any await: an entry error is a failure, never a crash
      if (failure) {
        entry.resume();
        return;
      }
      try {
        ex.budget.entry(entry.path);
        switch (entry.type) {
          case 'File':
          case 'OldFile':
          case 'ContiguousFile':
            memberPath(ex.root, entry.path); // refuse before consuming
            ex.budget.declare(entry.size ?? 0, entry.path);
            writes.push(
              ex
                .file(entry.path, () => entry as unknown as Readable, entry.mode ?? 0o644)
                .catch((err: unknown) => {
                  fail(err);
                  entry.resume(); // never leave the parser waiting on an unread entry
                }),
            );
            return;
          case 'Directory':
            writes.push(ex.dir(memberPath(ex.root, entry.path)).catch(fail));
            break;
          case 'SymbolicLink':
            ex.addLink('symlink', entry.path, entry.linkpath ?? '');
            break;
          case 'Link':
            ex.addLink('hardlink', entry.path, entry.linkpath ?? '');
            break;
          case 'CharacterDevice':
          case 'BlockDevice':
          case 'FIFO':
            throw unsafe(`member '${entry.path}' is a device or FIFO`);
          default:
            break;
        }
      } catch (err) {
        fail(err);
      }
      entry.resume();
    },
  });
  try {
    if (compression) await pipeline(createReadStream(file), decompressor(compression), parser);
    else await pipeline(createReadStream(file), parser);
  } catch (err) {
    throw failure ?? errors.badArchive(`${compression ? `${COMPRESSION_NAME[compression]}-compressed ` : ''}tar`, (err as Error)?.message ?? String(err));
  }
  await Promise.all(writes);
  if (failure) throw failure;
}

interface ZipMember {
  entry: yauzl.Entry;
  name: string;
  mode: number;
  type: number;
}

const ZIP_LOCAL_HEADER = 30;

function zipError(e: unknown): StorageError {
  return e instanceof StorageError ? e : errors.badArchive('zip', (e as Error)?.message ?? 'unreadable');
}

function openZip(file: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true, decodeStrings: false, validateEntrySizes: true, autoClose: false }, (err, zip) => {
      if (err || !zip) reject(zipError(err ?? new Error('unreadable')));
      else resolve(zip);
    });
  });
}

/** Reads the whole central directory, checking names, types, count and declared sizes. */
function zipMembers(zip: yauzl.ZipFile, ex: Extraction): Promise<ZipMember[]> {
  return new Promise((resolve, reject) => {
    const members: ZipMember[] = [];
    zip.on('entry', (entry: yauzl.Entry) => {
      try {
        const raw = entry.fileName as unknown as Buffer;
        const name = raw.toString(entry.generalPurposeBitFlag & 0x800 ? 'utf8' : 'latin1');
        ex.budget.entry(name);
        const mode = (entry.externalFileAttributes >>> 16) & 0o177777;
        const type = mode & 0o170000;
        memberPath(ex.root, name);
        const isDir = name.endsWith('/') || type === 0o040000;
        if (!isDir && type !== 0 && type !== 0o100000 && type !== 0o120000) throw unsafe(`member '${name}' is a device or FIFO`);
        if (type === 0o120000 && entry.uncompressedSize > MAX_LINK_TARGET) throw unsafe(`link '${name}' declares a ${entry.uncompressedSize}-byte target`);
        if (!isDir) ex.budget.declare(entry.uncompressedSize, name);
        members.push({ entry, name, mode, type: isDir ? 0o040000 : type });
        zip.readEntry();
      } catch (e) {
        reject(e instanceof Error ? e : new Error('zip member check failed', { cause: e }));
      }
    });
    zip.on('end', () => resolve(members));
    zip.on('error', (e: unknown) => reject(zipError(e)));
    zip.readEntry();
  });
}

/**
 * Refuses members whose data overlap: a zip "bomb without recursion" points many central
 * entries at one (or interleaved) compressed streams, so a small file expands many times.
 * The span used is a lower bound (local header without its extra field), so a valid archive
 * is never refused.
 */
function checkOverlap(members: ZipMember[]): void {
  const spans = members
    .map((m) => ({
      name: m.name,
      start: m.entry.relativeOffsetOfLocalHeader,
      end: m.entry.relativeOffsetOfLocalHeader + ZIP_LOCAL_HEADER + m.entry.fileNameLength + m.entry.compressedSize,
    }))
    .sort((a, b) => a.start - b.start);
  for (let i = 1; i < spans.length; i++) {
    const prev = spans[i - 1]!;
    const cur = spans[i]!;
    if (cur.start < prev.end) throw unsafe(`members '${prev.name}' and '${cur.name}' share data (overlapping entries)`);
  }
}

/** yauzl checks sizes but not CRC-32: a member whose data does not match its CRC fails here. */
function crcCheck(expected: number): Transform {
  let crc = 0;
  return new Transform({
    transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback) {
      crc = crc32(chunk, crc);
      cb(null, chunk);
    },
    flush(cb: TransformCallback) {
      cb(crc >>> 0 === expected >>> 0 ? null : new Error(`CRC-32 ${(crc >>> 0).toString(16)} does not match the declared ${(expected >>> 0).toString(16)}`));
    },
  });
}

function openEntry(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<Readable> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (e, stream) => {
      if (e || !stream) reject(zipError(e ?? new Error('unreadable member')));
      else resolve(stream);
    });
  });
}

async function readLinkTarget(stream: Readable, name: string): Promise<string> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const c of stream as AsyncIterable<Buffer>) {
    n += c.length;
    if (n > MAX_LINK_TARGET) throw unsafe(`link '${name}' has a target longer than ${MAX_LINK_TARGET} bytes`);
    chunks.push(c);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function extractZip(file: string, ex: Extraction): Promise<void> {
  const zip = await openZip(file);
  // A late error (a member's data unreadable) is reported through the member's stream; this
  // listener only keeps the emitter from throwing once the members have been read.
  zip.on('error', () => undefined);
  try {
    const members = await zipMembers(zip, ex);
    checkOverlap(members);
    for (const m of members) {
      try {
        if (m.type === 0o040000) await ex.dir(memberPath(ex.root, m.name));
        else if (m.type === 0o120000) ex.addLink('symlink', m.name, await readLinkTarget(await openEntry(zip, m.entry), m.name));
        else await ex.file(m.name, () => openEntry(zip, m.entry), m.mode, crcCheck(m.entry.crc32));
      } catch (e) {
        throw e instanceof StorageError ? e : errors.badArchive('zip', `member '${m.name}': ${(e as Error).message}`);
      }
    }
  } finally {
    zip.close();
  }
}

/** Unpacks `file` into `root` (its folder) and removes the archive. */
export async function extractArchive(file: string, root: string, kind: ArchiveKind, limits: Limits): Promise<void> {
  const ex = new Extraction(root, new Budget(limits, (await stat(file)).size));
  if (kind === 'zip') await extractZip(file, ex);
  else await extractTar(file, kind === 'tar' ? undefined : kind, ex);
  await rm(file, { force: true });
  await ex.finish();
}
