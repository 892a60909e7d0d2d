/**
 * TrainedModels on a real kube-apiserver + etcd + kube-controller-manager (the harness),
 * reconciled by `kserve-ts controller` running as its ServiceAccount with the shipped RBAC,
 * its webhooks registered, a fake kubelet reporting pods. A multi-model ServingRuntime and
 * InferenceService, three TrainedModels applied with kubectl as written for KServe: the
 * ConfigMap modelconfig-<isvc>-0 in KServe's JSON, the predictor pod mounting it, KServe's
 * conditions, URL, finalizer and label; one deleted; the webhook's refusals with KServe's
 * messages; a single-model InferenceService untouched; the parent deleted.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { TrainedModel } from '../../controller/api/trained-model.js';
import { ROOT } from '../helpers/server.js';
import { type ControllerProcess, controllerSuiteHooks, startControllerSuite } from './controller-process.js';
import { type FakeKubelet, type TestControlPlane, waitFor } from './harness/index.js';
import { type Clients, getIsvc, isReady, isvcYaml, kubectlApply, kubectlApplyRejected, notFound, waitForIsvc } from './kube-test-helpers.js';

vi.setConfig({ testTimeout: 150_000 });

const NS = 'trainedmodels';
const CONFIG_YAML = readFileSync(path.join(ROOT, 'controller/runtimes/inferenceservice-config.yaml'), 'utf8');

let cp: TestControlPlane;
let c: Clients;
let kubelet: FakeKubelet;
let controller: ControllerProcess;

const tmApi = { group: 'serving.kserve.io', version: 'v1alpha1', namespace: NS, plural: 'trainedmodels' };
const getTm = async (name: string) => (await c.custom.getNamespacedCustomObject({ ...tmApi, name })) as TrainedModel;
const conditions = (tm: TrainedModel) => Object.fromEntries((tm.status?.conditions ?? []).map((x) => [x.type, x.status]));

function tmYaml(name: string, isvc: string, memory: string, storageUri = `s3://models/${name}`, framework = 'onnx'): string {
  return `apiVersion: serving.kserve.io/v1alpha1
kind: TrainedModel
metadata:
  name: ${name}
spec:
  inferenceService: ${isvc}
  model:
    storageUri: ${storageUri}
    framework: ${framework}
    memory: ${memory}
`;
}

async function modelsJson(isvc: string): Promise<unknown> {
  const cm: V1ConfigMap = await c.core.readNamespacedConfigMap({ name: `modelconfig-${isvc}-0`, namespace: NS });
  return JSON.parse(cm.data?.['models.json'] ?? 'null');
}

function waitForModels(isvc: string, names: readonly string[]): Promise<unknown> {
  return waitFor(() => modelsJson(isvc).catch(() => undefined), {
    until: (j) => Array.isArray(j) && JSON.stringify(j.map((e: { modelName: string }) => e.modelName)) === JSON.stringify(names),
    description: `modelconfig-${isvc}-0 lists ${names.join(', ') || 'nothing'}`,
    timeoutMs: 60_000,
    intervalMs: 250,
  });
}

const MMS_RUNTIME = `apiVersion: serving.kserve.io/v1alpha1
kind: ServingRuntime
metadata:
  name: kserve-ts-mms
spec:
  multiModel: true
  protocolVersions: [v1, v2]
  supportedModelFormats:
    - { name: onnx, version: "1" }
  containers:
    - name: kserve-container
      image: kserve-ts-server:0.1.0
      args: [serve, --model_dir=/mnt/models]
      ports:
        - { containerPort: 8080, name: http1, protocol: TCP }
      resources:
        limits: { cpu: "1", memory: 1Gi }
`;

beforeAll(async () => {
  ({ cp, c, kubelet, controller } = await startControllerSuite({ namespace: NS, identity: 'tm-replica', config: CONFIG_YAML }));
  await kubectlApply(cp, MMS_RUNTIME, NS);
  await kubectlApply(
    cp,
    isvcYaml(
      'mms',
      `  predictor:
    model:
      modelFormat: { name: onnx, version: "1" }
      runtime: kserve-ts-mms
`,
    ),
    NS,
  );
  await kubectlApply(
    cp,
    isvcYaml(
      'single',
      `  predictor:
    model:
      modelFormat: { name: onnx }
      storageUri: s3://models/single
`,
    ),
    NS,
  );
}, 45 * 60_000);

controllerSuiteHooks(() => ({ controller, kubelet, cp }));

describe('a multi-model InferenceService', () => {
  it('gets an empty modelconfig-<isvc>-0, owned by it, mounted by its predictor pod with --model_config_file', async () => {
    await waitForIsvc(c, NS, 'mms', isReady, 'Ready');
    expect(await waitForModels('mms', [])).toEqual([]);
    const cm = await c.core.readNamespacedConfigMap({ name: 'modelconfig-mms-0', namespace: NS });
    expect(cm.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'InferenceService', name: 'mms', controller: true });
    const pod = (await c.apps.readNamespacedDeployment({ name: 'mms-predictor', namespace: NS })).spec!.template.spec!;
    expect(pod.volumes).toEqual(expect.arrayContaining([{ name: 'model-config', configMap: { name: 'modelconfig-mms-0', defaultMode: 420 } }]));
    const main = pod.containers.find((x) => x.name === 'kserve-container')!;
    expect(main.args).toEqual(['serve', '--model_dir=/mnt/models', '--model_config_file=/mnt/configs/models.json']);
    expect(main.volumeMounts).toEqual(expect.arrayContaining([{ name: 'model-config', mountPath: '/mnt/configs', readOnly: true }]));
  });

  it("three TrainedModels: KServe's models.json, each Ready with its URL, finalizer and parent label", async () => {
    for (const [name, memory] of [
      ['model-b', '256Mi'],
      ['model-a', '256Mi'],
      ['model-c', '128Mi'],
    ] as const) {
      await kubectlApply(cp, tmYaml(name, 'mms', memory), NS);
    }
    expect(await waitForModels('mms', ['model-a', 'model-b', 'model-c'])).toEqual([
      { modelName: 'model-a', modelSpec: { storageUri: 's3://models/model-a', framework: 'onnx', memory: '256Mi' } },
      { modelName: 'model-b', modelSpec: { storageUri: 's3://models/model-b', framework: 'onnx', memory: '256Mi' } },
      { modelName: 'model-c', modelSpec: { storageUri: 's3://models/model-c', framework: 'onnx', memory: '128Mi' } },
    ]);
    const isvc = await getIsvc(c, NS, 'mms');
    for (const name of ['model-a', 'model-b', 'model-c']) {
      const tm = await waitFor(() => getTm(name), { until: (t) => conditions(t)['Ready'] === 'True', description: `${name} Ready`, timeoutMs: 60_000, intervalMs: 250 });
      expect(conditions(tm)).toEqual({ InferenceServiceReady: 'True', IsMMSPredictor: 'True', MemoryResourceAvailable: 'True', Ready: 'True' });
      expect(tm.status?.url).toBe(`${isvc.status!.url}/v1/models/${name}:predict`);
      expect(tm.status?.address?.url).toBe(`${isvc.status!.address!.url}/v1/models/${name}:predict`);
      expect(tm.metadata.finalizers).toEqual(['trainedmodel.finalizer']);
      expect(tm.metadata.labels).toMatchObject({ inferenceservice: 'mms' });
    }
    // kubectl's columns are KServe's.
    const table = await cp.kubectl(['get', 'tm', '-n', NS]);
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME\s+URL\s+READY\s+AGE$/);
  });

  it('a changed storageUri is written to the ConfigMap (a new version); the model keeps its place', async () => {
    await kubectlApply(cp, tmYaml('model-c', 'mms', '128Mi', 's3://models/model-c-v2'), NS);
    await waitFor(() => modelsJson('mms'), {
      until: (j) => JSON.stringify(j).includes('s3://models/model-c-v2'),
      description: 'model-c at its new storageUri',
      timeoutMs: 60_000,
      intervalMs: 250,
    });
    expect(((await modelsJson('mms')) as { modelName: string }[]).map((e) => e.modelName)).toEqual(['model-a', 'model-b', 'model-c']);
  });

  it("the webhook refuses with KServe's messages: a bad name, an unsupported storageUri, a changed memory", async () => {
    expect(await kubectlApplyRejected(cp, tmYaml('bad.name', 'mms', '1Mi'), NS)).toContain(
      `the Trained Model "bad.name" is invalid: a Trained Model name must consist of alphanumeric characters, '_', or '-'.`,
    );
    expect(await kubectlApplyRejected(cp, tmYaml('ftp-model', 'mms', '1Mi', 'ftp://host/m'), NS)).toContain(
      'the Trained Model "ftp-model" storageUri field is invalid. The storage uri must start with one of the prefixes: ',
    );
    expect(await kubectlApplyRejected(cp, tmYaml('model-a', 'mms', '512Mi'), NS)).toContain(
      'the Trained Model "model-a" memory field is immutable. The memory was "256Mi" but it is updated to "512Mi"',
    );
  });

  it('the webhook refuses a missing parent, a single-model parent, memory over the limit, a changed parent or framework', async () => {
    expect(await kubectlApplyRejected(cp, tmYaml('orphan', 'nowhere', '1Mi'), NS)).toContain('Inference Service "nowhere" is not found. Trained Model "orphan" cannot deploy');
    expect(await kubectlApplyRejected(cp, tmYaml('on-single', 'single', '1Mi'), NS)).toContain(
      'Inference Service "single" predictor is not configured for multi-model serving. Trained Model "on-single" cannot deploy',
    );
    // 256Mi + 256Mi + 128Mi are taken of the runtime's 1Gi limit.
    expect(await kubectlApplyRejected(cp, tmYaml('too-big', 'mms', '512Mi'), NS)).toContain(
      'Inference Service "mms" memory resources are not available. Trained Model "too-big" cannot deploy',
    );
    expect(await kubectlApplyRejected(cp, tmYaml('model-a', 'single', '256Mi'), NS)).toContain('the Trained Model "model-a" inferenceService field is immutable');
    expect(await kubectlApplyRejected(cp, tmYaml('model-a', 'mms', '256Mi', 's3://models/model-a', 'tensorflow'), NS)).toContain(
      'the Trained Model "model-a" framework field is immutable',
    );
    expect(await notFound(getTm('too-big'))).toBe(true);
  });

  it('deleting a TrainedModel takes it out of the ConfigMap, then the finalizer lets it go', async () => {
    const r = await cp.kubectl(['delete', 'tm', 'model-b', '-n', NS, '--wait=true', '--timeout=60s']);
    expect(r.code, r.stderr).toBe(0);
    expect(await notFound(getTm('model-b'))).toBe(true);
    expect(((await waitForModels('mms', ['model-a', 'model-c'])) as unknown[]).length).toBe(2);
  });
});

describe('memory', () => {
  it("a lower limit on the runtime: the model that no longer fits leaves the ConfigMap and says so in KServe's words", async () => {
    // model-a (256Mi, older) and model-c (128Mi) against 300Mi: model-c no longer fits.
    await kubectlApply(cp, MMS_RUNTIME.replace('memory: 1Gi', 'memory: 300Mi'), NS);
    expect(await waitForModels('mms', ['model-a'])).toEqual([{ modelName: 'model-a', modelSpec: { storageUri: 's3://models/model-a', framework: 'onnx', memory: '256Mi' } }]);
    const c = await waitFor(() => getTm('model-c'), {
      until: (t) => conditions(t)['MemoryResourceAvailable'] === 'False',
      description: 'model-c MemoryResourceAvailable=False',
      timeoutMs: 60_000,
      intervalMs: 250,
    });
    expect(c.status?.conditions?.find((x) => x.type === 'MemoryResourceAvailable')).toMatchObject({
      reason: 'MemoryResourceNotAvailable',
      message: 'Inference Service does not have enough memory resources for Trained Model',
    });
    expect(conditions(c)['Ready']).toBe('False');
    expect(conditions(await getTm('model-a'))['MemoryResourceAvailable']).toBe('True');
  });
});

describe('a single-model InferenceService', () => {
  it('has no model-config mount, flag or ConfigMap', async () => {
    await waitForIsvc(c, NS, 'single', isReady, 'Ready');
    const pod = (await c.apps.readNamespacedDeployment({ name: 'single-predictor', namespace: NS })).spec!.template.spec!;
    expect(JSON.stringify(pod)).not.toMatch(/model-config|model_config_file|\/mnt\/configs/);
    expect(await notFound(c.core.readNamespacedConfigMap({ name: 'modelconfig-single-0', namespace: NS }))).toBe(true);
  });
});

describe('the parent deleted', () => {
  it('its TrainedModels are deleted (as KServe) and its ConfigMap collected', async () => {
    const r = await cp.kubectl(['delete', 'isvc', 'mms', '-n', NS, '--wait=true', '--timeout=60s']);
    expect(r.code, r.stderr).toBe(0);
    await waitFor(() => c.custom.listNamespacedCustomObject(tmApi) as Promise<{ items: TrainedModel[] }>, {
      until: (l) => l.items.length === 0,
      description: 'no TrainedModels left',
      timeoutMs: 60_000,
      intervalMs: 250,
    });
    // The garbage collector's first pass waits for its discovery sync: slow on a cold control plane.
    await waitFor(() => notFound(c.core.readNamespacedConfigMap({ name: 'modelconfig-mms-0', namespace: NS })), {
      until: (gone) => gone,
      description: 'modelconfig-mms-0 collected',
      timeoutMs: 120_000,
      intervalMs: 250,
    });
  }, 240_000);
});
