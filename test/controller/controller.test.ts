/**
 * The controller end to end on a real kube-apiserver + etcd + kube-controller-manager
 * (test/controller/harness), with the webhooks registered against the controller
 * process and a fake kubelet reporting pod status. InferenceServices are applied with
 * kubectl exactly as written for KServe.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed, vi } from 'vitest';
import { ROOT } from '../helpers/server.js';
import { type ControllerProcess, serviceAccountKubeconfig, startController } from './controller-process.js';
import { type FakeKubelet, type TestControlPlane, startControlPlane, startFakeKubelet, waitFor } from './harness/index.js';
import {
  type Clients,
  clientsFor,
  conditionOf,
  createNamespace,
  getIsvc,
  isReady,
  isvcYaml,
  kubectlApply,
  kubectlApplyRejected,
  notFound,
  waitForIsvc,
} from './kube-test-helpers.js';

// Every test here waits on a real control plane that shares two cores with the rest of the
// suite: waits carry their own deadlines (and report what they last saw), so the test
// deadline only has to be longer than those.
vi.setConfig({ testTimeout: 150_000 });

const RUNTIME_YAML = readFileSync(path.join(ROOT, 'controller/runtimes/kserve-ts.yaml'), 'utf8');
const CONFIG_YAML = readFileSync(path.join(ROOT, 'controller/runtimes/inferenceservice-config.yaml'), 'utf8');

let cp: TestControlPlane;
let c: Clients;
let kubelet: FakeKubelet;
let controller: ControllerProcess;
let controllerKubeconfig: string;

beforeAll(async () => {
  cp = await startControlPlane();
  c = clientsFor(cp);
  await createNamespace(c, 'kserve');
  await kubectlApply(cp, CONFIG_YAML);
  kubelet = await startFakeKubelet(cp.kubeConfig, {
    // A storage URI naming a missing model fails the download, as the real
    // storage-initializer does, with its message as the termination message.
    initFailure: (pod: V1Pod) => {
      const uri = pod.spec?.initContainers?.find((i) => i.name === 'storage-initializer')?.args?.[0] ?? '';
      return uri.includes('missing') ? { exitCode: 1, message: `storage-initializer: no objects found under ${uri}` } : undefined;
    },
    // An image named "crashing" exits at start, as a server that cannot load its model does.
    containerFailure: (pod: V1Pod) =>
      pod.spec?.containers.some((k) => k.image?.includes('crashing'))
        ? { container: 'kserve-container', exitCode: 1, message: 'Error: /mnt/models/model.onnx: protobuf parsing failed' }
        : undefined,
  });
  // The controller runs as its ServiceAccount with the shipped RBAC (CRD install and
  // webhook registration included), so a missing rule fails these tests.
  await kubectlApply(cp, readFileSync(path.join(ROOT, 'controller/deploy/rbac.yaml'), 'utf8'));
  controllerKubeconfig = await serviceAccountKubeconfig(cp, 'kserve', 'kserve-ts-controller');
  controller = await startController(cp, 'replica-a', [], controllerKubeconfig);
  await kubectlApply(cp, RUNTIME_YAML);
}, 45 * 60_000);

// On a failure, show what the controller was doing: its log is the first thing to read.
beforeEach(() => {
  onTestFailed(() => {
    process.stderr.write(`--- controller ${controller?.identity} log (tail) ---\n${controller?.cli.output().slice(-6000) ?? ''}\n`);
  });
});

afterAll(async () => {
  await controller?.stop();
  await kubelet?.stop();
  await cp?.stop();
}, 60_000);

describe('Standard mode', () => {
  const ns = 'standard';
  beforeAll(async () => {
    await createNamespace(c, ns);
  });

  it('an onnx InferenceService written for KServe becomes Deployment + Service + HPA and a Ready status', async () => {
    await kubectlApply(
      cp,
      isvcYaml(
        'mnist',
        `  predictor:
    minReplicas: 1
    maxReplicas: 3
    model:
      modelFormat:
        name: onnx
      storageUri: s3://models/mnist/1
`,
        { 'serving.kserve.io/deploymentMode': 'RawDeployment' },
      ),
      ns,
    );
    const isvc = await waitForIsvc(c, ns, 'mnist', isReady, 'Ready');
    expect(isvc.status?.deploymentMode).toBe('Standard');
    expect(isvc.status?.clusterServingRuntimeName).toBe('kserve-ts');
    expect(isvc.status?.url).toBe('http://mnist-standard.example.com');
    expect(isvc.status?.address?.url).toBe('http://mnist-predictor.standard.svc.cluster.local');
    expect(conditionOf(isvc, 'PredictorReady')?.status).toBe('True');
    expect(conditionOf(isvc, 'IngressReady')?.status).toBe('True');
    expect(isvc.status?.modelStatus).toMatchObject({ transitionStatus: 'UpToDate', states: { activeModelState: 'Loaded' } });

    const dep = await c.apps.readNamespacedDeployment({ name: 'mnist-predictor', namespace: ns });
    expect(dep.metadata?.labels).toMatchObject({ 'serving.kserve.io/inferenceservice': 'mnist', component: 'predictor', app: 'isvc.mnist-predictor' });
    expect(dep.spec?.selector.matchLabels).toEqual({ app: 'isvc.mnist-predictor' });
    expect(dep.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'InferenceService', name: 'mnist', controller: true });
    const container = dep.spec?.template.spec?.containers[0];
    expect(container?.name).toBe('kserve-container');
    expect(container?.args).toEqual(['--model_name=mnist', '--model_dir=/mnt/models', '--http_port=8080', '--grpc_port=8081']);
    expect(container?.env).toContainEqual({ name: 'STORAGE_URI', value: 's3://models/mnist/1' });
    expect(dep.spec?.template.metadata?.annotations?.['internal.serving.kserve.io/storage-initializer-sourceuri']).toBe('s3://models/mnist/1');

    const svc = await c.core.readNamespacedService({ name: 'mnist-predictor', namespace: ns });
    expect(svc.spec?.ports?.[0]).toMatchObject({ port: 80, targetPort: 8080 });
    expect(svc.spec?.selector).toEqual({ app: 'isvc.mnist-predictor' });

    const hpa = await c.autoscaling.readNamespacedHorizontalPodAutoscaler({ name: 'mnist-predictor', namespace: ns });
    expect(hpa.spec).toMatchObject({ minReplicas: 1, maxReplicas: 3, scaleTargetRef: { kind: 'Deployment', name: 'mnist-predictor' } });
    expect(hpa.spec?.metrics?.[0]?.resource).toMatchObject({ name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } });

    // The pod went through the mutating webhook: storage-initializer injected.
    const pods = await c.core.listNamespacedPod({ namespace: ns, labelSelector: 'serving.kserve.io/inferenceservice=mnist' });
    const pod = pods.items[0]!;
    const init = pod.spec?.initContainers?.find((i) => i.name === 'storage-initializer');
    expect(init?.args).toEqual(['s3://models/mnist/1', '/mnt/models']);
    expect(init?.image).toBe('kserve-ts-storage-initializer:0.1.0');
    expect(pod.spec?.volumes?.map((v) => v.name)).toContain('kserve-provision-location');
    const mount = pod.spec?.containers.find((x) => x.name === 'kserve-container')?.volumeMounts?.find((m) => m.name === 'kserve-provision-location');
    expect(mount).toMatchObject({ mountPath: '/mnt/models', readOnly: true });
  });

  it('a tensorflow InferenceService with scaleMetric/scaleTarget and pinned replicas', async () => {
    await kubectlApply(
      cp,
      isvcYaml(
        'flowers',
        `  predictor:
    scaleMetric: memory
    scaleTarget: 60
    minReplicas: 1
    maxReplicas: 4
    tensorflow:
      storageUri: gs://kfserving-examples/models/tensorflow/flowers
`,
      ),
      ns,
    );
    const isvc = await waitForIsvc(c, ns, 'flowers', isReady, 'Ready');
    expect(isvc.status?.clusterServingRuntimeName).toBe('kserve-ts');
    const hpa = await c.autoscaling.readNamespacedHorizontalPodAutoscaler({ name: 'flowers-predictor', namespace: ns });
    expect(hpa.spec?.metrics?.[0]?.resource).toMatchObject({ name: 'memory', target: { averageUtilization: 60 } });

    // Pinning min == max removes the HPA and puts the count on the Deployment.
    await cp.kubectl(['patch', 'isvc', 'flowers', '-n', ns, '--type=merge', '-p', '{"spec":{"predictor":{"minReplicas":2,"maxReplicas":2}}}']);
    await waitFor(() => notFound(c.autoscaling.readNamespacedHorizontalPodAutoscaler({ name: 'flowers-predictor', namespace: ns })), { description: 'HPA deleted' });
    const dep = await waitFor(() => c.apps.readNamespacedDeployment({ name: 'flowers-predictor', namespace: ns }), {
      until: (d) => d.spec?.replicas === 2,
      description: 'replicas 2',
    });
    expect(dep.spec?.replicas).toBe(2);
  });

  it('a transformer gets its own Deployment and Service, points at the predictor, and fronts the address', async () => {
    await kubectlApply(
      cp,
      isvcYaml(
        'pipeline',
        `  predictor:
    model:
      modelFormat: { name: onnx }
      storageUri: s3://models/pipeline
  transformer:
    containers:
      - name: kserve-container
        image: example/image-transformer:1
`,
      ),
      ns,
    );
    const isvc = await waitForIsvc(c, ns, 'pipeline', isReady, 'Ready');
    expect(conditionOf(isvc, 'TransformerReady')?.status).toBe('True');
    expect(isvc.status?.address?.url).toBe('http://pipeline-transformer.standard.svc.cluster.local');
    const dep = await c.apps.readNamespacedDeployment({ name: 'pipeline-transformer', namespace: ns });
    expect(dep.metadata?.labels).toMatchObject({ component: 'transformer', app: 'isvc.pipeline-transformer' });
    expect(dep.spec?.template.spec?.containers[0]?.args).toEqual(['--model_name', 'pipeline', '--predictor_host', `pipeline-predictor.${ns}`, '--http_port', '8080']);
    const svc = await c.core.readNamespacedService({ name: 'pipeline-transformer', namespace: ns });
    expect(svc.spec?.selector).toEqual({ app: 'isvc.pipeline-transformer' });
  });

  it('a failing storage-initializer surfaces as ModelLoadFailed with its termination message', async () => {
    await kubectlApply(cp, isvcYaml('broken', `  predictor:\n    model:\n      modelFormat: { name: onnx }\n      storageUri: s3://models/missing\n`), ns);
    const isvc = await waitForIsvc(c, ns, 'broken', (i) => i.status?.modelStatus?.lastFailureInfo?.reason === 'ModelLoadFailed', 'ModelLoadFailed');
    expect(isvc.status?.modelStatus).toMatchObject({
      transitionStatus: 'BlockedByFailedLoad',
      states: { targetModelState: 'FailedToLoad' },
      lastFailureInfo: { reason: 'ModelLoadFailed', exitCode: 1, message: 'storage-initializer: no objects found under s3://models/missing' },
    });
    expect(conditionOf(isvc, 'Ready')?.status).not.toBe('True');
    // The component's condition says it too (#27), not only "MinimumReplicasUnavailable".
    const predictor = await waitForIsvc(c, ns, 'broken', (i) => conditionOf(i, 'PredictorReady')?.reason === 'InitContainerFailed', 'PredictorReady InitContainerFailed');
    expect(conditionOf(predictor, 'PredictorReady')?.message).toMatch(
      /^pod broken-predictor-\S+, init container storage-initializer: exited: Error, exit code 1: storage-initializer: no objects found under s3:\/\/models\/missing$/,
    );
  });

  it("a predictor that fits no node says why: the scheduler's message in PredictorReady and Ready (#27)", async () => {
    await kubectlApply(
      cp,
      isvcYaml(
        'too-big',
        `  predictor:
    model:
      modelFormat: { name: onnx }
      storageUri: s3://models/mnist/1
      resources: { requests: { cpu: "64", memory: 1Gi }, limits: { cpu: "64", memory: 1Gi } }
`,
      ),
      ns,
    );
    const isvc = await waitForIsvc(c, ns, 'too-big', (i) => conditionOf(i, 'PredictorReady')?.reason === 'Unschedulable', 'PredictorReady Unschedulable');
    const predictor = conditionOf(isvc, 'PredictorReady');
    // Scheduling may still succeed (a node added, another pod gone): not ready yet, not failed.
    expect(predictor?.status).toBe('Unknown');
    expect(predictor?.message).toMatch(/^pod too-big-predictor-[a-z0-9]+-[a-z0-9]+ cannot be scheduled: 0\/1 nodes are available: 1 Insufficient cpu\./);
    const ready = conditionOf(isvc, 'Ready');
    expect(ready).toMatchObject({ status: 'False', reason: 'Predictor ingress not created' });
    expect(ready?.message).toBe(`predictor not ready: Unschedulable: ${predictor?.message}`);
  });

  it('a predictor container in CrashLoopBackOff says so with its last exit (#27)', async () => {
    await kubectlApply(
      cp,
      isvcYaml(
        'crashing',
        `  predictor:
    containers:
      - name: kserve-container
        image: example.com/crashing-server:1
        resources: { requests: { cpu: 100m, memory: 128Mi } }
`,
      ),
      ns,
    );
    const isvc = await waitForIsvc(c, ns, 'crashing', (i) => conditionOf(i, 'PredictorReady')?.reason === 'CrashLoopBackOff', 'PredictorReady CrashLoopBackOff');
    expect(conditionOf(isvc, 'PredictorReady')?.message).toMatch(
      /^pod crashing-predictor-[a-z0-9]+-[a-z0-9]+, container kserve-container: keeps failing; last exit: Error, exit code 1: Error: \/mnt\/models\/model\.onnx: protobuf parsing failed$/,
    );
    expect(conditionOf(isvc, 'Ready')?.message).toContain('predictor not ready: CrashLoopBackOff: pod crashing-predictor-');
  });

  it('an oci:// model becomes a modelcar pod once enableModelcar is set in the ConfigMap', async () => {
    const withModelcars = CONFIG_YAML.replace('"cpuLimit": "1" }', '"cpuLimit": "1", "enableModelcar": true }');
    expect(withModelcars).not.toBe(CONFIG_YAML);
    await kubectlApply(cp, withModelcars);
    try {
      await kubectlApply(cp, isvcYaml('carried', `  predictor:\n    model:\n      modelFormat: { name: onnx }\n      storageUri: oci://registry.local/models/mnist:1\n`), ns);
      // The webhook reads the ConfigMap as it changes; a pod refused before it saw the change is retried by the ReplicaSet.
      const pod = await waitFor(async () => (await c.core.listNamespacedPod({ namespace: ns, labelSelector: 'serving.kserve.io/inferenceservice=carried' })).items[0], {
        until: (p) => p !== undefined,
        description: 'the modelcar pod',
        timeoutMs: 90_000,
      });
      expect(pod.spec?.shareProcessNamespace).toBe(true);
      expect(pod.spec?.initContainers?.map((i) => i.name)).toEqual(['modelcar-init']);
      expect(pod.spec?.containers.map((x) => x.name)).toEqual(['kserve-container', 'modelcar']);
      const server = pod.spec!.containers[0]!;
      expect(server.args).toContain('--model_dir=/mnt/models');
      expect(server.volumeMounts?.find((m) => m.name === 'kserve-provision-location')).toMatchObject({ mountPath: '/mnt' });
      expect(pod.spec!.containers[1]!.image).toBe('registry.local/models/mnist:1');
    } finally {
      await kubectlApply(cp, CONFIG_YAML);
    }
  });

  it('deleting the InferenceService cascades to everything it owns', async () => {
    await kubectlApply(cp, isvcYaml('doomed', `  predictor:\n    maxReplicas: 2\n    model:\n      modelFormat: { name: onnx }\n      storageUri: s3://models/doomed\n`), ns);
    await waitForIsvc(c, ns, 'doomed', isReady, 'Ready');
    const r = await cp.kubectl(['delete', 'isvc', 'doomed', '-n', ns, '--wait=true']);
    expect(r.code).toBe(0);
    await waitFor(
      async () =>
        (await notFound(c.apps.readNamespacedDeployment({ name: 'doomed-predictor', namespace: ns }))) &&
        (await notFound(c.core.readNamespacedService({ name: 'doomed-predictor', namespace: ns }))) &&
        (await notFound(c.autoscaling.readNamespacedHorizontalPodAutoscaler({ name: 'doomed-predictor', namespace: ns }))),
      { description: 'owned objects garbage-collected', timeoutMs: 60_000 },
    );
  }, 90_000);
});

describe('runtime selection end to end', () => {
  const ns = 'runtimes';
  beforeAll(async () => {
    await createNamespace(c, ns);
  });

  const cases: [string, string, string][] = [
    ['no-format', 'NoSupportingRuntime', `    model:\n      modelFormat: { name: xgboost }\n      storageUri: s3://m/x\n`],
    ['no-runtime', 'RuntimeNotRecognized', `    model:\n      modelFormat: { name: onnx }\n      runtime: not-installed\n      storageUri: s3://m/x\n`],
    ['bad-version', 'NoSupportingRuntime', `    model:\n      modelFormat: { name: onnx, version: "7" }\n      storageUri: s3://m/x\n`],
    ['bad-protocol', 'NoSupportingRuntime', `    model:\n      modelFormat: { name: onnx }\n      protocolVersion: grpc-v1\n      storageUri: s3://m/x\n`],
  ];
  it.each(cases)('%s → %s', async (name, reason, spec) => {
    await kubectlApply(cp, isvcYaml(name, `  predictor:\n${spec}`), ns);
    const isvc = await waitForIsvc(c, ns, name, (i) => i.status?.modelStatus?.lastFailureInfo?.reason === reason, reason);
    expect(conditionOf(isvc, 'PredictorReady')).toMatchObject({ status: 'False', reason });
    expect(isvc.status?.modelStatus?.transitionStatus).toBe('InvalidSpec');
    expect(await notFound(c.apps.readNamespacedDeployment({ name: `${name}-predictor`, namespace: ns }))).toBe(true);
  });

  it('a disabled runtime → RuntimeDisabled; enabling it recovers without touching the InferenceService', async () => {
    await kubectlApply(
      cp,
      `apiVersion: serving.kserve.io/v1alpha1
kind: ServingRuntime
metadata: { name: team-onnx }
spec:
  disabled: true
  supportedModelFormats: [{ name: onnx, autoSelect: true }]
  containers: [{ name: kserve-container, image: team/onnx:1, args: ["--model_name={{.Name}}", "--ns={{.Namespace}}"] }]
`,
      ns,
    );
    await kubectlApply(cp, isvcYaml('pinned', `  predictor:\n    model:\n      modelFormat: { name: onnx }\n      runtime: team-onnx\n      storageUri: s3://m/pinned\n`), ns);
    await waitForIsvc(c, ns, 'pinned', (i) => i.status?.modelStatus?.lastFailureInfo?.reason === 'RuntimeDisabled', 'RuntimeDisabled');
    await cp.kubectl(['patch', 'servingruntime', 'team-onnx', '-n', ns, '--type=merge', '-p', '{"spec":{"disabled":false}}']);
    const isvc = await waitForIsvc(c, ns, 'pinned', isReady, 'Ready after enabling the runtime');
    expect(isvc.status?.servingRuntimeName).toBe('team-onnx');
    const dep = await c.apps.readNamespacedDeployment({ name: 'pinned-predictor', namespace: ns });
    expect(dep.spec?.template.spec?.containers[0]?.args).toEqual(['--model_name=pinned', `--ns=${ns}`]);
  });

  it('a namespaced runtime wins over the cluster runtime whatever the priority', async () => {
    // team-onnx (namespaced, autoSelect, no priority) now enabled: auto-selection picks it
    // over the cluster runtime kserve-ts (priority 3).
    await kubectlApply(cp, isvcYaml('auto', `  predictor:\n    model:\n      modelFormat: { name: onnx }\n      storageUri: s3://m/auto\n`), ns);
    const isvc = await waitForIsvc(c, ns, 'auto', (i) => i.status?.servingRuntimeName !== undefined, 'runtime chosen');
    expect(isvc.status?.servingRuntimeName).toBe('team-onnx');
    expect(isvc.status?.clusterServingRuntimeName).toBeUndefined();
  });
});

describe('GPU predictors: the runtime is chosen by the accelerator the predictor requests', () => {
  const ns = 'gpu';
  beforeAll(async () => {
    await createNamespace(c, ns);
  });
  const args = (name: string) => [`--model_name=${name}`, '--model_dir=/mnt/models', '--http_port=8080', '--grpc_port=8081'];
  /** Applies an onnx predictor with `resources` (YAML lines), waits for Ready: its runtime and its serving container. */
  async function deploy(name: string, resources: string) {
    const spec = `  predictor:\n    model:\n      modelFormat: { name: onnx }\n      storageUri: s3://models/resnet\n${resources}`;
    await kubectlApply(cp, isvcYaml(name, spec), ns);
    const isvc = await waitForIsvc(c, ns, name, isReady, 'Ready');
    const dep = await c.apps.readNamespacedDeployment({ name: `${name}-predictor`, namespace: ns });
    return { runtime: isvc.status?.clusterServingRuntimeName, container: dep.spec?.template.spec?.containers[0] };
  }

  it('requesting nvidia.com/gpu gets the CUDA runtime: its image, --execution_providers=cuda,cpu and the GPU, with no args written', async () => {
    const { runtime, container } = await deploy('resnet-gpu', '      resources:\n        limits: { nvidia.com/gpu: "1" }\n');
    expect(runtime).toBe('kserve-ts-gpu');
    expect(container?.image).toBe('kserve-ts-server-cuda:0.1.0');
    expect(container?.args).toEqual([...args('resnet-gpu'), '--execution_providers=cuda,cpu']);
    // The predictor's request merged over the runtime's resources: the GPU stays requested.
    expect(container?.resources).toEqual({ requests: { cpu: '1', memory: '2Gi' }, limits: { cpu: '4', memory: '8Gi', 'nvidia.com/gpu': '1' } });
  });

  it('the same predictor without a GPU gets the CPU runtime and image, and no provider flag', async () => {
    const { runtime, container } = await deploy('resnet-cpu', '');
    expect(runtime).toBe('kserve-ts');
    expect(container?.image).toBe('kserve-ts-server:0.1.0');
    expect(container?.args).toEqual(args('resnet-cpu'));
    expect(JSON.stringify(container?.resources)).not.toContain('nvidia.com/gpu');
  });
});

describe('validation', () => {
  const ns = 'validation';
  beforeAll(async () => {
    await createNamespace(c, ns);
  });

  it('the CRD rejects fields kserve-ts does not implement, with a message saying so', async () => {
    const err = await kubectlApplyRejected(
      cp,
      isvcYaml('explained', `  predictor:\n    model:\n      modelFormat: { name: onnx }\n      storageUri: s3://m/x\n  explainer:\n    art: { type: SquareAttack }\n`),
      ns,
    );
    expect(err).toContain('built-in explainers (explainer.art, explainer.alibi) are not supported by kserve-ts');
    const unknown = await kubectlApplyRejected(cp, isvcYaml('typo', `  predictor:\n    modle:\n      modelFormat: { name: onnx }\n`), ns);
    expect(unknown).toMatch(/unknown field "spec.predictor.modle"/);
  });

  it('the validating webhook rejects bad replicas and unsupported storage schemes', async () => {
    const replicas = await kubectlApplyRejected(
      cp,
      isvcYaml('reps', `  predictor:\n    minReplicas: 5\n    maxReplicas: 2\n    model:\n      modelFormat: { name: onnx }\n      storageUri: s3://m/x\n`),
      ns,
    );
    expect(replicas).toMatch(/minReplicas/);
    const scheme = await kubectlApplyRejected(cp, isvcYaml('ftp', `  predictor:\n    model:\n      modelFormat: { name: onnx }\n      storageUri: ftp://nn/models\n`), ns);
    expect(scheme).toMatch(/ftp/);
  });

  it('the deployment mode is immutable once recorded', async () => {
    await kubectlApply(
      cp,
      isvcYaml('fixed', `  predictor:\n    model:\n      modelFormat: { name: onnx }\n      storageUri: s3://m/fixed\n`, { 'serving.kserve.io/deploymentMode': 'Standard' }),
      ns,
    );
    await waitForIsvc(c, ns, 'fixed', (i) => i.status?.deploymentMode === 'Standard', 'mode recorded');
    const r = await cp.kubectl(['annotate', 'isvc', 'fixed', '-n', ns, '--overwrite', 'serving.kserve.io/deploymentMode=Knative']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/deploymentMode/);
  });

  it('Knative mode without Knative installed is a clear terminal condition', async () => {
    await kubectlApply(
      cp,
      isvcYaml('serverless', `  predictor:\n    model:\n      modelFormat: { name: onnx }\n      storageUri: s3://m/x\n`, { 'serving.kserve.io/deploymentMode': 'Serverless' }),
      ns,
    );
    const isvc = await waitForIsvc(c, ns, 'serverless', (i) => conditionOf(i, 'PredictorReady')?.reason === 'KnativeNotInstalled', 'KnativeNotInstalled');
    expect(isvc.status?.deploymentMode).toBe('Knative');
    expect(conditionOf(isvc, 'Ready')).toMatchObject({ status: 'False', reason: 'KnativeNotInstalled' });
    expect(conditionOf(isvc, 'PredictorReady')?.message).toMatch(/Knative Serving CRD .* not installed/);
  });
});

describe('resilience', () => {
  const ns = 'resilience';
  beforeAll(async () => {
    await createNamespace(c, ns);
  });

  it('a controller restart creates no duplicates and rewrites nothing', async () => {
    await kubectlApply(cp, isvcYaml('steady', `  predictor:\n    maxReplicas: 2\n    model:\n      modelFormat: { name: onnx }\n      storageUri: s3://m/steady\n`), ns);
    await waitForIsvc(c, ns, 'steady', isReady, 'Ready', 90_000);
    const before = await c.apps.readNamespacedDeployment({ name: 'steady-predictor', namespace: ns });
    const isvcBefore = await getIsvc(c, ns, 'steady');
    expect(await controller.stop()).toBe(0);
    controller = await startController(cp, 'replica-a2', [], controllerKubeconfig);
    await controller.cli.waitForLog((l) => l['msg'] === 'controller caches synced; reconciling', 60_000);
    // The restarted controller has reconciled this InferenceService once (its own log line
    // after every write of the pass), whatever the time that took.
    await controller.cli.waitForLog((l) => l['msg'] === 'reconciled' && l['kind'] === 'InferenceService' && l['key'] === `${ns}/steady`, 90_000);
    const deps = await c.apps.listNamespacedDeployment({ namespace: ns, labelSelector: 'serving.kserve.io/inferenceservice=steady' });
    expect(deps.items).toHaveLength(1);
    expect(deps.items[0]?.metadata?.resourceVersion).toBe(before.metadata?.resourceVersion);
    expect(deps.items[0]?.metadata?.generation).toBe(before.metadata?.generation);
    const isvcAfter = await getIsvc(c, ns, 'steady');
    expect(isvcAfter.metadata.resourceVersion).toBe(isvcBefore.metadata.resourceVersion);
  });

  it('the API server restarting mid-reconcile: the controller reconnects and finishes', async () => {
    await kubectlApply(cp, isvcYaml('restart', `  predictor:\n    model:\n      modelFormat: { name: onnx }\n      storageUri: s3://m/restart\n`), ns);
    await cp.stopApiServer();
    await new Promise((r) => setTimeout(r, 2000));
    await cp.startApiServer();
    const isvc = await waitForIsvc(c, ns, 'restart', isReady, 'Ready after the API server restart', 90_000);
    expect(isvc.status?.clusterServingRuntimeName).toBe('kserve-ts');
    // And watches work again: a new object after the restart is reconciled too.
    await kubectlApply(cp, isvcYaml('after', `  predictor:\n    model:\n      modelFormat: { name: onnx }\n      storageUri: s3://m/after\n`), ns);
    await waitForIsvc(c, ns, 'after', isReady, 'Ready', 90_000);
  });

  it('the webhook server restarting: admission fails clearly while it is down, then works again', async () => {
    expect(await controller.stop()).toBe(0);
    // failurePolicy Fail: with no webhook, the API server refuses the object and says why.
    const down = await kubectlApplyRejected(cp, isvcYaml('webhook-down', `  predictor:\n    model:\n      modelFormat: { name: onnx }\n      storageUri: s3://m/w\n`), ns);
    expect(down).toMatch(/failed calling webhook "[^"]*inferenceservice[^"]*"/);
    controller = await startController(cp, 'replica-a3', [], controllerKubeconfig);
    await controller.cli.waitForLog((l) => l['msg'] === 'controller caches synced; reconciling', 60_000);
    // The restarted server registers itself again; the API server reaches it (ISVC and pod webhooks).
    await waitFor(
      async () =>
        (
          await cp.kubectl(['apply', '-n', ns, '-f', '-'], {
            input: isvcYaml('webhook-back', `  predictor:\n    model:\n      modelFormat: { name: onnx }\n      storageUri: s3://m/w\n`),
          })
        ).code,
      {
        until: (code) => code === 0,
        description: 'the ISVC admitted by the restarted webhook server',
      },
    );
    const isvc = await waitForIsvc(c, ns, 'webhook-back', isReady, 'Ready', 90_000);
    expect(isvc.metadata.annotations?.['modelFormat']).toBe('onnx');
    const pods = await c.core.listNamespacedPod({ namespace: ns, labelSelector: 'serving.kserve.io/inferenceservice=webhook-back' });
    expect(pods.items[0]?.spec?.initContainers?.map((i) => i.name)).toContain('storage-initializer');
  });

  it('two replicas: one leads, the other takes over when it stops', async () => {
    const second = await startController(cp, 'replica-b', [], controllerKubeconfig);
    try {
      const lease = await waitFor(() => c.coordination.readNamespacedLease({ name: 'kserve-ts-controller', namespace: 'kserve' }), {
        until: (l) => l.spec?.holderIdentity === controller.identity,
        description: 'the first replica holds the lease',
      });
      expect(lease.spec?.holderIdentity).toBe(controller.identity);
      const leaderGauge = async (port: number): Promise<string> => {
        const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        return /^kserve_ts_controller_is_leader (\d)$/m.exec(text)?.[1] ?? '?';
      };
      expect(await leaderGauge(controller.healthPort)).toBe('1');
      expect(await leaderGauge(second.healthPort)).toBe('0');
      expect(second.cli.output()).not.toContain('controller caches synced');
      // Created while both run: only the leader reconciles it.
      await kubectlApply(cp, isvcYaml('dual', `  predictor:\n    model:\n      modelFormat: { name: onnx }\n      storageUri: s3://m/dual\n`), ns);
      await waitForIsvc(c, ns, 'dual', isReady, 'Ready with two replicas running');
      expect(second.cli.output()).not.toContain('"isvc":"resilience/dual"');
      // Both replicas answer readiness (both serve webhooks).
      expect((await fetch(`http://127.0.0.1:${second.healthPort}/readyz`)).status).toBe(200);

      expect(await controller.stop()).toBe(0);
      await second.cli.waitForLog((l) => l['msg'] === 'controller caches synced; reconciling', 30_000);
      await waitFor(() => c.coordination.readNamespacedLease({ name: 'kserve-ts-controller', namespace: 'kserve' }), {
        until: (l) => l.spec?.holderIdentity === 'replica-b',
        description: 'replica-b holds the lease',
      });
      await kubectlApply(cp, isvcYaml('failover', `  predictor:\n    model:\n      modelFormat: { name: onnx }\n      storageUri: s3://m/failover\n`), ns);
      await waitForIsvc(c, ns, 'failover', isReady, 'Ready under the new leader');
      // One set of objects per ISVC whoever reconciled it, each written by the one field manager.
      for (const isvc of ['dual', 'failover']) {
        const selector = { namespace: ns, labelSelector: `serving.kserve.io/inferenceservice=${isvc}` };
        const [deps, svcs, hpas] = await Promise.all([
          c.apps.listNamespacedDeployment(selector),
          c.core.listNamespacedService(selector),
          c.autoscaling.listNamespacedHorizontalPodAutoscaler(selector),
        ]);
        expect([deps.items.length, svcs.items.length, hpas.items.length], isvc).toEqual([1, 1, 1]);
        expect(deps.items[0]?.metadata?.managedFields?.filter((f) => f.operation === 'Apply').map((f) => f.manager)).toEqual(['kserve-ts-controller']);
      }
    } finally {
      // Whatever failed above, leave exactly one tracked controller running.
      if (controller.cli.child.exitCode === null) await controller.stop();
      controller = second;
    }
  });
});
