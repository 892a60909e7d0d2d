/**
 * One warning when a limit acts, without letting a flood of them flood the log: the first
 * action of a limit is logged at once with its details; further ones within the next
 * interval are counted and reported as one line when it ends (a flood of 10,000 connections
 * past --max_connections costs two lines, not 10,000). Operators see that a bound acted,
 * which one (`limit`: its flag) and how often.
 */
import type { Logger } from 'pino';

const INTERVAL_MS = 10_000;

interface Pending {
  count: number;
  timer: NodeJS.Timeout;
}

export class LimitLog {
  readonly #logger: Logger;
  readonly #intervalMs: number;
  /** Limits that acted within the current interval, with how often since it was logged. */
  readonly #pending = new Map<string, Pending>();

  constructor(logger: Logger, intervalMs = INTERVAL_MS) {
    this.#logger = logger;
    this.#intervalMs = intervalMs;
  }

  /**
   * `key` tells actions apart (a limit flag, or the flag and what it did); `fields` go on the
   * line (always with `limit`); `msg` says what the client saw.
   */
  acted(key: string, fields: Readonly<Record<string, unknown>> & { readonly limit: string }, msg: string): void {
    const pending = this.#pending.get(key);
    if (pending !== undefined) {
      pending.count++;
      return;
    }
    this.#logger.warn(fields, msg);
    const entry: Pending = {
      count: 0,
      timer: setTimeout(() => {
        this.#pending.delete(key);
        if (entry.count > 0) this.#logger.warn({ ...fields, moreTimes: entry.count, withinSeconds: this.#intervalMs / 1000 }, `${msg} (${entry.count} more times)`);
      }, this.#intervalMs),
    };
    // A pending summary never keeps a stopped server's process alive.
    entry.timer.unref();
    this.#pending.set(key, entry);
  }
}
