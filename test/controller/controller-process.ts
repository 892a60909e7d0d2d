/** Starts `kserve-ts controller` (the built CLI) against a test control plane. */
import { createServer } from 'node:net';
import { type CliProcess, runCli } from '../helpers/process.js';
import type { TestControlPlane } from './harness/index.js';

export interface ControllerProcess {
  readonly cli: CliProcess;
  readonly healthPort: number;
  readonly webhookPort: number;
  readonly identity: string;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
  kill(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      s.close(() => resolve(port));
    });
  });
}

export async function startController(cp: TestControlPlane, identity: string, extra: string[] = []): Promise<ControllerProcess> {
  const webhookPort = await freePort();
  const cli = runCli([
    'controller',
    '--kubeconfig', cp.kubeconfigPath,
    '--namespace', 'kserve',
    '--health-port', '0',
    '--health-host', '127.0.0.1',
    '--webhook-port', String(webhookPort),
    '--webhook-host', '127.0.0.1',
    '--webhook-url', `https://127.0.0.1:${webhookPort}`,
    '--install-crds',
    '--identity', identity,
    '--lease-duration', '4',
    '--renew-deadline', '3',
    '--retry-period', '0.5',
    '--resync-period', '30',
    '--log-level', 'debug',
    ...extra,
  ]);
  const line = await cli.waitForLog((l) => l['msg'] === 'health server listening', 60_000);
  return {
    cli,
    healthPort: Number(line['healthPort']),
    webhookPort,
    identity,
    async stop() {
      cli.child.kill('SIGTERM');
      return cli.exited;
    },
    async kill() {
      cli.child.kill('SIGKILL');
      await cli.exited;
    },
  };
}
