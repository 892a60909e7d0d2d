/** Starts `kserve-ts controller` (the built CLI) against a test control plane. */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { freePort } from '../helpers/free-port.js';
import { type CliProcess, runCli } from '../helpers/process.js';
import { afterAll, beforeEach, onTestFailed } from 'vitest';
import type { FakeKubelet, TestControlPlane } from './harness/index.js';

export interface ControllerProcess {
  readonly cli: CliProcess;
  readonly healthPort: number;
  readonly webhookPort: number;
  readonly identity: string;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
  kill(): Promise<void>;
}

/**
 * A kubeconfig for a ServiceAccount: the harness's file with the admin token swapped for
 * a token of `namespace/name`, so the controller runs with exactly its RBAC.
 */
export async function serviceAccountKubeconfig(cp: TestControlPlane, namespace: string, name: string): Promise<string> {
  const r = await cp.kubectl(['create', 'token', name, '-n', namespace, '--duration=4h']);
  if (r.code !== 0) throw new Error(`kubectl create token failed: ${r.stderr}`);
  const file = path.join(cp.dir, `${namespace}-${name}.kubeconfig`);
  writeFileSync(file, readFileSync(cp.kubeconfigPath, 'utf8').replaceAll(cp.token, r.stdout.trim()));
  return file;
}

export async function startController(cp: TestControlPlane, identity: string, extra: string[] = [], kubeconfig = cp.kubeconfigPath): Promise<ControllerProcess> {
  const webhookPort = await freePort();
  const cli = runCli([
    'controller',
    '--kubeconfig',
    kubeconfig,
    '--namespace',
    'kserve',
    '--health-port',
    '0',
    '--health-host',
    '127.0.0.1',
    '--webhook-port',
    String(webhookPort),
    '--webhook-host',
    '127.0.0.1',
    '--webhook-url',
    `https://127.0.0.1:${webhookPort}`,
    '--install-crds',
    '--identity',
    identity,
    '--lease-duration',
    '4',
    '--renew-deadline',
    '3',
    '--retry-period',
    '0.5',
    '--resync-period',
    '30',
    '--log-level',
    'debug',
    ...extra,
  ]);
  // A test process that dies must not leave a controller reconciling against nothing.
  const reap = (): void => {
    cli.child.kill('SIGKILL');
  };
  process.once('exit', reap);
  void cli.exited.then(() => process.off('exit', reap));
  // Ports bind first; 'controller started' follows the CRDs, the config and the webhook registration.
  await cli.waitForLog((l) => l['msg'] === 'controller started', 60_000);
  const line = await cli.waitForLog((l) => l['msg'] === 'health server listening');
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

/**
 * The hooks of a controller suite on the real API server: the controller's log tail on every
 * failed test, and the controller, the kubelet and the control plane stopped at the end (in
 * that order; a loaded machine may take a minute or more to stop them, so the bound only catches
 * a hang). `parts` is read when the hooks run, after the suite's beforeAll set them.
 */
export function controllerSuiteHooks(parts: () => { controller?: ControllerProcess; kubelet?: FakeKubelet; cp?: TestControlPlane }): void {
  beforeEach(() => {
    onTestFailed(() => {
      process.stderr.write(`--- controller log (tail) ---\n${parts().controller?.cli.output().slice(-6000) ?? ''}\n`);
    });
  });
  afterAll(async () => {
    const { controller, kubelet, cp } = parts();
    await controller?.stop();
    await kubelet?.stop();
    await cp?.stop();
  }, 300_000);
}
