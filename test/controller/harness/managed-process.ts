/**
 * Long-running child processes (etcd, kube-apiserver, kube-controller-manager) that cannot
 * outlive the test process:
 *   - each is started under `setpriv --pdeathsig KILL` (util-linux) where available, so the
 *     kernel kills it even when the test process is SIGKILLed (a vitest timeout, Ctrl-C);
 *   - a process 'exit' handler SIGKILLs whatever is still tracked on a normal exit;
 *   - stop() sends SIGTERM, then SIGKILL after a grace period, and resolves once it has exited.
 * Output goes to a log file whose tail is quoted in start-up errors.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import { tiedToParent } from '../../helpers/tied-process.js';

export interface ManagedProcess {
  readonly name: string;
  readonly pid: number;
  readonly logFile: string;
  /** Resolves with the exit code (or signal name) once the process has exited. */
  readonly exited: Promise<number | string>;
  /** True once the process has exited. */
  hasExited(): boolean;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
  stop(graceMs?: number): Promise<void>;
  /** The last `bytes` of the log file. */
  logTail(bytes?: number): string;
}

const live = new Set<ChildProcess>();
let exitHandlerInstalled = false;

export function startProcess(name: string, command: string, args: readonly string[], logFile: string): ManagedProcess {
  if (!exitHandlerInstalled) {
    exitHandlerInstalled = true;
    process.on('exit', () => {
      for (const c of live) c.kill('SIGKILL');
    });
  }
  const log = fs.openSync(logFile, 'a');
  const [cmd, argv] = tiedToParent(command, args);
  const child = spawn(cmd, argv, { stdio: ['ignore', log, log], detached: false });
  fs.closeSync(log);
  if (child.pid === undefined) throw new Error(`could not start ${name} (${command})`);
  live.add(child);
  let done = false;
  const exited = new Promise<number | string>((resolve) => {
    child.on('exit', (code, signal) => {
      done = true;
      live.delete(child);
      resolve(code ?? signal ?? 'unknown');
    });
    child.on('error', () => {
      done = true;
      live.delete(child);
      resolve('spawn error');
    });
  });
  const logTail = (bytes = 3_000): string => {
    try {
      const text = fs.readFileSync(logFile, 'utf8');
      return text.slice(-bytes);
    } catch {
      return '';
    }
  };
  return {
    name,
    pid: child.pid,
    logFile,
    exited,
    hasExited: () => done,
    logTail,
    async stop(graceMs = 10_000) {
      if (done) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
