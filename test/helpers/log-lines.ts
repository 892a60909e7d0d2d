/** A pino logger whose JSON lines a test reads and waits for (what a limit logs when it acts). */
import { Writable } from 'node:stream';
import { type Logger, pino } from 'pino';

export type LogLine = Record<string, unknown>;

export interface LogLines {
  readonly logger: Logger;
  readonly lines: readonly LogLine[];
  /** Resolves with the first line (seen so far or later) for which `match` is true. */
  waitFor(match: (line: LogLine) => boolean): Promise<LogLine>;
}

export function logLines(level = 'info'): LogLines {
  const lines: LogLine[] = [];
  const waiting = new Set<() => void>();
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const text of chunk.toString('utf8').split('\n')) if (text !== '') lines.push(JSON.parse(text) as LogLine);
      for (const w of waiting) w();
      cb();
    },
  });
  return {
    logger: pino({ level }, stream),
    lines,
    waitFor: (match) =>
      new Promise((resolve) => {
        const check = () => {
          const found = lines.find(match);
          if (found === undefined) return;
          waiting.delete(check);
          resolve(found);
        };
        waiting.add(check);
        check();
      }),
  };
}
