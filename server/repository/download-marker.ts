/**
 * The storage-initializer's contract with readers (docs/storage-initializer.md, its
 * commit.ts): it moves a complete download into the destination entry by entry under a
 * marker file, removed after the last entry. A folder that still holds the marker was left
 * by an interrupted move and may hold part of the previous model and part of the new one:
 * it is not served. (The name is the contract's: the server imports nothing from the
 * storage-initializer.)
 */
import path from 'node:path';
import { fileExists } from '../file-exists.js';

export const COMMIT_MARKER = '.storage-initializer-commit';

/** Throws, naming the folder and what to do, when one of `folders` holds the marker. */
export async function refuseInterruptedDownload(folders: readonly string[]): Promise<void> {
  for (const folder of new Set(folders)) {
    if (await fileExists(path.join(folder, COMMIT_MARKER))) {
      throw new Error(
        `${folder} holds ${COMMIT_MARKER}: a storage-initializer run was interrupted while moving a model into it, so it may hold part of the previous model and part of the new one; run the storage-initializer into it again (it finishes the move) before serving it`,
      );
    }
  }
}
