/**
 * A keyed work queue with client-go's semantics: a key is queued at most once; a key is
 * never processed by two workers at once (an add while it is being processed queues it
 * again after); failures are retried with per-key exponential backoff, and success
 * forgets the key's failure count.
 *
 * Threading: single event loop; `concurrency` handlers may be in flight, on different keys.
 */
export interface WorkQueueOptions {
  readonly concurrency: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly onError?: (key: string, err: unknown, retryInMs: number) => void;
}

export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly queued = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly dirtyWhileProcessing = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private running = 0;
  private stopped = true;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly handler: (key: string) => Promise<void>,
    private readonly opts: WorkQueueOptions,
  ) {}

  start(): void {
    this.stopped = false;
    this.pump();
  }

  add(key: string): void {
    if (this.processing.has(key)) {
      this.dirtyWhileProcessing.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.queue.push(key);
    this.pump();
  }

  /** Adds after a delay (a pending delayed add for the key is replaced). */
  addAfter(key: string, delayMs: number): void {
    const existing = this.timers.get(key);
    if (existing) clearTimeout(existing);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, delayMs);
    timer.unref();
    this.timers.set(key, timer);
  }

  get depth(): number {
    return this.queue.length;
  }

  /** Resolves when nothing is queued, delayed or in flight (tests, shutdown). */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops taking new work and waits for in-flight handlers. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.queue.length = 0;
    this.queued.clear();
    this.dirtyWhileProcessing.clear();
    if (this.running > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  private isIdle(): boolean {
    return this.queue.length === 0 && this.running === 0 && this.timers.size === 0;
  }

  private pump(): void {
    while (!this.stopped && this.running < this.opts.concurrency && this.queue.length > 0) {
      const key = this.queue.shift()!;
      this.queued.delete(key);
      this.processing.add(key);
      this.running++;
      void this.process(key);
    }
    if (this.isIdle() || (this.stopped && this.running === 0)) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  private async process(key: string): Promise<void> {
    try {
      await this.handler(key);
      this.failures.delete(key);
    } catch (err) {
      const n = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, n);
      const delay = Math.min(this.opts.baseDelayMs * 2 ** (n - 1), this.opts.maxDelayMs);
      this.opts.onError?.(key, err, delay);
      if (!this.stopped) this.addAfter(key, delay);
    } finally {
      this.processing.delete(key);
      this.running--;
      if (this.dirtyWhileProcessing.delete(key) && !this.stopped) this.add(key);
      this.pump();
    }
  }
}
