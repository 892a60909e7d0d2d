/** Structured JSON logs (pino) on stdout, one object per line. */
import { pino, type Logger } from 'pino';

export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'kserve-ts', pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime });
}
