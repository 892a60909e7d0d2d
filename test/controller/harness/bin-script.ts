/**
 * Runs one of the cached tool builds in scripts/ (kube-test-binaries.sh, helm-tools.sh, kube-node.sh up) without
 * blocking the event loop and resolves with the bin folder it prints as its last stdout line.
 * The script's own `[name]` progress lines are forwarded to stderr; the Go tool's chatter is
 * kept only for the error message.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export function runBinScript(scriptName: string, args: readonly string[] = []): Promise<string> {
  const script = fileURLToPath(new URL(`../../../scripts/${scriptName}`, import.meta.url));
  const progress = `[${path.basename(scriptName, '.sh')}]`;
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let partial = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => {
      const text = d.toString('utf8');
      stderr = (stderr + text).slice(-20_000);
      const lines = (partial + text).split('\n');
      partial = lines.pop() ?? '';
      for (const l of lines) if (l.startsWith(progress)) process.stderr.write(`${l}\n`);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const dir = stdout.trim().split('\n').pop() ?? '';
      if (code !== 0 || dir === '') {
        reject(new Error(`${scriptName} exited with ${code}:\n${stderr.slice(-4_000)}`));
        return;
      }
      resolve(dir);
    });
  });
}

/** Memoises a build per process and forgets a failure, so a later call retries. */
export function memoised<T>(build: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= build().catch((e: unknown) => {
      pending = undefined;
      throw e;
    });
    return pending;
  };
}
