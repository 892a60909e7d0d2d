/**
 * Standard mode scaling on a real kube-apiserver (issue #31): the HPA built from
 * `autoScaling` (each metric type, behavior), `scaleMetricType` and `deploymentStrategy`; a
 * KEDA ScaledObject for `autoscalerClass: keda`, first without KEDA's CRD (a terminal
 * condition that says so), then with it; `serving.kserve.io/stop` and its removal; and the
 * webhook's refusals with KServe's messages. The controller runs as its ServiceAccount with
 * the shipped RBAC, so a missing rule (scaledobjects) fails here. KEDA's operator does not
 * run: the tests check what the controller asks of it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { NetworkingV1Api, type V2HorizontalPodAutoscaler } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { InferenceService } from '../../controller/api/inference-service.js';
import type { ScaledObject } from '../../controller/reconcile/standard/scaled-object.js';
import { ROOT } from '../helpers/server.js';
import { type ControllerProcess, controllerSuiteHooks, startControllerSuite } from './controller-process.js';
import { type FakeKubelet, type TestControlPlane, waitFor } from './harness/index.js';
import { type Clients, conditionOf, isReady, isvcYaml, kubectlApply, kubectlApplyRejected, notFound, standardConfigYaml, waitForIsvc } from './kube-test-helpers.js';

vi.setConfig({ testTimeout: 150_000 });

const NS = 'scaling';
const KEDA = { 'serving.kserve.io/autoscalerClass': 'keda' };
let cp: TestControlPlane;
let c: Clients;
let net: NetworkingV1Api;
let kubelet: FakeKubelet;
let controller: ControllerProcess;

const scaledObjects = { group: 'keda.sh', version: 'v1alpha1', namespace: NS, plural: 'scaledobjects' };

const CONFIG = standardConfigYaml({}, { autoscaler: { scaleUpStabilizationWindowSeconds: '0', scaleDownStabilizationWindowSeconds: '300' } });

const ONNX = `    model:
      modelFormat: { name: onnx }
      storageUri: s3://models/x
`;

const readHpa = (name: string): Promise<V2HorizontalPodAutoscaler> => c.autoscaling.readNamespacedHorizontalPodAutoscaler({ name, namespace: NS });
const readScaledObject = async (name: string): Promise<ScaledObject> => (await c.custom.getNamespacedCustomObject({ ...scaledObjects, name })) as ScaledObject;
const patchIsvc = async (name: string, patch: unknown): Promise<void> => {
  const r = await cp.kubectl(['patch', 'isvc', name, '-n', NS, '--type=merge', '-p', JSON.stringify(patch)]);
  expect(r.code, r.stderr).toBe(0);
};

beforeAll(async () => {
  ({ cp, c, kubelet, controller } = await startControllerSuite({ namespace: NS, identity: 'scaling-replica', config: CONFIG }));
  net = cp.kubeConfig.makeApiClient(NetworkingV1Api);
}, 45 * 60_000);

controllerSuiteHooks(() => ({ controller, kubelet, cp }));

describe('HPA (autoscalerClass hpa, the default)', () => {
  it('autoScaling Resource metrics and behavior, scaleMetricType, deploymentStrategy and Prometheus scraping reach the objects; updates follow', async () => {
    await kubectlApply(
      cp,
      isvcYaml(
        'hpa',
        `  predictor:
    minReplicas: 2
    maxReplicas: 6
    deploymentStrategy:
      type: Recreate
    autoScaling:
      metrics:
        - type: Resource
          resource: { name: cpu, target: { type: Utilization, averageUtilization: 60 } }
        - type: Resource
          resource: { name: memory, target: { type: AverageValue, averageValue: 1Gi } }
      behavior:
        scaleDown:
          stabilizationWindowSeconds: 60
          policies: [{ type: Pods, value: 1, periodSeconds: 30 }]
${ONNX}  transformer:
    scaleMetric: memory
    scaleMetricType: AverageValue
    scaleTarget: 512
    maxReplicas: 3
    containers:
      - name: kserve-container
        image: transformer:1
`,
        { 'serving.kserve.io/enable-prometheus-scraping': 'true' },
      ),
      NS,
    );
    const hpa = await waitFor(() => readHpa('hpa-predictor'), { description: 'predictor HPA' });
    expect(hpa.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'InferenceService', name: 'hpa', controller: true });
    expect(hpa.spec).toMatchObject({
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'hpa-predictor' },
      minReplicas: 2,
      maxReplicas: 6,
      metrics: [
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } },
        { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '1Gi' } } },
      ],
      behavior: {
        scaleUp: { stabilizationWindowSeconds: 0 },
        scaleDown: { stabilizationWindowSeconds: 60, policies: [{ type: 'Pods', value: 1, periodSeconds: 30 }] },
      },
    });
    const transformerHpa = await waitFor(() => readHpa('hpa-transformer'), { description: 'transformer HPA' });
    expect(transformerHpa.spec?.metrics).toEqual([{ type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '512Mi' } } }]);
    expect(transformerHpa.spec).toMatchObject({ minReplicas: 1, maxReplicas: 3 });

    const deployment = await c.apps.readNamespacedDeployment({ name: 'hpa-predictor', namespace: NS });
    expect(deployment.spec?.strategy).toEqual({ type: 'Recreate' });
    expect(deployment.spec?.template.metadata?.annotations).toMatchObject({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': '8080', 'prometheus.io/path': '/metrics' });
    const transformerDeployment = await c.apps.readNamespacedDeployment({ name: 'hpa-transformer', namespace: NS });
    expect(transformerDeployment.spec?.strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } });
    await waitForIsvc(c, NS, 'hpa', isReady, 'Ready', 90_000);

    // A change of metric updates the HPA in place.
    await patchIsvc('hpa', { spec: { predictor: { autoScaling: null, scaleMetricType: 'AverageValue', scaleTarget: 750 } } });
    const updated = await waitFor(() => readHpa('hpa-predictor'), { until: (h) => h.spec?.metrics?.[0]?.resource?.target.averageValue === '750m', description: 'HPA on 750m cpu' });
    expect(updated.spec?.metrics).toHaveLength(1);
    // The behavior is gone with autoScaling: the config's window, the API server's default policies.
    expect(updated.spec?.behavior?.scaleDown).toMatchObject({ stabilizationWindowSeconds: 300 });
    expect(updated.spec?.behavior?.scaleDown?.policies).not.toContainEqual({ type: 'Pods', value: 1, periodSeconds: 30 });

    // Class none: the HPA goes and the Deployment holds minReplicas.
    await cp.kubectl(['annotate', 'isvc', 'hpa', '-n', NS, 'serving.kserve.io/autoscalerClass=none', '--overwrite']);
    await waitFor(() => notFound(readHpa('hpa-predictor')), { description: 'predictor HPA deleted' });
    const pinned = await waitFor(() => c.apps.readNamespacedDeployment({ name: 'hpa-predictor', namespace: NS }), {
      until: (d) => d.spec?.replicas === 2,
      description: 'replicas = minReplicas',
    });
    expect(pinned.spec?.replicas).toBe(2);
  });
});

describe('KEDA (autoscalerClass keda)', () => {
  const kedaIsvc = isvcYaml(
    'kd',
    `  predictor:
    minReplicas: 0
    maxReplicas: 4
    autoScaling:
      metrics:
        - type: External
          external:
            metric: { backend: prometheus, serverAddress: "http://prometheus.monitoring:9090", query: "sum(rate(kserve_requests_total[1m]))", namespace: ${NS} }
            target: { type: Value, value: "10" }
        - type: PodMetric
          podmetric:
            metric: { backend: opentelemetry, query: kserve_model_queue_depth }
            target: { type: Value, value: "4" }
      behavior:
        scaleDown: { stabilizationWindowSeconds: 120 }
${ONNX}`,
    KEDA,
  );

  it('without the ScaledObject CRD: a terminal condition that says so, not a crash loop', async () => {
    await kubectlApply(cp, kedaIsvc, NS);
    const isvc = await waitForIsvc(c, NS, 'kd', (i) => conditionOf(i, 'PredictorReady')?.reason === 'KEDANotInstalled', 'KEDANotInstalled');
    expect(conditionOf(isvc, 'PredictorReady')).toMatchObject({ status: 'False', message: expect.stringContaining('scaledobjects.keda.sh') as string });
    expect(conditionOf(isvc, 'Ready')).toMatchObject({ status: 'False', reason: 'KEDANotInstalled' });
    expect(await notFound(readHpa('kd-predictor'))).toBe(true);
    // Reported, not retried: no reconcile of kd failed.
    const retries = controller.cli
      .output()
      .split('\n')
      .filter((l) => l.includes('reconcile failed') && l.includes(`${NS}/kd`));
    expect(retries).toEqual([]);
  });

  it('with the CRD: a ScaledObject as KServe builds it (minReplicaCount 0, one trigger per metric); hpa again removes it', async () => {
    await kubectlApply(cp, readFileSync(path.join(ROOT, 'test/controller/fixtures/keda-scaledobject-crd.yaml'), 'utf8'));
    await waitFor(async () => (await cp.kubectl(['get', 'scaledobjects', '-A'])).code === 0, { description: 'ScaledObject CRD served' });
    // Terminal until something changes: the change here is the user's.
    await cp.kubectl(['label', 'isvc', 'kd', '-n', NS, 'retry=1']);
    const so = await waitFor(() => readScaledObject('kd-predictor'), { description: 'ScaledObject', timeoutMs: 60_000 });
    expect(so.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'InferenceService', name: 'kd', controller: true });
    expect(so.spec).toEqual({
      scaleTargetRef: { name: 'kd-predictor' },
      minReplicaCount: 0,
      maxReplicaCount: 4,
      triggers: [
        {
          type: 'prometheus',
          metadata: { serverAddress: 'http://prometheus.monitoring:9090', query: 'sum(rate(kserve_requests_total[1m]))', threshold: '10', namespace: NS },
        },
        {
          type: 'external',
          metadata: {
            metricQuery: `sum(kserve_model_queue_depth{namespace="${NS}", deployment="kd-predictor"})`,
            targetValue: '4',
            scalerAddress: 'keda-otel-scaler.keda.svc:4318',
          },
        },
      ],
      advanced: { horizontalPodAutoscalerConfig: { behavior: { scaleDown: { stabilizationWindowSeconds: 120 }, scaleUp: { stabilizationWindowSeconds: 0 } } } },
    });
    expect(await notFound(readHpa('kd-predictor'))).toBe(true);
    const isvc = await waitForIsvc(c, NS, 'kd', (i) => conditionOf(i, 'PredictorReady')?.reason !== 'KEDANotInstalled', 'KEDA condition cleared');
    expect(conditionOf(isvc, 'PredictorReady')?.reason).not.toBe('KEDANotInstalled');
    // The Deployment declares no replicas: KEDA (through its HPA) owns the count.
    const deployment = await c.apps.readNamespacedDeployment({ name: 'kd-predictor', namespace: NS });
    expect(deployment.metadata?.managedFields?.some((f) => JSON.stringify(f.fieldsV1 ?? {}).includes('"f:replicas"') && f.manager === 'kserve-ts-controller')).toBe(false);
  });

  it('switching to hpa deletes the ScaledObject and makes the HPA', async () => {
    await kubectlApply(
      cp,
      isvcYaml(
        'kd2',
        `  predictor:\n    minReplicas: 0\n    autoScaling:\n      metrics:\n        - type: Resource\n          resource: { name: cpu, target: { type: Utilization, averageUtilization: 50 } }\n${ONNX}`,
        KEDA,
      ),
      NS,
    );
    const so = await waitFor(() => readScaledObject('kd2-predictor'), { description: 'ScaledObject' });
    expect(so.spec.triggers).toEqual([{ type: 'cpu', metadata: { value: '50' }, metricType: 'Utilization' }]);
    await cp.kubectl(['annotate', 'isvc', 'kd2', '-n', NS, 'serving.kserve.io/autoscalerClass=hpa', '--overwrite']);
    await waitFor(() => notFound(readScaledObject('kd2-predictor')), { description: 'ScaledObject deleted' });
    const hpa = await waitFor(() => readHpa('kd2-predictor'), { description: 'HPA made' });
    expect(hpa.spec).toMatchObject({ minReplicas: 1, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }] });
  });
});

describe('stop (serving.kserve.io/stop)', () => {
  it('deletes every component and the way in, reports Stopped; removing it brings them back', async () => {
    await kubectlApply(
      cp,
      isvcYaml('st', `  predictor:\n    maxReplicas: 3\n${ONNX}  transformer:\n    containers:\n      - name: kserve-container\n        image: transformer:1\n`),
      NS,
    );
    let isvc = await waitForIsvc(c, NS, 'st', isReady, 'Ready', 90_000);
    expect(conditionOf(isvc, 'Stopped')?.status).toBe('False');
    await waitFor(() => net.readNamespacedIngress({ name: 'st', namespace: NS }), { description: 'Ingress' });

    await cp.kubectl(['annotate', 'isvc', 'st', '-n', NS, 'serving.kserve.io/stop=true']);
    isvc = await waitForIsvc(c, NS, 'st', (i) => conditionOf(i, 'Stopped')?.status === 'True', 'Stopped');
    expect(conditionOf(isvc, 'Ready')).toMatchObject({ status: 'False', reason: 'Stopped' });
    expect(conditionOf(isvc, 'PredictorReady')).toMatchObject({ status: 'False', reason: 'Stopped' });
    expect(conditionOf(isvc, 'TransformerReady')).toMatchObject({ status: 'False', reason: 'Stopped' });
    expect(isvc.status).toMatchObject({ deploymentMode: 'Standard' });
    expect(isvc.status?.url).toBeUndefined();
    expect(isvc.status?.components).toBeUndefined();
    for (const component of ['predictor', 'transformer']) {
      const name = `st-${component}`;
      expect(await notFound(c.apps.readNamespacedDeployment({ name, namespace: NS })), `${name} Deployment`).toBe(true);
      expect(await notFound(readHpa(name)), `${name} HPA`).toBe(true);
      expect(await notFound(c.core.readNamespacedService({ name, namespace: NS })), `${name} Service`).toBe(true);
    }
    expect(await notFound(net.readNamespacedIngress({ name: 'st', namespace: NS }))).toBe(true);
    // The pods go with their Deployments (the garbage collector's work).
    await waitFor(async () => (await c.core.listNamespacedPod({ namespace: NS, labelSelector: 'serving.kserve.io/inferenceservice=st' })).items.length === 0, {
      description: 'pods of st gone',
      timeoutMs: 90_000,
    });

    await cp.kubectl(['annotate', 'isvc', 'st', '-n', NS, 'serving.kserve.io/stop-']);
    isvc = await waitForIsvc(c, NS, 'st', (i: InferenceService) => isReady(i) && conditionOf(i, 'Stopped')?.status === 'False', 'Ready again', 90_000);
    expect(isvc.status?.url).toBe(`http://st-${NS}.example.com`);
    await waitFor(() => readHpa('st-predictor'), { description: 'HPA back' });
    await waitFor(() => net.readNamespacedIngress({ name: 'st', namespace: NS }), { description: 'Ingress back' });
  });
});

describe('docs/scaling-and-rollouts.md', () => {
  it('every InferenceService in it is accepted by the CRD and the webhooks', async () => {
    const doc = readFileSync(path.join(ROOT, 'docs/scaling-and-rollouts.md'), 'utf8');
    const manifests = [...doc.matchAll(/```yaml\n(apiVersion: serving\.kserve\.io[\s\S]*?)```/g)].map((m) => m[1]!);
    expect(manifests.length).toBeGreaterThanOrEqual(3);
    for (const yaml of manifests) {
      const r = await cp.kubectl(['apply', '--dry-run=server', '-n', NS, '-f', '-'], { input: yaml });
      expect(r.code, `${r.stderr}\n${yaml}`).toBe(0);
    }
  });
});

describe('validation by the webhook (KServe messages)', () => {
  it.each([
    [
      'an External metric under the hpa class',
      `  predictor:\n    autoScaling:\n      metrics:\n        - type: External\n          external: { metric: { query: q }, target: { value: "1" } }\n${ONNX}`,
      {},
      'invalid HPA metric source type with value [External],valid metric source types are Resource',
    ],
    ['keda with scaleMetric', `  predictor:\n    scaleMetric: cpu\n${ONNX}`, KEDA, 'ScaleMetric is not supported for KEDA'],
    [
      'keda cpu AverageValue',
      `  predictor:\n    autoScaling:\n      metrics:\n        - type: Resource\n          resource: { name: cpu, target: { type: AverageValue, averageValue: "1" } }\n${ONNX}`,
      KEDA,
      'the cpu target value type should be Utilization',
    ],
    ['an unknown metric source type (the CRD)', `  predictor:\n    autoScaling:\n      metrics:\n        - type: Pods\n${ONNX}`, {}, 'Unsupported value: "Pods"'],
    // spec.canary is served in Standard mode now: test/controller/standard-canary.test.ts.
  ])('%s is refused', async (_name, spec, annotations, message) => {
    const stderr = await kubectlApplyRejected(cp, isvcYaml('refused', spec, annotations), NS);
    expect(stderr).toContain(message);
  });
});
