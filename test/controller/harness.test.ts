/**
 * The controller test harness itself: a real etcd + kube-apiserver + kube-controller-manager on
 * loopback, kubectl, and the fake kubelet that schedules pods and reports their status.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { AppsV1Api, CoreV1Api, type V1Deployment, type V1Pod, VersionApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeKubelet, type TestControlPlane, removeOrphanedDirs, startControlPlane, startFakeKubelet, waitFor } from './harness/index.js';

const INIT_FAIL_LABEL = 'harness-test/init-fail';

let cp: TestControlPlane;
let kubelet: FakeKubelet;
let core: CoreV1Api;
let apps: AppsV1Api;

beforeAll(async () => {
  // The first run builds the binaries from source (see scripts/kube-test-binaries.sh).
  cp = await startControlPlane();
  core = cp.kubeConfig.makeApiClient(CoreV1Api);
  apps = cp.kubeConfig.makeApiClient(AppsV1Api);
  kubelet = await startFakeKubelet(cp.kubeConfig, {
    initFailure: (pod) => (pod.metadata?.labels?.[INIT_FAIL_LABEL] === 'true' ? { exitCode: 3, message: 'storage-initializer: s3://models/missing: NoSuchKey' } : undefined),
  });
}, 45 * 60_000);

afterAll(async () => {
  await kubelet?.stop();
  await cp?.stop();
});

function deployment(name: string, labels: Record<string, string> = {}, replicas = 1): V1Deployment {
  const podLabels = { app: name, ...labels };
  return {
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: podLabels },
        spec: {
          initContainers: [{ name: 'storage-initializer', image: 'kserve/storage-initializer:test', args: ['s3://models/iris', '/mnt/models'] }],
          containers: [{ name: 'kserve-container', image: 'kserve-ts:test', ports: [{ containerPort: 8080 }] }],
        },
      },
    },
  };
}

async function createNamespace(name: string): Promise<void> {
  await core.createNamespace({ body: { metadata: { name } } });
  // Pods pass ServiceAccount admission only once the controller manager made `default`.
  await waitFor(() => core.readNamespacedServiceAccount({ name: 'default', namespace: name }), {
    description: `service account default in ${name}`,
  });
}

describe('control plane', () => {
  it('serves the pinned Kubernetes version and reports ready', async () => {
    const version = await cp.kubeConfig.makeApiClient(VersionApi).getCode();
    expect(version.gitVersion).toMatch(/^v1\.\d+\.\d+$/);
    const readyz = await cp.kubectl(['get', '--raw', '/readyz']);
    expect(readyz).toMatchObject({ code: 0, stdout: 'ok' });
    const nodes = await core.listNode();
    expect(nodes.items.map((n) => n.metadata?.name)).toContain(kubelet.nodeName);
    const ready = nodes.items[0]?.status?.conditions?.find((c) => c.type === 'Ready');
    expect(ready?.status).toBe('True');
  });

  it('kubectl apply -f creates a ConfigMap with the generated kubeconfig', async () => {
    const file = path.join(cp.dir, 'cm.yaml');
    fs.writeFileSync(file, ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: applied', '  namespace: default', 'data:', '  key: value', ''].join('\n'));
    const applied = await cp.kubectl(['apply', '-f', file]);
    expect(applied.stderr).toBe('');
    expect(applied).toMatchObject({ code: 0, stdout: 'configmap/applied created\n' });
    const cm = await core.readNamespacedConfigMap({ name: 'applied', namespace: 'default' });
    expect(cm.data).toEqual({ key: 'value' });
    const got = await cp.kubectl(['get', 'configmap', 'applied', '-o', 'jsonpath={.data.key}']);
    expect(got).toMatchObject({ code: 0, stdout: 'value' });
  });
});

describe('Deployment → ReplicaSet → Pod with the fake kubelet', () => {
  const ns = 'rollout';
  beforeAll(() => createNamespace(ns));

  it('makes the pod Ready and the Deployment Available', async () => {
    await apps.createNamespacedDeployment({ namespace: ns, body: deployment('web') });

    const rs = await waitFor(async () => (await apps.listNamespacedReplicaSet({ namespace: ns, labelSelector: 'app=web' })).items[0], {
      description: 'the ReplicaSet of deployment web',
    });
    expect(rs.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'Deployment', name: 'web' });

    const pod = await waitFor(async () => (await core.listNamespacedPod({ namespace: ns, labelSelector: 'app=web' })).items[0], {
      description: 'a Ready pod of deployment web',
      until: (p): p is V1Pod => p?.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True',
    });
    expect(pod.spec?.nodeName).toBe(kubelet.nodeName);
    expect(pod.status?.phase).toBe('Running');
    expect(pod.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'ReplicaSet', name: rs.metadata?.name });
    expect(pod.status?.initContainerStatuses?.[0]?.state?.terminated).toMatchObject({ exitCode: 0, reason: 'Completed' });
    expect(pod.status?.containerStatuses?.[0]).toMatchObject({ name: 'kserve-container', ready: true, started: true });
    for (const type of ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready']) {
      expect(pod.status?.conditions?.find((c) => c.type === type)?.status, type).toBe('True');
    }

    const dep = await waitFor(() => apps.readNamespacedDeployment({ name: 'web', namespace: ns }), {
      description: 'deployment web to be Available',
      until: (d) => d.status?.availableReplicas === 1,
    });
    expect(dep.status?.conditions?.find((c) => c.type === 'Available')?.status).toBe('True');
  });

  it('scales down: the fake kubelet confirms graceful deletion', async () => {
    await apps.patchNamespacedDeploymentScale({ name: 'web', namespace: ns, body: [{ op: 'replace', path: '/spec/replicas', value: 0 }] });
    await waitFor(async () => (await core.listNamespacedPod({ namespace: ns, labelSelector: 'app=web' })).items, {
      timeoutMs: 20_000,
      description: 'the pods of deployment web to be gone',
      until: (pods) => pods.length === 0,
    });
  });

  it('an init failure leaves the pod Pending with the exit code and termination message', async () => {
    await apps.createNamespacedDeployment({ namespace: ns, body: deployment('broken', { [INIT_FAIL_LABEL]: 'true' }) });
    const pod = await waitFor(async () => (await core.listNamespacedPod({ namespace: ns, labelSelector: 'app=broken' })).items[0], {
      description: 'a started pod of deployment broken',
      until: (p): p is V1Pod => p?.status?.startTime !== undefined,
    });
    expect(pod.status?.phase).toBe('Pending');
    expect(pod.status?.initContainerStatuses?.[0]).toMatchObject({
      name: 'storage-initializer',
      ready: false,
      state: { terminated: { exitCode: 3, reason: 'Error', message: 'storage-initializer: s3://models/missing: NoSuchKey' } },
    });
    expect(pod.status?.containerStatuses?.[0]?.state?.waiting?.reason).toBe('PodInitializing');
    expect(pod.status?.conditions?.find((c) => c.type === 'Initialized')?.status).toBe('False');
    expect(pod.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('False');
    const shown = await cp.kubectl(['get', 'pod', '-n', ns, pod.metadata?.name ?? '', '--no-headers']);
    expect(shown.stdout).toMatch(/Init:Error/);

    const dep = await apps.readNamespacedDeployment({ name: 'broken', namespace: ns });
    expect(dep.status?.availableReplicas ?? 0).toBe(0);
  });
});

describe('kube-apiserver restart', () => {
  it('keeps data in etcd, and the controller manager and fake kubelet carry on', async () => {
    const ns = 'restart';
    await createNamespace(ns);
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'kept' }, data: { a: '1' } } });

    await cp.stopApiServer();
    const down = await cp.kubectl(['get', 'configmap', 'kept', '-n', ns, '--request-timeout=2s']);
    expect(down.code).not.toBe(0);
    await cp.startApiServer();

    const cm = await core.readNamespacedConfigMap({ name: 'kept', namespace: ns });
    expect(cm.data).toEqual({ a: '1' });

    // Watches reconnect: a Deployment created after the restart still becomes Available.
    await apps.createNamespacedDeployment({ namespace: ns, body: deployment('after', {}, 2) });
    await waitFor(() => apps.readNamespacedDeployment({ name: 'after', namespace: ns }), {
      timeoutMs: 60_000,
      description: 'deployment after to be Available after the restart',
      until: (d) => d.status?.availableReplicas === 2,
    });
  }, 120_000);
});

describe('stop()', () => {
  it('kills every component and removes the temp folder', async () => {
    const pids = cp.pids();
    expect(Object.keys(pids).sort()).toEqual(['etcd', 'kube-apiserver', 'kube-controller-manager']);
    await kubelet.stop();
    await cp.stop();
    for (const [name, pid] of Object.entries(pids)) {
      expect(alive(pid), name).toBe(false);
    }
    expect(childProcesses().filter((c) => /etcd|kube-/.test(c))).toEqual([]);
    expect(fs.existsSync(cp.dir)).toBe(false);
    await cp.stop(); // idempotent
  });
});

describe('a test process that dies without stop()', () => {
  it('takes its components with it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'harness-orphan-'));
    const script = path.join(dir, 'orphan.mts');
    const index = pathToFileURL(path.join(import.meta.dirname, 'harness/index.ts')).href;
    fs.writeFileSync(
      script,
      `import { startControlPlane } from ${JSON.stringify(index)};\n` +
        'const cp = await startControlPlane();\n' +
        'console.log(JSON.stringify({ pids: cp.pids(), dir: cp.dir }));\n' +
        'setInterval(() => {}, 1000);\n',
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString('utf8');
          if (out.includes('\n')) resolve(out.split('\n')[0] ?? '');
        });
        child.on('exit', (code) => reject(new Error(`child exited with ${code} before starting: ${out}`)));
      });
      const { pids, dir: cpDir } = JSON.parse(line) as { pids: Record<string, number>; dir: string };
      expect(Object.keys(pids)).toHaveLength(3);
      child.kill('SIGKILL');
      await waitFor(() => Object.values(pids).filter(alive), {
        timeoutMs: 10_000,
        description: 'the orphaned components to die',
        until: (live) => live.length === 0,
      });
      // Its temp folder goes with the next start (or an explicit sweep) once it is reaped.
      // Another test file starting a control plane at the same moment may sweep it first,
      // so only the end state is asserted.
      await exited;
      removeOrphanedDirs();
      expect(fs.existsSync(cpDir)).toBe(false);
    } finally {
      child.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Command names of this process's live children (Linux /proc). */
function childProcesses(): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const m = /^\d+ \((.*)\) (\S) (\d+)/.exec(stat);
      if (m && Number(m[3]) === process.pid && m[2] !== 'Z') out.push(m[1] ?? '');
    } catch {
      // exited meanwhile
    }
  }
  return out;
}
