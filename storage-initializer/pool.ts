/**
 * A small promise pool whose queue may grow while it runs: at most `n` tasks run at once,
 * and a task may `push` more (the adaptive part planner adds an object's remaining ranges
 * once its first part has been timed). Idle workers wait while any task is still running,
 * since it may add work. The first failure aborts `controller` (in-flight requests see the
 * signal) and is rethrown once every worker has stopped, so nothing still writes when the
 * caller cleans up.
 */
export type Task = () => Promise<void>;

export class TaskPool {
  private readonly queue: Task[] = [];
  private active = 0;
  private first: { err: unknown } | undefined;
  private waiters: Array<() => void> = [];

  constructor(private readonly n: number, private readonly controller: AbortController) {}

  push(...tasks: Task[]): void {
    this.queue.push(...tasks);
    this.wake();
  }

  /** Queues `tasks` ahead of everything waiting (the rest of an object already started). */
  pushFront(...tasks: Task[]): void {
    this.queue.unshift(...tasks);
    this.wake();
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  async run(): Promise<void> {
    const worker = async (): Promise<void> => {
      for (;;) {
        if (this.first) return;
        const t = this.queue.shift();
        if (!t) {
          if (this.active === 0) return;
          await new Promise<void>((r) => this.waiters.push(r));
          continue;
        }
        this.active++;
        try {
          await t();
        } catch (err) {
          this.first ??= { err };
          this.controller.abort(err);
        } finally {
          this.active--;
          this.wake();
        }
      }
    };
    await Promise.all(Array.from({ length: this.n }, worker));
    if (this.first) throw this.first.err;
  }
}
