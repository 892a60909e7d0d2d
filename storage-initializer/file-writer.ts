/**
 * A writable stream that puts a body at its offset in a pre-sized file and reports each
 * write once it has completed (`onWritten(position, length)`), which is what lets checksums
 * (hash-pool.ts) follow the download: createWriteStream says nothing until its end.
 */
import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import { Writable } from 'node:stream';

export class FileWriter extends Writable {
  private fh: FileHandle | undefined;
  private pos: number;

  constructor(
    private readonly file: string,
    start: number,
    private readonly flags: 'r+' | 'w',
    private readonly onWritten: (position: number, length: number) => void,
  ) {
    // 1 MiB of buffered chunks before backpressure: fewer, larger writev calls.
    super({ highWaterMark: 1 << 20 });
    this.pos = start;
  }

  override _construct(cb: (err?: Error | null) => void): void {
    open(this.file, this.flags).then((fh) => {
      this.fh = fh;
      cb();
    }, cb);
  }

  override _writev(chunks: Array<{ chunk: Buffer }>, cb: (err?: Error | null) => void): void {
    const bufs = chunks.map((c) => c.chunk);
    const at = this.pos;
    this.write1(bufs, at).then((n) => {
      this.pos += n;
      this.onWritten(at, n);
      cb();
    }, cb);
  }

  /** writev may write less than asked (a full disk, a signal): the rest is written again. */
  private async write1(bufs: Buffer[], at: number): Promise<number> {
    const total = bufs.reduce((n, b) => n + b.length, 0);
    let done = 0;
    while (done < total) {
      let skip = done;
      const rest: Buffer[] = [];
      for (const b of bufs) {
        if (skip >= b.length) {
          skip -= b.length;
          continue;
        }
        rest.push(skip ? b.subarray(skip) : b);
        skip = 0;
      }
      const { bytesWritten } = await this.fh!.writev(rest, at + done);
      if (bytesWritten === 0) throw new Error(`writing ${this.file} made no progress`);
      done += bytesWritten;
    }
    return total;
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    const fh = this.fh;
    this.fh = undefined;
    if (!fh) return cb(err);
    fh.close().then(
      () => cb(err),
      (e: Error) => cb(err ?? e),
    );
  }
}
