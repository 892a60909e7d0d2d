/**
 * The dynamic batcher's scheduler: groups queued items by key into batches of at most
 * `maxBatchSize` rows and decides when each batch is dispatched. Knows nothing about tensors.
 *
 * Policy (Triton's dynamic batcher, made adaptive so that batching never costs a request
 * that finds the model idle):
 * - An item joins the open batch of its key if the rows still fit, else that batch is closed
 *   and a new one opened. Items of different keys never share a batch.
 * - Fewer batches in flight than the model has instances (an instance is idle): the oldest
 *   batch is dispatched at once, whatever its size. A lone request never waits, and batches
 *   only form from what queued while every instance was busy.
 * - Every instance busy: a batch is dispatched once it is full (the largest preferred batch
 *   size, or `maxBatchSize` when none is given) while fewer than `maxInFlight` batches are
 *   in flight: it cannot grow, so handing it over early only saves the backend a round
 *   trip. A batch that is not full keeps filling until the model is idle, and goes then.
 * - Among batches allowed to go, the oldest goes first.
 *
 * There is no timer: a queued batch never waits longer than the batches ahead of it take,
 * so a queue delay would only shrink batches that are about to run anyway (measured: on
 * a compute-bound model a 2 ms delay halved the mean batch size).
 */
export interface BatchQueueOptions {
  readonly maxBatchSize: number;
  readonly preferredBatchSizes: readonly number[];
  /** Batches handed to `run` and not yet settled, at most (≥ `instances`). */
  readonly maxInFlight: number;
  /** Batches the model runs side by side (config.pbtxt instance_group); default 1. */
  readonly instances?: number | undefined;
}

interface Batch<T> {
  readonly key: string;
  readonly items: T[];
  rows: number;
  /** Full: may go while other batches are in flight. */
  full: boolean;
}

export class BatchQueue<T> {
  readonly #opts: BatchQueueOptions;
  readonly #target: number;
  readonly #run: (items: T[]) => Promise<void>;
  readonly #open = new Map<string, Batch<T>>();
  /** Batches not dispatched yet, oldest first. */
  readonly #queue: Batch<T>[] = [];
  #inFlight = 0;

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
      this.#close(batch);
      batch = undefined;
    }
    if (batch === undefined) {
      const created: Batch<T> = { key, items: [], rows: 0, full: false };
      this.#open.set(key, created);
      this.#queue.push(created);
      batch = created;
    }
    batch.items.push(item);
    batch.rows += rows;
    if (batch.rows >= this.#target) this.#close(batch);
    this.#pump();
  }

  /**
   * Counts work that bypasses the queue (a request too large to batch) as in flight until
   * it settles, so that batches queue behind it as they would behind a batch.
   */
  occupy<R>(work: () => Promise<R>): Promise<R> {
    this.#inFlight++;
    const settled = Promise.resolve().then(work);
    void settled.then(
      () => this.#release(),
      () => this.#release(),
    );
    return settled;
  }

  /** Removes every queued item that has not been dispatched (for unload). */
  drain(): T[] {
    const items = this.#queue.flatMap((b) => b.items);
    this.#queue.length = 0;
    this.#open.clear();
    return items;
  }

  /** Full: nothing more joins it, and it may go as soon as a slot is free. */
  #close(batch: Batch<T>): void {
    if (this.#open.get(batch.key) === batch) this.#open.delete(batch.key);
    batch.full = true;
  }

  #pump(): void {
    while (this.#inFlight < this.#opts.maxInFlight) {
      const idle = this.#inFlight < (this.#opts.instances ?? 1);
      const i = idle ? (this.#queue.length > 0 ? 0 : -1) : this.#queue.findIndex((b) => b.full);
      if (i < 0) break;
      const [batch] = this.#queue.splice(i, 1) as [Batch<T>];
      // A dispatched batch may still be open (not full): nothing joins it once it goes.
      if (this.#open.get(batch.key) === batch) this.#open.delete(batch.key);
      this.#inFlight++;
      void this.#run(batch.items).finally(() => this.#release());
    }
  }

  #release(): void {
    this.#inFlight--;
    this.#pump();
  }
}
