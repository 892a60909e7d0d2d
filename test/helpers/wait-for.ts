/** Polling for tests: retry a probe until it holds, and say what was last seen when it never does. */
import { inspect } from 'node:util';

export interface WaitForOptions<T> {
  /** Give up after this long (default 30 s). */
  readonly timeoutMs?: number;
  /** Pause between probes (default 200 ms). */
  readonly intervalMs?: number;
  /** What is awaited, for the timeout message ("deployment web to be Available"). */
  readonly description?: string;
  /** When the probe's value counts as done (default: any truthy value). */
  readonly until?: (value: T) => boolean;
}

type Falsy = false | 0 | '' | null | undefined;

/**
 * Calls `probe` until its value satisfies `until` (truthy by default) and returns that value.
 * A probe that throws counts as not done: the error is kept and the probe retried. On timeout
 * the error names the description and the last value or error observed.
 */
export function waitFor<T, S extends T>(probe: () => T | Promise<T>, opts: WaitForOptions<T> & { readonly until: (value: T) => value is S }): Promise<S>;
export function waitFor<T>(probe: () => T | Promise<T>, opts: WaitForOptions<T> & { readonly until: (value: T) => boolean }): Promise<T>;
export function waitFor<T>(probe: () => T | Promise<T>, opts?: WaitForOptions<T>): Promise<Exclude<T, Falsy>>;
export async function waitFor<T>(probe: () => T | Promise<T>, opts: WaitForOptions<T> = {}): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const intervalMs = opts.intervalMs ?? 200;
  const until = opts.until ?? ((v: T) => Boolean(v));
  const deadline = Date.now() + timeoutMs;
  let last: { value: T } | { error: unknown } | undefined;
  for (;;) {
    try {
      const value = await probe();
      if (until(value)) return value;
      last = { value };
    } catch (error) {
      last = { error };
    }
    if (Date.now() >= deadline) break;
    await new Promise((r) => setTimeout(r, Math.min(intervalMs, Math.max(0, deadline - Date.now()))));
  }
  const seen =
    last === undefined
      ? 'nothing'
      : 'error' in last
        ? `error ${last.error instanceof Error ? last.error.message : inspect(last.error)}`
        : inspect(last.value, { depth: 6, breakLength: 120 });
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${opts.description ?? 'a condition'}; last observed: ${seen}`);
}
