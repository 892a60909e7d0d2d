/** Runs the built `kserve-ts` CLI as a child process and follows its JSON log lines. */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './server.js';
import { tiedToParent } from './tied-process.js';

export const CLI = path.join(ROOT, 'dist/bin/kserve-ts.js');

export interface CliProcess {
  readonly child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** Resolves with the first JSON log line for which `match` is true. */
  waitForLog(match: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  /**
   * Resolves with the exit code once the process has exited AND its stdout and stderr have
   * been read to their end, so output() then holds everything it wrote. ('exit' can come
   * before the pipes' last data, which a loaded machine then delivers later.)
   */
  exited: Promise<number | null>;
}

/** `nodeArgs` go to node before the CLI, e.g. ['--import', 'tsx']. */
export function runCli(args: string[], nodeArgs: readonly string[] = []): CliProcess {
  const [cmd, argv] = tiedToParent(process.execPath, [...nodeArgs, CLI, ...args]);
  const child = spawn(cmd, argv, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString('utf8');
    for (const l of listeners) l();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const lines = (): Record<string, unknown>[] =>
    out.split('\n').flatMap((l) => {
      try {
        const v: unknown = JSON.parse(l);
        return isRecord(v) ? [v] : [];
      } catch {
        return [];
      }
    });
  return {
    child,
    output: () => out,
    exited,
    waitForLog(match, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = lines().find(match);
          if (found !== undefined) {
            listeners.delete(check);
            clearTimeout(timer);
            resolve(found);
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`log line not seen within ${timeoutMs} ms; output:\n${out}`));
        }, timeoutMs);
        listeners.add(check);
        void exited.then(() => {
          check();
          if (listeners.has(check)) {
            listeners.delete(check);
            clearTimeout(timer);
            reject(new Error(`process exited before the log line; output:\n${out}`));
          }
        });
        check();
      });
    },
  };
}

/** Port of the REST listener, from fastify's "Server listening at http://127.0.0.1:PORT" line. */
export async function restPort(p: CliProcess): Promise<number> {
  const line = await p.waitForLog((l) => typeof l['msg'] === 'string' && l['msg'].startsWith('Server listening at http://127.0.0.1:'));
  return Number(/:(\d+)$/.exec(String(line['msg']))?.[1]);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}
