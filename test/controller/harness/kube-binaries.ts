/**
 * Paths of the real control-plane binaries, built (once, then cached) by
 * scripts/kube-test-binaries.sh from the Go module proxy. The first build takes many minutes:
 * call this from a beforeAll with a long timeout.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface KubeBinaries {
  readonly apiserver: string;
  readonly controllerManager: string;
  readonly kubectl: string;
  readonly etcd: string;
}

const SCRIPT = fileURLToPath(new URL('../../../scripts/kube-test-binaries.sh', import.meta.url));
const PROGRESS = /^\[kube-test-binaries\]/;

let pending: Promise<KubeBinaries> | undefined;

/**
 * Runs the build script without blocking the event loop and resolves with the binaries' paths.
 * Memoised per process; the script itself serialises concurrent processes with a file lock.
 * The script's own progress lines are forwarded to stderr, the Go tool's chatter is kept only
 * for the error message.
 */
export function ensureKubeBinaries(): Promise<KubeBinaries> {
  pending ??= build().catch((e: unknown) => {
    pending = undefined;
    throw e;
  });
  return pending;
}

function build(): Promise<KubeBinaries> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [SCRIPT], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let partial = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => {
      const text = d.toString('utf8');
      stderr = (stderr + text).slice(-20_000);
      const lines = (partial + text).split('\n');
      partial = lines.pop() ?? '';
      for (const l of lines) if (PROGRESS.test(l)) process.stderr.write(`${l}\n`);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const dir = stdout.trim().split('\n').pop() ?? '';
      if (code !== 0 || dir === '') {
        reject(new Error(`${path.basename(SCRIPT)} exited with ${code}:\n${stderr.slice(-4_000)}`));
        return;
      }
      resolve({
        apiserver: path.join(dir, 'kube-apiserver'),
        controllerManager: path.join(dir, 'kube-controller-manager'),
        kubectl: path.join(dir, 'kubectl'),
        etcd: path.join(dir, 'etcd'),
      });
    });
  });
}
