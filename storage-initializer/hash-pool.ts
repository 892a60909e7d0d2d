/**
 * Checksums off the event loop: a few worker threads (hash-worker.ts) digest file ranges as
 * the download writes them. A session covers one range of one file (a whole object, for the
 * stores' whole-object MD5 and CRC32C); the engine calls `advance(upTo)` as the contiguous
 * prefix of that range reaches the disk, so the digest keeps pace with the download and is
 * ready moments after the last write instead of re-reading the whole file at the end.
 *
 * Contract: `advance` is monotonic and only names bytes already written (their write
 * completed); `digest()` resolves once the session has been advanced to its end, and
 * rejects if the file cannot be read. `cancel` drops a session whose digest is not needed.
 * Sessions go to the worker with the fewest bytes still owed, so large objects spread.
 * The workers keep the process alive until `close()`: the owner closes the pool when done.
 */
import { Worker } from 'node:worker_threads';
import type { HashAlgorithm } from './checksum.js';
import type { HashReply, HashRequest } from './hash-worker.js';

export interface HashSession {
  advance(upTo: number): void;
  digest(): Promise<string>;
  cancel(): void;
}

/** Worker threads for `cpus` cores: one per two cores beyond the event loop's, 1 to 4. */
export function hashWorkers(cpus: number): number {
  return Math.max(1, Math.min(4, Math.floor(cpus / 2)));
}

/** Compiled builds start the `.js` beside this file; TypeScript sources (tests) go through tsx. */
function startWorker(): Worker {
  const self = import.meta.url;
  if (!self.endsWith('.ts')) return new Worker(new URL('./hash-worker.js', self));
  const entry = new URL('./hash-worker.ts', self).href;
  return new Worker(`import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`, { eval: true });
}

interface Slot {
  worker: Worker;
  /** Bytes of open sessions not yet digested (the load balancing measure). */
  owed: number;
}

interface Pending {
  slot: Slot;
  owed: number;
  resolve(d: string): void;
  reject(e: Error): void;
}

export class HashPool {
  private slots: Slot[] | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  constructor(private readonly size: number) {}

  /** Workers start on the first session, so runs without checksums start none. */
  private start(): Slot[] {
    this.slots ??= Array.from({ length: this.size }, () => {
      const slot: Slot = { worker: startWorker(), owed: 0 };
      slot.worker.on('message', (m: HashReply) => this.settle(m));
      slot.worker.on('error', (err) => this.failAll(slot, err));
      return slot;
    });
    return this.slots;
  }

  private settle(m: HashReply): void {
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    p.slot.owed -= p.owed;
    if ('digest' in m) p.resolve(m.digest);
    else p.reject(new Error(m.error));
  }

  private failAll(slot: Slot, err: Error): void {
    for (const [id, p] of this.pending) {
      if (p.slot !== slot) continue;
      this.pending.delete(id);
      p.reject(err);
    }
  }

  session(file: string, start: number, end: number, algorithm: HashAlgorithm): HashSession {
    const slot = this.start().reduce((a, b) => (b.owed < a.owed ? b : a));
    const id = this.nextId++;
    const owed = end - start;
    slot.owed += owed;
    const done = new Promise<string>((resolve, reject) => this.pending.set(id, { slot, owed, resolve, reject }));
    // A session never asked for its digest (the download failed first) must not be an
    // unhandled rejection.
    done.catch(() => undefined);
    const post = (m: HashRequest) => slot.worker.postMessage(m);
    post({ op: 'open', id, file, start, end, algorithm });
    let sent = start;
    return {
      advance: (upTo) => {
        if (upTo <= sent) return;
        sent = upTo;
        post({ op: 'advance', id, upTo });
      },
      digest: () => done,
      cancel: () => {
        const p = this.pending.get(id);
        if (!p) return;
        this.pending.delete(id);
        slot.owed -= p.owed;
        post({ op: 'cancel', id });
      },
    };
  }

  async close(): Promise<void> {
    const slots = this.slots ?? [];
    this.slots = undefined;
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }
}
