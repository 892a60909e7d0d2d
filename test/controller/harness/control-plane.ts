/**
 * A real Kubernetes control plane on loopback for controller tests, in the spirit of
 * controller-runtime's envtest: etcd, kube-apiserver and (optionally) kube-controller-manager
 * running as child processes of the test, with everything they need in one temp folder.
 *
 * There is no kubelet and no scheduler: pair it with startFakeKubelet() (fake-kubelet.ts)
 * when pods have to be scheduled and become Ready.
 */
import { spawn } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { type KubeBinaries, ensureKubeBinaries } from './kube-binaries.js';
import { type ManagedProcess, startProcess } from './managed-process.js';
import { waitFor } from '../../helpers/wait-for.js';

export interface ControlPlaneOptions {
  /** Run kube-controller-manager (Deployments → ReplicaSets → Pods, GC, namespaces). Default true. */
  readonly controllerManager?: boolean;
  /** Keep the temp folder (logs, etcd data, kubeconfig) after stop(), for debugging. */
  readonly keepDir?: boolean;
  /** How long to wait for each component to become ready. Default 90 s. */
  readonly readyTimeoutMs?: number;
}

export interface KubectlResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface KubectlOptions {
  /** Written to kubectl's stdin (for `apply -f -`). */
  readonly input?: string;
  /** Kill kubectl after this long. Default 60 s. */
  readonly timeoutMs?: number;
}

export interface TestControlPlane {
  /** https://127.0.0.1:<port> */
  readonly server: string;
  /** A kubeconfig file for kubectl and other clients: admin token (system:masters) and the serving CA. */
  readonly kubeconfigPath: string;
  /** The same kubeconfig, loaded for @kubernetes/client-node. */
  readonly kubeConfig: KubeConfig;
  /** The admin bearer token. */
  readonly token: string;
  /** The temp folder holding data, certificates and one log file per component. */
  readonly dir: string;
  readonly binaries: KubeBinaries;
  /** Runs kubectl against this control plane; never rejects on a non-zero exit. */
  kubectl(args: readonly string[], opts?: KubectlOptions): Promise<KubectlResult>;
  /**
   * Stops kube-apiserver only (etcd and the controller manager keep running): SIGTERM, then
   * SIGKILL after `graceMs` (default 2 s; a graceful shutdown waits for open watches to end).
   */
  stopApiServer(opts?: { graceMs?: number }): Promise<void>;
  /** Starts kube-apiserver again on the same port with the same etcd, and waits for /readyz. */
  startApiServer(): Promise<void>;
  /** Process ids of the components currently running. */
  pids(): Record<string, number>;
  /** Stops every component and removes the temp folder. Idempotent; never rejects. */
  stop(): Promise<void>;
}

// The controllers that matter without kubelets or cloud: workloads, GC, namespace
// deletion, service accounts and the kube-root-ca.crt ConfigMap pods mount.
const CONTROLLERS = [
  'deployment-controller',
  'replicaset-controller',
  'garbage-collector-controller',
  'namespace-controller',
  'serviceaccount-controller',
  'serviceaccount-token-controller',
  'root-ca-certificate-publisher-controller',
  'endpointslice-controller',
  'clusterrole-aggregation-controller',
];

const DIR_PREFIX = 'kserve-ts-kube-';
const OWNER_FILE = 'owner.pid';

export async function startControlPlane(opts: ControlPlaneOptions = {}): Promise<TestControlPlane> {
  const binaries = await ensureKubeBinaries();
  removeOrphanedDirs();
  // Free ports are picked, released, then bound by the components: another process may take
  // one in between. Rare, so simply start again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(binaries, opts);
    } catch (e) {
      if (attempt >= 3 || !String(e).includes('address already in use')) throw e;
    }
  }
}

async function startOnce(binaries: KubeBinaries, opts: ControlPlaneOptions): Promise<TestControlPlane> {
  const readyTimeoutMs = opts.readyTimeoutMs ?? 90_000;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), DIR_PREFIX));
  fs.writeFileSync(path.join(dir, OWNER_FILE), String(process.pid));
  const procs: { etcd?: ManagedProcess; apiserver?: ManagedProcess; kcm?: ManagedProcess } = {};
  let stopped = false;

  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await Promise.allSettled([procs.kcm?.stop(), procs.apiserver?.stop()]);
    await Promise.allSettled([procs.etcd?.stop()]);
    if (!opts.keepDir) fs.rmSync(dir, { recursive: true, force: true });
  };

  try {
    const [etcdPort, etcdPeerPort, apiPort] = await freePorts(3);
    const certDir = path.join(dir, 'certs');
    fs.mkdirSync(certDir);
    fs.mkdirSync(path.join(dir, 'logs'));

    // etcd: single member, no fsync (test data is throwaway).
    const etcdUrl = `http://127.0.0.1:${etcdPort}`;
    const peerUrl = `http://127.0.0.1:${etcdPeerPort}`;
    procs.etcd = startProcess(
      'etcd',
      binaries.etcd,
      [
        '--name=default',
        `--data-dir=${path.join(dir, 'etcd')}`,
        `--listen-client-urls=${etcdUrl}`,
        `--advertise-client-urls=${etcdUrl}`,
        `--listen-peer-urls=${peerUrl}`,
        `--initial-advertise-peer-urls=${peerUrl}`,
        `--initial-cluster=default=${peerUrl}`,
        '--unsafe-no-fsync',
        '--log-level=warn',
      ],
      path.join(dir, 'logs/etcd.log'),
    );
    await waitReady(procs.etcd, readyTimeoutMs, async () => {
      const res = await fetch(`${etcdUrl}/health`);
      return res.ok && ((await res.json()) as { health?: string }).health === 'true';
    });

    // Service-account token signing keys, shared by the apiserver and the controller manager.
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const saKey = path.join(certDir, 'sa.key');
    const saPub = path.join(certDir, 'sa.pub');
    fs.writeFileSync(saKey, privateKey.export({ type: 'pkcs8', format: 'pem' }));
    fs.writeFileSync(saPub, publicKey.export({ type: 'spki', format: 'pem' }));

    // Static tokens: token,user,uid,"groups".
    const token = randomBytes(24).toString('hex');
    const kcmToken = randomBytes(24).toString('hex');
    fs.writeFileSync(path.join(certDir, 'tokens.csv'), `${token},admin,admin,"system:masters"\n` + `${kcmToken},system:kube-controller-manager,kcm,"system:masters"\n`);

    const server = `https://127.0.0.1:${apiPort}`;
    const apiserverArgs = [
      `--etcd-servers=${etcdUrl}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${apiPort}`,
      // Self-signed serving certificate (and its CA, in the same file) written here on first
      // start and reused on restart.
      `--cert-dir=${certDir}`,
      '--service-cluster-ip-range=10.0.0.0/24',
      `--service-account-key-file=${saPub}`,
      `--service-account-signing-key-file=${saKey}`,
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--token-auth-file=${path.join(certDir, 'tokens.csv')}`,
      '--authorization-mode=RBAC',
      '--allow-privileged=true',
      // A loopback advertise address is not a valid Endpoints IP: don't maintain the
      // `kubernetes` Service's endpoints (nothing in-cluster calls the apiserver here).
      '--endpoint-reconciler-type=none',
      '--profiling=false',
    ];
    const apiLog = path.join(dir, 'logs/kube-apiserver.log');
    const startApiServer = async (): Promise<void> => {
      if (procs.apiserver && !procs.apiserver.hasExited()) throw new Error('kube-apiserver is already running');
      const p = startProcess('kube-apiserver', binaries.apiserver, apiserverArgs, apiLog);
      procs.apiserver = p;
      await waitReady(p, readyTimeoutMs, async () => (await httpsGet(`${server}/readyz`, token)).status === 200);
    };
    await startApiServer();

    const ca = fs.readFileSync(path.join(certDir, 'apiserver.crt'));
    const kubeconfigPath = path.join(dir, 'kubeconfig');
    fs.writeFileSync(kubeconfigPath, kubeconfig(server, ca, 'admin', token));
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(kubeconfigPath);

    if (opts.controllerManager ?? true) {
      const kcmKubeconfig = path.join(dir, 'kube-controller-manager.kubeconfig');
      fs.writeFileSync(kcmKubeconfig, kubeconfig(server, ca, 'kube-controller-manager', kcmToken));
      procs.kcm = startProcess(
        'kube-controller-manager',
        binaries.controllerManager,
        [
          `--kubeconfig=${kcmKubeconfig}`,
          `--controllers=${CONTROLLERS.join(',')}`,
          '--leader-elect=false',
          // No HTTPS endpoint: it would need delegated authn/authz against the apiserver.
          '--secure-port=0',
          `--service-account-private-key-file=${saKey}`,
          `--root-ca-file=${path.join(certDir, 'apiserver.crt')}`,
          '--use-service-account-credentials=false',
        ],
        path.join(dir, 'logs/kube-controller-manager.log'),
      );
      // Ready once the service-account controller has made `default` in `default`: its
      // informers have synced, and pods in new namespaces will soon pass admission.
      const core = kubeConfig.makeApiClient(CoreV1Api);
      await waitReady(procs.kcm, readyTimeoutMs, async () => {
        await core.readNamespacedServiceAccount({ name: 'default', namespace: 'default' });
        return true;
      });
    }

    const kubectlCache = path.join(dir, 'kubectl-cache');
    return {
      server,
      kubeconfigPath,
      kubeConfig,
      token,
      dir,
      binaries,
      kubectl: (args, kopts) => runKubectl(binaries.kubectl, ['--kubeconfig', kubeconfigPath, ...args], kubectlCache, kopts),
      async stopApiServer(sopts) {
        await procs.apiserver?.stop(sopts?.graceMs ?? 2_000);
      },
      startApiServer,
      pids() {
        const out: Record<string, number> = {};
        for (const p of [procs.etcd, procs.apiserver, procs.kcm]) if (p && !p.hasExited()) out[p.name] = p.pid;
        return out;
      },
      stop,
    };
  } catch (e) {
    const logs = [procs.etcd, procs.apiserver, procs.kcm]
      .filter((p): p is ManagedProcess => p !== undefined)
      .map((p) => `--- ${p.name} (${p.logFile}) ---\n${p.logTail()}`)
      .join('\n');
    await stop();
    throw new Error(`control plane failed to start: ${e instanceof Error ? e.message : String(e)}\n${logs}`, { cause: e });
  }
}

/**
 * Removes the temp folders of control planes whose test process died without stop() (its
 * components died with it, see managed-process.ts). Folders of live processes are left alone.
 * startControlPlane() calls it.
 */
export function removeOrphanedDirs(): void {
  for (const entry of fs.readdirSync(os.tmpdir())) {
    if (!entry.startsWith(DIR_PREFIX)) continue;
    const dir = path.join(os.tmpdir(), entry);
    let owner: number;
    try {
      owner = Number(fs.readFileSync(path.join(dir, OWNER_FILE), 'utf8'));
    } catch {
      continue; // being created, or not ours
    }
    if (Number.isInteger(owner) && owner > 0 && !isAlive(owner)) fs.rmSync(dir, { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Polls `probe` until true; fails early, with the log, if the process exits meanwhile. */
async function waitReady(p: ManagedProcess, timeoutMs: number, probe: () => Promise<boolean>): Promise<void> {
  await waitFor(
    async () => {
      if (p.hasExited()) throw new ProcessExited(`${p.name} exited with ${await p.exited}`);
      return probe();
    },
    { timeoutMs, intervalMs: 100, description: `${p.name} to be ready`, until: (v) => v },
  ).catch((e: unknown) => {
    throw p.hasExited() ? new ProcessExited(`${p.name} exited:\n${p.logTail()}`) : e;
  });
}

class ProcessExited extends Error {}

function kubeconfig(server: string, ca: Buffer, user: string, token: string): string {
  // JSON is valid YAML: kubectl and client-node both read it.
  return JSON.stringify(
    {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'test', cluster: { server, 'certificate-authority-data': ca.toString('base64') } }],
      users: [{ name: user, user: { token } }],
      contexts: [{ name: 'test', context: { cluster: 'test', user, namespace: 'default' } }],
      'current-context': 'test',
    },
    null,
    2,
  );
}

function httpsGet(url: string, token: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.get(
      url,
      // The serving certificate may not be on disk yet when the first probes go out.
      { headers: { authorization: `Bearer ${token}` }, rejectUnauthorized: false, timeout: 5_000 },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

/** Distinct free loopback ports (bound together, then released). */
async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<net.Server>((resolve, reject) => {
          const s = net.createServer();
          s.on('error', reject);
          s.listen(0, '127.0.0.1', () => resolve(s));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as net.AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}

/** Runs kubectl with `args` (include --kubeconfig); resolves with its exit code and output, never rejects on a non-zero exit. */
export function runKubectl(kubectl: string, args: readonly string[], cacheDir: string, opts: KubectlOptions = {}): Promise<KubectlResult> {
  return runProcess(kubectl, args, { ...opts, env: { ...process.env, KUBECONFIG: '', KUBECACHEDIR: cacheDir } });
}

/**
 * Runs a command to completion with `input` on its stdin; resolves with its exit code and
 * output (never rejects on a non-zero exit), killed with SIGKILL after `timeoutMs` (60 s).
 */
export function runProcess(cmd: string, args: readonly string[], opts: KubectlOptions & { env?: NodeJS.ProcessEnv } = {}): Promise<KubectlResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: opts.env ?? process.env,
      timeout: opts.timeoutMs ?? 60_000,
      killSignal: 'SIGKILL',
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    // A command that exits without reading its stdin (kubectl with nothing to apply, one that
    // fails early) closes the pipe first: EPIPE here is not the command's outcome, which its
    // exit code and output already carry; unhandled, it failed a whole suite run.
    child.stdin.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') reject(err);
    });
    child.stdin.end(opts.input ?? '');
  });
}
