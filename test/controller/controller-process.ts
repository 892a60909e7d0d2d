/** Starts `kserve-ts controller` (the built CLI) against a test control plane. */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { freePort } from '../helpers/free-port.js';
import { type CliProcess, runCli } from '../helpers/process.js';
import { ROOT } from '../helpers/server.js';
import { afterAll, beforeEach, onTestFailed } from 'vitest';
import { type FakeKubelet, type TestControlPlane, startControlPlane, startFakeKubelet } from './harness/index.js';
import { type Clients, clientsFor, createNamespace, kubectlApply } from './kube-test-helpers.js';

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

export interface ControllerSuiteOptions {
  /** The suite's namespace (created beside `kserve`). */
  readonly namespace: string;
  /** The controller's leader-election identity. */
  readonly identity: string;
  /** The inferenceservice-config ConfigMap (YAML) the controller reads. */
  readonly config: string;
  /** Install the Gateway API's own CRDs (pinned, from the Go module proxy; cached). */
  readonly gatewayApi?: boolean;
  /** Anything else the API server must serve before the controller starts (other CRDs). */
  readonly beforeController?: (cp: TestControlPlane) => Promise<void>;
}

export interface ControllerSuite {
  readonly cp: TestControlPlane;
  readonly c: Clients;
  readonly kubelet: FakeKubelet;
  readonly controller: ControllerProcess;
}

/**
 * The start-up every controller suite on the real API server shares: the control plane, the
 * namespaces, the config, a kubelet that marks pods ready, the shipped RBAC, the controller
 * running as its own ServiceAccount (so a missing RBAC rule fails the suite) and the shipped
 * kserve-ts ServingRuntime.
 */
export async function startControllerSuite(o: ControllerSuiteOptions): Promise<ControllerSuite> {
  const cp = await startControlPlane();
  const c = clientsFor(cp);
  await createNamespace(c, 'kserve');
  await createNamespace(c, o.namespace);
  if (o.gatewayApi) {
    const crds = execFileSync('bash', [path.join(ROOT, 'scripts/gateway-api-crds.sh')], { encoding: 'utf8' }).trim();
    for (const kind of ['gatewayclasses', 'gateways', 'httproutes']) {
      const r = await cp.kubectl(['apply', '--server-side', '-f', path.join(crds, `gateway.networking.k8s.io_${kind}.yaml`)]);
      if (r.code !== 0) throw new Error(`applying the Gateway API CRD ${kind} failed: ${r.stderr}`);
    }
  }
  await kubectlApply(cp, o.config);
  await o.beforeController?.(cp);
  const kubelet = await startFakeKubelet(cp.kubeConfig);
  await kubectlApply(cp, readFileSync(path.join(ROOT, 'controller/deploy/rbac.yaml'), 'utf8'));
  const controller = await startController(cp, o.identity, [], await serviceAccountKubeconfig(cp, 'kserve', 'kserve-ts-controller'));
  await kubectlApply(cp, readFileSync(path.join(ROOT, 'controller/runtimes/kserve-ts.yaml'), 'utf8'));
  return { cp, c, kubelet, controller };
}
