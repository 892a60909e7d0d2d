/**
 * The anchor's side of a benchmark row, made robust to the anchor failing. KServe's Python
 * server can stop answering for a while after a heavy row (on one machine it answered
 * nothing in the two conv c=1 rows after conv V2 JSON c=128: it was still working through
 * requests whose clients had gone) or die outright. Such a row is not a measurement of the
 * anchor at that load; it is retried once on a freshly started anchor, and if it still fails
 * the row is recorded as the anchor's failure with its error (suite-report.ts marks it).
 *
 * Only the anchor gets this: a kserve-ts row that fails stays a failed row.
 */
import type { ServerProcess } from './servers.js';
import type { Measure } from './suite-report.js';

/** What an anchor row ends with: a measure, or why there is none. */
export type AnchorOutcome = { readonly measure: Measure } | { readonly failure: string };

/** Below this the row is not the anchor's throughput at that load (its slowest real row does about 9). */
export const MIN_ANCHOR_RPS = 1;

/** Why `m`, measured on `server`, is not a measurement of it; undefined when it is. */
export function rowFailure(m: Measure, server: ServerProcess): string | undefined {
  const c = server.child;
  if (c.exitCode !== null || c.signalCode !== null) return `${server.name} exited (${c.exitCode ?? c.signalCode}) during the row`;
  if (!((m.rps ?? 0) > 0)) return `${server.name} answered nothing (${m.errors ?? 0} errors)`;
  // A few answers in the whole window (0.2 req/s after conv V2 JSON c=128, where the anchor
  // otherwise does 9 or more) is the backlog of an earlier row draining, not this row's load.
  if ((m.rps as number) < MIN_ANCHOR_RPS) return `${server.name} answered less than once a second (${(m.rps as number).toFixed(2)} req/s)`;
  if ((m.errors ?? 0) > 0) return `${server.name} failed ${m.errors} requests`;
  return undefined;
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/**
 * One anchor process at a time, started by `start`, replaced when a row fails. Not
 * re-entrant: rows run one after the other.
 */
export class RestartingServer {
  private server: ServerProcess | undefined;
  /** Set when a replacement process started: it gets `prepare` before its first row. */
  private unprepared = false;
  /** How many times a process was started (the first start included). */
  starts = 0;

  constructor(
    private readonly start: () => Promise<ServerProcess>,
    private readonly log: (line: string) => void = () => {},
  ) {}

  /** The running process: started now if there is none or the last one has exited. */
  async current(): Promise<ServerProcess> {
    const s = this.server;
    if (s !== undefined && s.child.exitCode === null && s.child.signalCode === null) return s;
    if (s !== undefined) {
      this.log(`${s.name} had exited (${s.child.exitCode ?? s.child.signalCode}) between rows; starting a new one`);
      await this.stop();
    }
    this.unprepared = this.starts > 0;
    this.starts++;
    this.server = await this.start();
    return this.server;
  }

  /** Stops the current process, if any: SIGTERM, then SIGKILL (a stuck anchor may not drain). */
  async stop(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    await s?.stop();
  }

  /**
   * Measures one row with `measure`. When that fails (it throws, the process dies, answers
   * nothing or fails any request), the process is replaced, becomes ready, gets `prepare`
   * (the row's check and warm-up) and the row is measured once more; a second failure is the
   * outcome, and that process is stopped too, so the next row starts on a fresh one.
   */
  async row(label: string, measure: (s: ServerProcess) => Promise<Measure>, prepare: (s: ServerProcess) => Promise<void> = async () => {}): Promise<AnchorOutcome> {
    let failure = '';
    for (const attempt of [1, 2]) {
      try {
        if (attempt === 2) await this.stop();
        const s = await this.current();
        if (this.unprepared) {
          this.unprepared = false;
          await prepare(s);
        }
        const m = await measure(s);
        const f = rowFailure(m, s);
        if (f === undefined) return { measure: m };
        failure = f;
      } catch (e) {
        failure = message(e);
      }
      this.log(`${label}: the anchor failed (attempt ${attempt}): ${failure}${attempt === 1 ? '; restarting it and retrying once' : ''}`);
    }
    await this.stop().catch(() => {});
    return { failure };
  }
}
