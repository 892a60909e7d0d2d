/**
 * InferenceServices end to end on the real one-node cluster of scripts/kube-node.sh: the
 * three charts installed by helm, the controller running as a pod (reaching the API server
 * through the `kubernetes` Service, serving its webhooks through its own Service), models
 * pulled by the injected storage-initializer from moto on the node address, inference through
 * the predictor's ClusterIP Service (and one `kubectl port-forward`) compared with a local
 * server on the same model. The tests run in order and build on each other: 1 installs,
 * 2 deploys `iris`, 3 updates it, 4 deletes it.
 */
import type { TLSSocket } from 'node:tls';
import { type ChildProcess, spawn } from 'node:child_process';
import https from 'node:https';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expected } from '../../../server/backends/tensorflow/tf-fixtures.test-helper.js';
import { ensureKubeBinaries, waitFor } from '../../controller/harness/index.js';
import { grpcClient } from '../../grpc/client.js';
import { IRIS_DIR, type TestServer, startServer } from '../../helpers/server.js';
import { imageName } from '../../images/docker.js';
import { type S3Server, V1_IRIS, V2_IRIS, credentials, grpcIris, inferenceService, manifest, startS3 } from './fixtures.js';
import { type KubeNode, NODE_IP, ROOT, useKubeNode } from './kube-node.js';
import { CHARTS, type Obj, condition, request, waitRoutable } from './kserve.js';

const NS = 'kserve';
const APP_NS = `e2e-${process.pid}`;
const CONTROLLER_PODS = 'app.kubernetes.io/name=kserve-ts-controller';

let node: KubeNode;
let s3: S3Server;
let local: TestServer;

async function getJson<T = Obj>(args: readonly string[]): Promise<T> {
  return JSON.parse(await node.kubectlOk([...args, '-o', 'json'])) as T;
}

async function apply(objects: readonly object[]): Promise<void> {
  await node.kubectlOk(['apply', '-f', '-'], { input: manifest(objects) });
}

async function waitIsvcReady(name: string, timeoutMs = 240_000): Promise<Obj> {
  return waitFor(() => getJson(['get', 'inferenceservice', name, '-n', APP_NS]), {
    timeoutMs,
    intervalMs: 1_000,
    description: `InferenceService ${name} Ready`,
    until: (o) => condition(o, 'Ready')?.status === 'True',
  });
}

async function clusterIP(service: string): Promise<string> {
  return (await getJson(['get', 'service', service, '-n', APP_NS])).spec.clusterIP as string;
}

async function localAnswer(pathname: string, body: object): Promise<unknown> {
  const r = await request(`${local.url}${pathname}`, body);
  expect(r.status, r.body).toBe(200);
  return JSON.parse(r.body);
}

async function readyPods(selector: string): Promise<Obj[]> {
  const list = await getJson<{ items: Obj[] }>(['get', 'pods', '-n', APP_NS, '-l', selector]);
  return list.items.filter((p) => !p.metadata.deletionTimestamp && condition(p, 'Ready')?.status === 'True');
}

/**
 * How long a terminating predictor pod keeps serving after SIGTERM (--shutdown_delay_seconds,
 * default 2): the rollout test sends through the Service while the old pod goes, and the node's
 * kube-proxy must have dropped that pod from the Service before its listeners close. Explicit
 * and long here so that on a loaded node only a hang, not the proxy's speed, fails a request.
 */
const SHUTDOWN_DELAY_S = 15;

beforeAll(async () => {
  node = await useKubeNode();
  [s3, local] = await Promise.all([startS3(), startServer(['--model_name', 'iris', '--model_dir', IRIS_DIR], { grpc: true })]);
  await node.kubectlOk(['create', 'namespace', APP_NS]);
  await apply(credentials(APP_NS, s3.endpoint));
}, 1_200_000);

afterEach(async (ctx) => {
  if (ctx.task.result?.state === 'fail') console.log(`diagnostics for "${ctx.task.name}":\n${await node.diagnostics([APP_NS])}`);
});

afterAll(async () => {
  if (node) {
    await node.kubectl(['delete', 'namespace', APP_NS, '--wait=true', '--timeout=120s'], { timeoutMs: 130_000 });
    for (const [release] of [...CHARTS].reverse()) await node.helmRun(['uninstall', release, '-n', NS, '--wait', '--ignore-not-found']);
    await node.release();
  }
  await s3?.stop();
  await local?.close();
}, 300_000);

describe('InferenceServices on a real node', () => {
  it('1. helm installs the three charts: controller and webhook pods Ready, the webhook served through its Service with its certificate', { timeout: 420_000 }, async () => {
    for (const [release, chart] of CHARTS) {
      const r = await node.helmRun(['upgrade', '--install', release, path.join(ROOT, chart), '-n', NS, '--create-namespace', '--wait', '--timeout', '180s']);
      expect(r.code, r.stderr).toBe(0);
    }
    const pods = (await getJson<{ items: Obj[] }>(['get', 'pods', '-n', NS, '-l', CONTROLLER_PODS])).items;
    expect(pods).toHaveLength(2);
    for (const p of pods) {
      expect(p.status.phase).toBe('Running');
      expect(condition(p, 'Ready')?.status).toBe('True');
    }
    // The controller pods reach the API server as in any cluster: through the `kubernetes`
    // Service, whose endpoint is the API server on the node address.
    const apiEndpoints = await getJson<{ items: { endpoints: { addresses: string[] }[] }[] }>([
      'get',
      'endpointslices',
      '-n',
      'default',
      '-l',
      'kubernetes.io/service-name=kubernetes',
    ]);
    expect(apiEndpoints.items.flatMap((s) => s.endpoints.flatMap((e) => e.addresses))).toEqual([NODE_IP]);
    expect((await getJson(['get', 'service', 'kubernetes', '-n', 'default'])).spec.clusterIP).toBe('10.96.0.1');
    const secret = await getJson(['get', 'secret', 'kserve-ts-webhook-cert', '-n', NS]);
    const ca = Buffer.from((secret as unknown as { data: Record<string, string> }).data['ca.crt']!, 'base64');
    const ip = (await getJson(['get', 'service', 'kserve-ts-webhook', '-n', NS])).spec.clusterIP as string;
    // Verified against the chart's CA under the name the API server uses.
    const answer = await waitFor(
      () =>
        new Promise<{ status: number; authorized: boolean }>((resolve, reject) => {
          const req = https.request({ host: ip, port: 443, path: '/readyz', ca, servername: `kserve-ts-webhook.${NS}.svc`, agent: false, timeout: 3_000 }, (res) => {
            res.resume();
            resolve({ status: res.statusCode ?? 0, authorized: (res.socket as TLSSocket).authorized });
          });
          req.on('timeout', () => req.destroy(new Error('timeout')));
          req.on('error', reject);
          req.end();
        }),
      { timeoutMs: 30_000, intervalMs: 500, description: 'the webhook through its Service' },
    );
    expect(answer.authorized).toBe(true);
    expect(answer.status).toBeGreaterThan(0);
  });

  it(
    '2. an InferenceService from s3:// with ServiceAccount credentials: storage-initializer injected, Ready with its URL, V1, V2 REST and gRPC through the Service answer as a local server',
    { timeout: 420_000 },
    async () => {
      // A terminating pod keeps serving for SHUTDOWN_DELAY_S (test 3's rollout relies on it).
      await apply([inferenceService('iris', APP_NS, { storageUri: 's3://models/iris', args: [`--shutdown_delay_seconds=${SHUTDOWN_DELAY_S}`] })]);
      const isvc = await waitIsvcReady('iris');
      expect(isvc.status.url).toBe(`http://iris-${APP_NS}.example.com`);
      expect(isvc.status.address.url).toBe(`http://iris-predictor.${APP_NS}.svc.cluster.local`);
      expect(isvc.status.clusterServingRuntimeName).toBe('kserve-ts-onnx');

      const [pod] = await readyPods('serving.kserve.io/inferenceservice=iris');
      const init = (pod!.spec.initContainers as { name: string; image: string; args: string[]; env: { name: string; valueFrom?: any }[] }[])[0]!;
      expect(init.name).toBe('storage-initializer');
      expect(init.image).toBe(imageName('storage-initializer'));
      expect(init.args).toEqual(['s3://models/iris', '/mnt/models']);
      expect(init.env.find((e) => e.name === 'AWS_ACCESS_KEY_ID')?.valueFrom?.secretKeyRef).toEqual({ name: 's3-credentials', key: 'AWS_ACCESS_KEY_ID' });
      expect(init.env.find((e) => e.name === 'S3_ENDPOINT')).toBeDefined();

      const ip = await clusterIP('iris-predictor');
      const base = `http://${ip}`;
      await waitRoutable(base, 'iris');
      const v1 = await request(`${base}/v1/models/iris:predict`, V1_IRIS);
      expect(v1.status, v1.body).toBe(200);
      expect(JSON.parse(v1.body)).toEqual(await localAnswer('/v1/models/iris:predict', V1_IRIS));
      const v2 = await request(`${base}/v2/models/iris/infer`, V2_IRIS);
      expect(v2.status, v2.body).toBe(200);
      const want = (await localAnswer('/v2/models/iris/infer', V2_IRIS)) as { outputs: unknown[] };
      expect((JSON.parse(v2.body) as { outputs: unknown[] }).outputs).toEqual(want.outputs);

      const remote = grpcClient(`${ip}:8081`);
      const host = grpcClient(local.grpcAddress!);
      try {
        const a = await remote.infer(grpcIris('iris'));
        const b = await host.infer(grpcIris('iris'));
        expect(a.outputs.length).toBe(2);
        expect(a.outputs).toEqual(b.outputs);
        expect(a.raw_output_contents).toEqual(b.raw_output_contents);
      } finally {
        remote.close();
        host.close();
      }
    },
  );

  it('2b. kubectl port-forward to the predictor Service answers as a local server', async () => {
    const { kubectl } = await ensureKubeBinaries();
    const args = ['--kubeconfig', node.kubeconfigPath, 'port-forward', '-n', APP_NS, '--address', '127.0.0.1', 'service/iris-predictor', ':80'];
    const child: ChildProcess = spawn(kubectl, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let out = '';
      child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
      const port = await waitFor(() => /Forwarding from 127\.0\.0\.1:(\d+)/.exec(out)?.[1], {
        timeoutMs: 20_000,
        description: 'kubectl port-forward to listen',
      });
      const r = await request(`http://127.0.0.1:${port}/v2/models/iris/infer`, V2_IRIS);
      expect(r.status, r.body).toBe(200);
      const want = (await localAnswer('/v2/models/iris/infer', V2_IRIS)) as { outputs: unknown[] };
      expect((JSON.parse(r.body) as { outputs: unknown[] }).outputs).toEqual(want.outputs);
    } finally {
      const exited = new Promise((r) => child.once('close', r));
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('3. changing storageUri rolls the Deployment while a bounded client loop sees zero failed requests', { timeout: 480_000 }, async () => {
    const base = `http://${await clusterIP('iris-predictor')}`;
    const want = await localAnswer('/v1/models/iris:predict', V1_IRIS);
    const failures: string[] = [];
    let ok = 0;
    let stop = false;
    // Sequential, a fresh connection each: at most 6,000 requests and 200 s, whichever first.
    const loopDeadline = Date.now() + 200_000;
    const loop = (async () => {
      for (let i = 0; i < 6_000 && !stop && Date.now() < loopDeadline; i++) {
        try {
          // The timeout only catches a hang: a slow answer is an answer.
          const r = await request(`${base}/v1/models/iris:predict`, V1_IRIS, 60_000);
          if (r.status !== 200) failures.push(`#${i}: HTTP ${r.status} ${r.body.slice(0, 200)}`);
          else if (JSON.stringify(JSON.parse(r.body)) !== JSON.stringify(want)) failures.push(`#${i}: different answer ${r.body.slice(0, 200)}`);
          else ok++;
        } catch (e) {
          failures.push(`#${i}: ${e instanceof Error ? e.message : String(e)}`);
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const before = await getJson(['get', 'deployment', 'iris-predictor', '-n', APP_NS]);
    await node.kubectlOk([
      'patch',
      'inferenceservice',
      'iris',
      '-n',
      APP_NS,
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { predictor: { model: { storageUri: 's3://models/iris-v2' } } } }),
    ]);
    try {
      await waitFor(
        async () => {
          const d = await getJson(['get', 'deployment', 'iris-predictor', '-n', APP_NS]);
          const s = d.status;
          const pods = (await getJson<{ items: Obj[] }>(['get', 'pods', '-n', APP_NS, '-l', 'serving.kserve.io/inferenceservice=iris'])).items;
          // The storage-initializer is injected into pods (by the pod webhook), not into the Deployment.
          const uris = pods.map((p) => (p.spec.initContainers as { args: string[] }[] | undefined)?.[0]?.args[0]);
          return (
            s.observedGeneration === d.metadata.generation &&
            s.updatedReplicas === 1 &&
            s.replicas === 1 &&
            s.availableReplicas === 1 &&
            uris.length === 1 &&
            uris[0] === 's3://models/iris-v2'
          );
        },
        { timeoutMs: 180_000, intervalMs: 1_000, description: 'the rollout to the new storageUri to finish, old pod gone' },
      );
      // A few more requests on the new pod alone.
      const settled = ok;
      await waitFor(() => ok >= settled + 20 || Date.now() > loopDeadline, { timeoutMs: 120_000, description: 'requests after the rollout' });
    } finally {
      stop = true;
      await loop;
    }
    const after = await getJson(['get', 'deployment', 'iris-predictor', '-n', APP_NS]);
    expect(after.metadata.name).toBe(before.metadata.name);
    expect((await getJson(['get', 'inferenceservice', 'iris', '-n', APP_NS])).status.conditions).toContainEqual(expect.objectContaining({ type: 'Ready', status: 'True' }));
    console.log(`rolling update: ${ok} requests answered, ${failures.length} failed`);
    expect(failures).toEqual([]);
    expect(ok).toBeGreaterThan(20);
  });

  it('4. deleting the InferenceService garbage-collects every object it owns', async () => {
    const owned = async (): Promise<string[]> => {
      const r = await node.kubectlOk([
        'get',
        'deployments,replicasets,pods,services,horizontalpodautoscalers,ingresses',
        '-n',
        APP_NS,
        '-l',
        'serving.kserve.io/inferenceservice=iris',
        '-o',
        'name',
      ]);
      return r.split('\n').filter(Boolean);
    };
    expect((await owned()).length).toBeGreaterThan(0);
    await node.kubectlOk(['delete', 'inferenceservice', 'iris', '-n', APP_NS, '--wait=true', '--timeout=60s'], { timeoutMs: 70_000 });
    await waitFor(owned, { timeoutMs: 90_000, intervalMs: 1_000, description: 'the objects of iris to be gone', until: (l) => l.length === 0 });
    const byName = await node.kubectl(['get', 'deployment/iris-predictor', 'service/iris-predictor', '-n', APP_NS]);
    expect(byName.stderr).toMatch(/NotFound/);
  });

  it('5. minReplicas 2: two Ready pods and the HorizontalPodAutoscaler as KServe creates it', { timeout: 420_000 }, async () => {
    await apply([inferenceService('iris-hpa', APP_NS, { storageUri: 's3://models/iris', minReplicas: 2, maxReplicas: 3 })]);
    await waitIsvcReady('iris-hpa');
    await waitFor(() => readyPods('serving.kserve.io/inferenceservice=iris-hpa'), {
      timeoutMs: 120_000,
      intervalMs: 1_000,
      description: 'two Ready pods',
      until: (p) => p.length === 2,
    });
    const hpa = await getJson(['get', 'horizontalpodautoscaler', 'iris-hpa-predictor', '-n', APP_NS]);
    expect((hpa as unknown as { apiVersion: string }).apiVersion).toBe('autoscaling/v2');
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'iris-hpa-predictor' });
    expect(hpa.spec.minReplicas).toBe(2);
    expect(hpa.spec.maxReplicas).toBe(3);
    expect(hpa.spec.metrics).toEqual([{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }]);
    expect(hpa.metadata.ownerReferences).toContainEqual(expect.objectContaining({ kind: 'InferenceService', name: 'iris-hpa' }));
    const deploy = await getJson(['get', 'deployment', 'iris-hpa-predictor', '-n', APP_NS]);
    expect(deploy.status.readyReplicas).toBe(2);
    await node.kubectlOk(['delete', 'inferenceservice', 'iris-hpa', '-n', APP_NS, '--wait=true', '--timeout=60s'], { timeoutMs: 70_000 });
  });

  it('6. a missing bucket or object: the init container fails, the status says why, the controller keeps running', { timeout: 420_000 }, async () => {
    const restartsBefore = await controllerRestarts();
    await apply([
      inferenceService('no-bucket', APP_NS, { storageUri: 's3://no-such-bucket/iris' }),
      inferenceService('no-object', APP_NS, { storageUri: 's3://models/no-such-model' }),
    ]);
    for (const [name, what] of [
      ['no-bucket', /no-such-bucket/],
      ['no-object', /no-such-model/],
    ] as const) {
      const isvc = await waitFor(() => getJson(['get', 'inferenceservice', name, '-n', APP_NS]), {
        timeoutMs: 180_000,
        intervalMs: 1_000,
        description: `${name}'s status to report the failed load`,
        until: (o) => o.status?.modelStatus?.lastFailureInfo?.reason === 'ModelLoadFailed',
      });
      expect(isvc.status.modelStatus.transitionStatus).toBe('BlockedByFailedLoad');
      expect(isvc.status.modelStatus.states.targetModelState).toBe('FailedToLoad');
      expect(isvc.status.modelStatus.lastFailureInfo.message).toMatch(what);
      expect(condition(isvc, 'Ready')?.status).not.toBe('True');
      const pods = (await getJson<{ items: Obj[] }>(['get', 'pods', '-n', APP_NS, '-l', `serving.kserve.io/inferenceservice=${name}`])).items;
      const init = (pods[0]!.status.initContainerStatuses as { name: string; state: any; lastState: any }[]).find((s) => s.name === 'storage-initializer')!;
      const terminated = init.state.terminated ?? init.lastState.terminated;
      expect(terminated.exitCode).not.toBe(0);
    }
    const controllers = (await getJson<{ items: Obj[] }>(['get', 'pods', '-n', NS, '-l', CONTROLLER_PODS])).items;
    expect(controllers.every((p) => condition(p, 'Ready')?.status === 'True')).toBe(true);
    expect(await controllerRestarts()).toBe(restartsBefore);
    await node.kubectlOk(['delete', 'inferenceservice', 'no-bucket', 'no-object', '-n', APP_NS, '--wait=true', '--timeout=60s'], { timeoutMs: 70_000 });
  });

  it('6b. an invalid spec is refused by the validating webhook with a clear message', async () => {
    const r = await node.kubectl(['apply', '-f', '-'], {
      input: manifest([inferenceService('bad-metric', APP_NS, { storageUri: 's3://models/iris', scaleMetric: 'rps' })]),
    });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/admission webhook "[^"]+" denied the request/);
    expect(r.stderr).toMatch(/scaleMetric 'rps' is not supported/);
    const none = await node.kubectl(['get', 'inferenceservice', 'bad-metric', '-n', APP_NS]);
    expect(none.stderr).toMatch(/NotFound/);
  });

  it('7. a TensorFlow SavedModel is served by the tensorflow runtime, selected by its model format', { timeout: 420_000 }, async () => {
    await apply([inferenceService('dense', APP_NS, { format: 'tensorflow', storageUri: 's3://models/dense', memoryLimit: '2Gi' })]);
    const isvc = await waitIsvcReady('dense', 300_000);
    expect(isvc.status.clusterServingRuntimeName).toBe('kserve-ts-tensorflow');
    const [pod] = await readyPods('serving.kserve.io/inferenceservice=dense');
    expect((pod!.spec.containers as { name: string; image: string }[]).find((c) => c.name === 'kserve-container')?.image).toBe(imageName('server-tensorflow'));
    const base = `http://${await clusterIP('dense-predictor')}`;
    await waitRoutable(base, 'dense');
    const r = await request(`${base}/v2/models/dense/infer`, { inputs: [{ name: 'x', datatype: 'FP32', shape: [2, 4], data: expected.x.flat() }] });
    expect(r.status, r.body).toBe(200);
    const out = (JSON.parse(r.body) as { outputs: { name: string; shape: number[]; data: number[] }[] }).outputs.find((o) => o.name === 'probabilities');
    expect(out?.shape).toEqual([2, 3]);
    expected.probabilities.flat().forEach((v, i) => expect(out!.data[i]).toBeCloseTo(v, 5));
    await node.kubectlOk(['delete', 'inferenceservice', 'dense', '-n', APP_NS, '--wait=true', '--timeout=60s'], { timeoutMs: 70_000 });
  });
});

async function controllerRestarts(): Promise<number> {
  const pods = (await getJson<{ items: Obj[] }>(['get', 'pods', '-n', NS, '-l', CONTROLLER_PODS])).items;
  return pods.reduce((n, p) => n + ((p.status.containerStatuses as { restartCount: number }[]) ?? []).reduce((m, c) => m + c.restartCount, 0), 0);
}
