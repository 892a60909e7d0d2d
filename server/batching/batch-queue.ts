/**
 * The dynamic batcher's scheduler: groups queued items by key into batches of at most
 * `maxBatchSize` rows and decides when each batch runs. Knows nothing about tensors.
 *
 * Policy (after Triton's dynamic batcher, one model instance):
 * - An item joins the open batch of its key if the rows still fit, else that batch is closed
 *   and a new one opened. Items of different keys never share a batch.
 * - A batch is ready when its rows reach the target (the largest preferred batch size, or
 *   `maxBatchSize` when none is given) or when `maxQueueDelayMs` has passed since it opened.
 * - At most one batch runs at a time; ready batches run oldest first. While one runs, open
 *   batches keep filling, which is what forms batches under load even with a zero delay.
 */
export interface BatchQueueOptions {
  readonly maxBatchSize: number;
  readonly preferredBatchSizes: readonly number[];
  readonly maxQueueDelayMs: number;
}

interface Batch<T> {
  readonly items: T[];
  rows: number;
  ready: boolean;
  timer: NodeJS.Timeout | undefined;
}

export class BatchQueue<T> {
  readonly #opts: BatchQueueOptions;
  readonly #target: number;
  readonly #run: (items: T[]) => Promise<void>;
  readonly #open = new Map<string, Batch<T>>();
  readonly #queue: Batch<T>[] = [];
  #running = false;

  /** `run` executes one batch; it must not reject (it settles its items itself). */
  constructor(opts: BatchQueueOptions, run: (items: T[]) => Promise<void>) {
    this.#opts = opts;
    const preferred = opts.preferredBatchSizes.filter((n) => n <= opts.maxBatchSize);
    this.#target = preferred.length > 0 ? Math.max(...preferred) : opts.maxBatchSize;
    this.#run = run;
  }

  push(key: string, rows: number, item: T): void {
    let batch = this.#open.get(key);
    if (batch !== undefined && batch.rows + rows > this.#opts.maxBatchSize) {
      this.#close(key, batch);
      batch = undefined;
    }
    if (batch === undefined) {
      const created: Batch<T> = { items: [], rows: 0, ready: this.#opts.maxQueueDelayMs <= 0, timer: undefined };
      if (!created.ready) {
        created.timer = setTimeout(() => {
          // Ready, but it keeps filling until it starts.
          created.timer = undefined;
          created.ready = true;
          this.#pump();
        }, this.#opts.maxQueueDelayMs);
      }
      this.#open.set(key, created);
      this.#queue.push(created);
      batch = created;
    }
    batch.items.push(item);
    batch.rows += rows;
    if (batch.rows >= this.#target) this.#close(key, batch);
    this.#pump();
  }

  /** Removes every queued item that has not started (for unload). */
  drain(): T[] {
    const items = this.#queue.flatMap((b) => {
      if (b.timer !== undefined) clearTimeout(b.timer);
      return b.items;
    });
    this.#queue.length = 0;
    this.#open.clear();
    return items;
  }

  #close(key: string, batch: Batch<T>): void {
    if (this.#open.get(key) === batch) this.#open.delete(key);
    if (batch.timer !== undefined) clearTimeout(batch.timer);
    batch.timer = undefined;
    batch.ready = true;
  }

  #pump(): void {
    if (this.#running) return;
    const i = this.#queue.findIndex((b) => b.ready);
    if (i < 0) return;
    const [batch] = this.#queue.splice(i, 1) as [Batch<T>];
    // A ready batch may still be open (delay expired, or zero): nothing joins once it runs.
    for (const [key, b] of this.#open) if (b === batch) this.#open.delete(key);
    this.#running = true;
    void this.#run(batch.items).finally(() => {
      this.#running = false;
      this.#pump();
    });
  }
}
