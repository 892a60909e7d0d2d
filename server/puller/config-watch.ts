/**
 * Watches the model configuration file as a ConfigMap volume delivers it: kubelet never edits
 * `models.json` in place, it writes a new `..<timestamp>` folder and swaps the `..data`
 * symlink to it (`models.json` is a link through `..data`). So the folder is watched, not the
 * file (a watch on the file would follow the old inode), and any event in it re-reads the
 * file by name. A missing or unreadable file (between the swap's steps, or before the
 * ConfigMap exists) is not an empty set: nothing is reported and the next event reads again.
 * A slow re-read also runs on a timer, for volumes whose changes inotify does not see.
 */
import { type FSWatcher, watch } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

/** Re-read this often even without events (ms): a safety net, not the way changes arrive. */
const REREAD_MS = 30_000;

export interface ConfigWatch {
  /** Stops watching; a read in progress still delivers. */
  close(): void;
}

/** The file's text, or undefined when it cannot be read now (missing mid-swap, no ConfigMap yet). */
export async function readConfigFile(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * Calls `changed` with the file's text whenever it differs from the text last delivered
 * (`initial` at first); reads are serialised, and events during a read cause one more read.
 */
export function watchConfigFile(file: string, initial: string | undefined, changed: (text: string) => void, onError: (err: Error) => void): ConfigWatch {
  let last = initial;
  let reading = false;
  let again = false;
  let closed = false;
  const read = async (): Promise<void> => {
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    try {
      do {
        again = false;
        const text = await readConfigFile(file);
        if (!closed && text !== undefined && text !== last) {
          last = text;
          changed(text);
        }
      } while (again && !closed);
    } finally {
      reading = false;
    }
  };
  const trigger = () => void read();
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(path.dirname(file), { persistent: false }, trigger);
    watcher.on('error', onError);
  } catch (err) {
    onError(err as Error);
  }
  const timer = setInterval(trigger, REREAD_MS);
  timer.unref();
  // A change between the first read and the watch's start is seen now.
  trigger();
  return {
    close() {
      closed = true;
      clearInterval(timer);
      watcher?.close();
    },
  };
}
