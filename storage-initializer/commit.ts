/**
 * Moving a complete, verified temporary folder into the destination so that a killed run
 * never leaves a partial model behind unnoticed.
 *
 * The destination is usually a volume mount (/mnt/models) that cannot itself be replaced by
 * a rename, so the entries are renamed one by one. Before the first rename a commit marker
 * (`.storage-initializer-commit`, written atomically) names the temporary folder; it is
 * removed after the last. A run that finds the marker finishes the interrupted move first
 * (roll forward: the temporary folder was complete when the marker was written), so after
 * any run, killed or not, the destination holds either the previous content or the whole
 * new model. Readers (the server) must treat a destination holding the marker as incomplete;
 * in Kubernetes the init container is rerun until it exits 0, so the server never starts
 * on one.
 */
import { readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

export const TMP_PREFIX = '.storage-initializer-';
export const COMMIT_MARKER = `${TMP_PREFIX}commit`;

async function moveEntries(tmp: string, dest: string): Promise<void> {
  for (const name of await readdir(tmp)) {
    const target = path.join(dest, name);
    await rm(target, { recursive: true, force: true });
    await rename(path.join(tmp, name), target);
  }
}

/** Renames every entry of the complete folder `tmp` (inside `dest`) into `dest`. */
export async function commit(tmp: string, dest: string): Promise<void> {
  const marker = path.join(dest, COMMIT_MARKER);
  await writeFile(`${marker}.new`, path.basename(tmp));
  await rename(`${marker}.new`, marker);
  await moveEntries(tmp, dest);
  await rm(marker, { force: true });
}

/**
 * Finishes a move a killed run left half done, then removes every leftover temporary
 * folder. Called before each download into `dest`.
 */
export async function recover(dest: string): Promise<void> {
  const marker = path.join(dest, COMMIT_MARKER);
  let tmpName: string | undefined;
  try {
    tmpName = (await readFile(marker, 'utf8')).trim();
  } catch {
    tmpName = undefined;
  }
  // Only a folder of ours, directly inside dest: the marker's content is not trusted further.
  if (tmpName && tmpName.startsWith(TMP_PREFIX) && !tmpName.includes('/') && tmpName !== COMMIT_MARKER) {
    try {
      await moveEntries(path.join(dest, tmpName), dest);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  await rm(marker, { force: true });
  for (const name of await readdir(dest)) {
    if (name.startsWith(TMP_PREFIX)) await rm(path.join(dest, name), { recursive: true, force: true });
  }
}
