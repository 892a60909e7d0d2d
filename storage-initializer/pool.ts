/**
 * A promise pool whose queue may grow while it runs and whose limit may change: at most
 * `limit` tasks run at once, a task may `push` more (the adaptive part planner adds an
 * object's remaining ranges once its first part has been timed), and `setLimit` raises or
 * lowers the limit (concurrency.ts; a lower limit lets running tasks finish). `run` settles
 * when the queue is empty and nothing runs. The first failure aborts `controller` (in-flight
 * requests see the signal) and is rethrown once every running task has stopped, so nothing
 * still writes when the caller cleans up. `onSettled` sees every finished task.
 */
export type Task = () => Promise<void>;

export class TaskPool {
  private readonly queue: Task[] = [];
  private active = 0;
  private first: { err: unknown } | undefined;
  private done: { resolve: () => void; reject: (err: unknown) => void } | undefined;

  constructor(
    private limit: number,
    private readonly controller: AbortController,
    private readonly onSettled: () => void = () => undefined,
  ) {}

  /** Tasks running or waiting: more than this many requests could not be used. */
  get demand(): number {
    return this.active + this.queue.length;
  }

  get currentLimit(): number {
    return this.limit;
  }

  setLimit(n: number): void {
    this.limit = Math.max(1, Math.floor(n));
    this.pump();
  }

  push(...tasks: Task[]): void {
    this.queue.push(...tasks);
    this.pump();
  }

  /** Queues `tasks` ahead of everything waiting (the rest of an object already started). */
  pushFront(...tasks: Task[]): void {
    this.queue.unshift(...tasks);
    this.pump();
  }

  run(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.done = { resolve, reject };
      this.pump();
    });
  }

  private pump(): void {
    if (!this.done) return;
    while (!this.first && this.active < this.limit && this.queue.length > 0) {
      const task = this.queue.shift()!;
      this.active++;
      task()
        .then(
          () => undefined,
          (err: unknown) => {
            this.first ??= { err };
            this.controller.abort(err);
          },
        )
        .finally(() => {
          this.active--;
          this.onSettled();
          this.pump();
        });
    }
    if (this.active === 0 && (this.first || this.queue.length === 0)) {
      const d = this.done;
      this.done = undefined;
      if (this.first) d.reject(this.first.err);
      else d.resolve();
    }
  }
}
