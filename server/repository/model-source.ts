/**
 * Where model folders come from. `single` is KServe's runtime contract (one model named on
 * the command line, files in --model_dir); `repository` is Triton's layout (one folder per
 * model under a root). Each model folder is either the files themselves or numeric version
 * subfolders (`<model>/<version>/...`).
 */
import { readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

export interface ModelSource {
  /** Names of the models this source offers, in a stable order. */
  list(): Promise<string[]>;
  /** Folder of the named model, or undefined when the source has no such model. */
  locate(name: string): Promise<string | undefined>;
  /** The folder a storage-initializer fills (--model_dir, --model_repository), when there is one. */
  readonly root?: string;
}

async function isDir(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isDirectory();
  } catch {
    return false;
  }
}

export function singleModelSource(name: string, dir: string): ModelSource {
  return {
    root: dir,
    list: async () => [name],
    locate: async (n) => (n === name ? dir : undefined),
  };
}

/** What a model name may be: it names a folder, so never `..`, a slash or a hidden name. */
export const MODEL_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/**
 * True when `dir`, symlinks resolved, is a folder inside the repository root (also
 * resolved): a model folder that is a link to elsewhere (`m -> /etc`) is not served.
 */
async function insideRoot(root: string, dir: string): Promise<boolean> {
  try {
    const [r, d] = await Promise.all([realpath(root), realpath(dir)]);
    const rel = path.relative(r, d);
    return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel) && (await isDir(d));
  } catch {
    return false;
  }
}

export function repositorySource(root: string): ModelSource {
  return {
    root,
    async list() {
      const entries = await readdir(root, { withFileTypes: true });
      const names = entries.filter((e) => (e.isDirectory() || e.isSymbolicLink()) && MODEL_NAME.test(e.name)).map((e) => e.name);
      const inside = await Promise.all(names.map((n) => insideRoot(root, path.join(root, n))));
      return names.filter((_, i) => inside[i]).sort();
    },
    async locate(name) {
      // Names come from requests: never let one escape the repository root, by its
      // characters ('..', '/', '\\', NUL, encoded forms arrive decoded) or by a symlink.
      if (!MODEL_NAME.test(name)) return undefined;
      const dir = path.join(root, name);
      return (await insideRoot(root, dir)) ? dir : undefined;
    },
  };
}

export interface VersionFolder {
  /** Numeric label, or undefined when the model folder holds the files directly. */
  readonly version: string | undefined;
  readonly dir: string;
}

/** Version folders of a model, ascending; the last one is the default version. */
export async function discoverVersions(modelDir: string): Promise<VersionFolder[]> {
  const entries = await readdir(modelDir, { withFileTypes: true });
  const versions = entries
    .filter((e) => (e.isDirectory() || e.isSymbolicLink()) && /^\d+$/.test(e.name))
    .map((e) => e.name)
    .sort((a, b) => Number(a) - Number(b));
  if (versions.length === 0) return [{ version: undefined, dir: modelDir }];
  return versions.map((v) => ({ version: v, dir: path.join(modelDir, v) }));
}
