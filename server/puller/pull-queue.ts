/**
 * The puller's work queue: model names whose wanted state may differ from what is in place,
 * worked one at a time in arrival order. A name already waiting is not queued again: the
 * worker reads the latest wanted state when it gets to it, so a burst of changes to one model
 * costs one pull (the queue is bounded by the number of distinct models named).
 */
export class PullQueue {
  readonly #waiting = new Set<string>();
  #running: Promise<void> | undefined;
  #closed = false;

  constructor(private readonly work: (name: string) => Promise<void>) {}

  /** Queues `name` unless it is already waiting; starts the worker when idle. */
  push(name: string): void {
    if (this.#closed) return;
    this.#waiting.add(name);
    this.#running ??= this.#drain().finally(() => (this.#running = undefined));
  }

  get size(): number {
    return this.#waiting.size;
  }

  /** Resolves when nothing is waiting or running (including work queued meanwhile). */
  async idle(): Promise<void> {
    while (this.#running !== undefined) await this.#running;
  }

  /** Stops taking work; resolves when the running item has finished. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#waiting.clear();
    await this.idle();
  }

  async #drain(): Promise<void> {
    for (;;) {
      const next = this.#waiting.values().next();
      if (next.done === true) return;
      this.#waiting.delete(next.value);
      // `work` records its own failures; one model's never stops the others'.
      await this.work(next.value).catch(() => undefined);
    }
  }
}
