/**
 * What a model folder holds, as repository polling compares it: the config.pbtxt text and,
 * per version folder, the names, sizes and modification times of its files (as Triton's
 * poll compares timestamps). Two equal fingerprints mean nothing to reload; a version whose
 * stamp is unchanged keeps its loaded instance.
 */
import { readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { discoverVersions } from './model-source.js';

export interface ModelFingerprint {
  /** The whole folder in one comparable string. */
  readonly key: string;
  /** config.pbtxt as read; undefined when the folder has none. */
  readonly configText: string | undefined;
  /** Version folder label ('' for an unversioned model) → its files' stamp. */
  readonly stamps: ReadonlyMap<string, string>;
}

/** Deep enough for a SavedModel's `variables/`; a deeper tree is not a model folder. */
const MAX_DEPTH = 8;

async function stampOf(dir: string, depth = 0): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(dir, { withFileTypes: true });
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (depth < MAX_DEPTH) out.push(`${e.name}/`, ...(await stampOf(p, depth + 1)).map((s) => `${e.name}/${s}`));
      continue;
    }
    // Links are followed for the stamp, not walked: a linked folder counts by its own time.
    const s = await stat(p).catch(() => undefined);
    out.push(s === undefined ? `${e.name}:gone` : `${e.name}:${s.size}:${s.mtimeMs}`);
  }
  return out;
}

async function configTextOf(dir: string): Promise<string | undefined> {
  try {
    return await readFile(path.join(dir, 'config.pbtxt'), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** Reads a model folder's fingerprint; throws when the folder cannot be read. */
export async function modelFingerprint(dir: string): Promise<ModelFingerprint> {
  const configText = await configTextOf(dir);
  const stamps = new Map<string, string>();
  for (const v of await discoverVersions(dir)) stamps.set(v.version ?? '', (await stampOf(v.dir)).join('\n'));
  const key = JSON.stringify([configText ?? null, [...stamps]]);
  return { key, configText, stamps };
}
