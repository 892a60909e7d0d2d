/**
 * Unpacking of a downloaded `.zip`, `.tar`, `.tar.gz` or `.tgz` into the (temporary)
 * destination, refusing anything that could write or point outside it: absolute names,
 * `..` segments, links whose target leaves the folder (also through other links: links
 * are created last, after every file, and their real paths are checked), and device files.
 * Refusal is StorageError('unsafe_archive'); the caller discards the whole folder.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { link, mkdir, realpath, rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { Parser, type ReadEntry } from 'tar';
import yauzl from 'yauzl';
import { StorageError } from './errors.js';

export type ArchiveKind = 'zip' | 'tar' | 'tgz';

export function archiveKind(name: string): ArchiveKind | undefined {
  const n = name.toLowerCase();
  if (n.endsWith('.zip')) return 'zip';
  if (n.endsWith('.tar')) return 'tar';
  if (n.endsWith('.tar.gz') || n.endsWith('.tgz')) return 'tgz';
  return undefined;
}

function unsafe(msg: string): StorageError {
  return new StorageError('unsafe_archive', msg);
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

class Extraction {
  readonly links: PendingLink[] = [];
  readonly dirs = new Set<string>();

  constructor(readonly root: string) {}

  async dir(p: string): Promise<void> {
    if (this.dirs.has(p)) return;
    await mkdir(p, { recursive: true });
    this.dirs.add(p);
  }

  async file(name: string, body: AsyncIterable<Buffer>, mode: number): Promise<void> {
    const at = memberPath(this.root, name);
    if (at === this.root) throw unsafe(`member '${name}' has no name`);
    await this.dir(path.dirname(at));
    await rm(at, { force: true, recursive: true });
    await pipeline(body, createWriteStream(at, { mode: mode & 0o111 ? 0o755 : 0o644 }));
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

async function extractTar(file: string, gz: boolean, ex: Extraction): Promise<void> {
  const writes: Promise<void>[] = [];
  let failure: unknown;
  const fail = (err: unknown) => {
    failure ??= err;
  };
  const parser = new Parser({
    strict: true,
    onReadEntry: (entry: ReadEntry) => {
      if (failure) {
        entry.resume();
        return;
      }
      try {
        switch (entry.type) {
          case 'File':
          case 'OldFile':
          case 'ContiguousFile':
            memberPath(ex.root, entry.path); // refuse before consuming
            writes.push(
              ex.file(entry.path, entry as unknown as AsyncIterable<Buffer>, entry.mode ?? 0o644).catch((err: unknown) => {
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
    if (gz) await pipeline(createReadStream(file), createGunzip(), parser);
    else await pipeline(createReadStream(file), parser);
  } catch (err) {
    throw failure ?? new StorageError('invalid', `not a valid ${gz ? 'gzip-compressed ' : ''}tar archive: ${(err as Error).message}`);
  }
  await Promise.all(writes);
  if (failure) throw failure;
}

function extractZip(file: string, ex: Extraction): Promise<void> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true, decodeStrings: false, validateEntrySizes: true, autoClose: true }, (err, zip) => {
      if (err || !zip) {
        reject(new StorageError('invalid', `not a valid zip archive: ${err?.message ?? 'unreadable'}`));
        return;
      }
      let done = false;
      const fail = (e: unknown) => {
        if (done) return;
        done = true;
        zip.close();
        reject(e instanceof StorageError ? e : new StorageError('invalid', `not a valid zip archive: ${(e as Error).message}`));
      };
      zip.on('error', fail);
      zip.on('end', () => {
        if (done) return;
        done = true;
        resolve();
      });
      zip.on('entry', (entry: yauzl.Entry) => {
        const raw = entry.fileName as unknown as Buffer;
        const name = raw.toString(entry.generalPurposeBitFlag & 0x800 ? 'utf8' : 'latin1');
        const mode = (entry.externalFileAttributes >>> 16) & 0o177777;
        const type = mode & 0o170000;
        const next = () => zip.readEntry();
        try {
          if (name.endsWith('/') || type === 0o040000) {
            ex.dir(memberPath(ex.root, name)).then(next, fail);
            return;
          }
          if (type !== 0 && type !== 0o100000 && type !== 0o120000) throw unsafe(`member '${name}' is a device or FIFO`);
          memberPath(ex.root, name);
        } catch (e) {
          fail(e);
          return;
        }
        zip.openReadStream(entry, (e2, stream) => {
          if (e2 || !stream) {
            fail(e2 ?? new Error('unreadable member'));
            return;
          }
          if (type === 0o120000) {
            const chunks: Buffer[] = [];
            stream.on('data', (c: Buffer) => chunks.push(c));
            stream.on('error', fail);
            stream.on('end', () => {
              try {
                ex.addLink('symlink', name, Buffer.concat(chunks).toString('utf8'));
                next();
              } catch (e3) {
                fail(e3);
              }
            });
            return;
          }
          ex.file(name, stream, mode).then(next, fail);
        });
      });
      zip.readEntry();
    });
  });
}

/** Unpacks `file` into `root` (its folder) and removes the archive. */
export async function extractArchive(file: string, root: string, kind: ArchiveKind): Promise<void> {
  const ex = new Extraction(root);
  if (kind === 'zip') await extractZip(file, ex);
  else await extractTar(file, kind === 'tgz', ex);
  await rm(file, { force: true });
  await ex.finish();
}
