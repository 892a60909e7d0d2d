/**
 * file:// URIs and plain local paths. A file is copied alone; a folder is copied with
 * everything under it. (The anchor symlinks top-level entries; copying keeps the
 * destination self-contained and lets the same verify-then-rename path apply.)
 */
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { errors } from '../errors.js';
import type { ByteRange, Listing, OpenedObject, RemoteObject, StorageProvider } from '../provider.js';

export function localPath(uri: string): string {
  if (!uri.toLowerCase().startsWith('file://')) return path.resolve(uri);
  try {
    return fileURLToPath(uri);
  } catch {
    return path.resolve(uri.slice('file://'.length));
  }
}

async function walk(dir: string, rel: string, out: RemoteObject[]): Promise<void> {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const abs = path.join(dir, e.name);
    const key = rel ? `${rel}/${e.name}` : e.name;
    const s = await stat(abs); // follows symlinks, as copying does
    if (s.isDirectory()) await walk(abs, key, out);
    else if (s.isFile()) out.push({ key, size: s.size, ref: abs });
  }
}

export class FileProvider implements StorageProvider {
  readonly scheme = 'file';
  readonly ranged = true;

  async list(uri: string): Promise<Listing> {
    const p = localPath(uri);
    let s;
    try {
      s = await stat(p);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'EACCES' || code === 'EPERM') throw errors.accessDenied(`cannot read ${p}`);
      throw errors.notFound(`${p} does not exist`);
    }
    if (s.isFile()) return { single: true, objects: [{ key: path.basename(p), size: s.size, ref: p }] };
    const objects: RemoteObject[] = [];
    await walk(p, '', objects);
    if (objects.length === 0) throw errors.notFound(`no files under ${p}`);
    return { single: false, objects };
  }

  async read(object: RemoteObject, range: ByteRange | undefined): Promise<OpenedObject> {
    return { body: createReadStream(object.ref as string, range ? { start: range.start, end: range.end } : {}) };
  }
}
