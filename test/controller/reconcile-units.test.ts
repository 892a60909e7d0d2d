/** The reconciler's pure pieces: scaling decisions, traffic split, placeholders, status derivation, ConfigMap parsing. */
import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { InferenceService, PredictorSpec } from '../../controller/api/inference-service.js';
import { parseInferenceServiceConfig, renderDomain } from '../../controller/config/inferenceservice-config.js';
import { resolveDeploymentMode } from '../../controller/deployment-mode.js';
import type { ComponentPlan } from '../../controller/reconcile/component-plan.js';
import { trafficSplit } from '../../controller/reconcile/knative/knative-service.js';
import { renderPlaceholders } from '../../controller/reconcile/placeholders.js';
import { planRuntimePredictor } from '../../controller/reconcile/predictor-plan.js';
import { decideScaling } from '../../controller/reconcile/standard/hpa.js';
import { aggregateReady, condition, mergeConditions } from '../../controller/reconcile/status/conditions.js';
import { readinessFromDeployment } from '../../controller/reconcile/status/deployment-status.js';
import { componentStatusFromKnative } from '../../controller/reconcile/status/knative-status.js';
import { modelStatusFromPods } from '../../controller/reconcile/status/model-status.js';

const config = parseInferenceServiceConfig(undefined);

function isvc(predictor: PredictorSpec, annotations: Record<string, string> = {}, status?: InferenceService['status']): InferenceService {
  return {
    apiVersion: 'serving.kserve.io/v1beta1',
    kind: 'InferenceService',
    metadata: { name: 'm', namespace: 'ns', uid: 'u1', annotations, labels: { team: 'a' } },
    spec: { predictor },
    ...(status ? { status } : {}),
  };
}

const plan = (scaling: PredictorSpec): ComponentPlan => ({
  component: 'predictor',
  name: 'm-predictor',
  labels: {},
  annotations: {},
  podAnnotations: {},
  podSpec: { containers: [] },
  ports: [{ containerPort: 8080 }],
  scaling,
});

describe('Standard mode scaling decision', () => {
  const rows: [string, PredictorSpec, Record<string, string>, { hpa: boolean; min?: number; max?: number; replicas?: number }][] = [
    ['defaults → a 1..1 HPA, as KServe', {}, {}, { hpa: true, min: 1, max: 1 }],
    ['min 2 max 5', { minReplicas: 2, maxReplicas: 5 }, {}, { hpa: true, min: 2, max: 5 }],
    ['min 0 is raised to 1 for the HPA', { minReplicas: 0, maxReplicas: 3 }, {}, { hpa: true, min: 1, max: 3 }],
    ['max below min is raised to min', { minReplicas: 4, maxReplicas: 0 }, {}, { hpa: true, min: 4, max: 4 }],
    ['pinned (min == max) → no HPA, replicas on the Deployment', { minReplicas: 3, maxReplicas: 3 }, {}, { hpa: false, replicas: 3 }],
    ['autoscalerClass none → replicas = min', { minReplicas: 2, maxReplicas: 9 }, { 'serving.kserve.io/autoscalerClass': 'none' }, { hpa: false, replicas: 2 }],
    ['autoscalerClass external → neither', { minReplicas: 2 }, { 'serving.kserve.io/autoscalerClass': 'external' }, { hpa: false }],
  ];
  it.each(rows)('%s', (_n, spec, ann, want) => {
    const d = decideScaling(isvc(spec, ann), plan(spec), config.autoscaler);
    expect(d.hpa !== undefined).toBe(want.hpa);
    if (want.hpa) expect(d.hpa?.spec).toMatchObject({ minReplicas: want.min, maxReplicas: want.max });
    expect(d.replicas).toBe(want.replicas);
  });

  it('metric and target', () => {
    const spec: PredictorSpec = { maxReplicas: 3, scaleMetric: 'memory', scaleTarget: 70 };
    const d = decideScaling(isvc(spec), plan(spec), { scaleUpStabilizationWindowSeconds: 5, scaleDownStabilizationWindowSeconds: 60 });
    expect(d.hpa?.spec?.metrics).toEqual([{ type: 'Resource', resource: { name: 'memory', target: { type: 'Utilization', averageUtilization: 70 } } }]);
    expect(d.hpa?.spec?.behavior).toEqual({ scaleUp: { stabilizationWindowSeconds: 5 }, scaleDown: { stabilizationWindowSeconds: 60 } });
  });
});

describe('Knative traffic split (KServe rule)', () => {
  const i = isvc({});
  it.each([
    [undefined, 'r1', [{ latestRevision: true, percent: 100 }]],
    [20, undefined, [{ latestRevision: true, percent: 100 }]],
    [
      20,
      'r1',
      [
        { latestRevision: true, percent: 20 },
        { latestRevision: false, revisionName: 'r1', percent: 80, tag: 'prev' },
      ],
    ],
    [
      0,
      'r1',
      [
        { latestRevision: true, percent: 0 },
        { latestRevision: false, revisionName: 'r1', percent: 100, tag: 'prev' },
      ],
    ],
    [100, 'r1', [{ latestRevision: true, percent: 100 }]],
  ] as const)('canary %s with rolled-out %s', (p, rolled, want) => {
    expect(trafficSplit(i, p, rolled)).toEqual(want);
  });
  it('tag routing tags the latest revision', () => {
    expect(trafficSplit(isvc({}, { 'serving.kserve.io/enable-tag-routing': 'true' }), 30, 'r1')[0]).toEqual({ latestRevision: true, percent: 30, tag: 'latest' });
  });
  it('a revision becomes rolled out once it has all the traffic', () => {
    const ready = (rev: string, traffic: { revisionName: string; percent: number }[]) => ({
      apiVersion: 'serving.knative.dev/v1',
      kind: 'Service',
      spec: { template: { metadata: { labels: {}, annotations: {} }, spec: { containers: [] } }, traffic: [] },
      status: { latestReadyRevisionName: rev, traffic },
    });
    const s1 = componentStatusFromKnative(ready('r1', [{ revisionName: 'r1', percent: 100 }]), undefined);
    expect(s1.latestRolledoutRevision).toBe('r1');
    const s2 = componentStatusFromKnative(
      ready('r2', [
        { revisionName: 'r2', percent: 10 },
        { revisionName: 'r1', percent: 90 },
      ]),
      s1,
    );
    expect(s2).toMatchObject({ latestReadyRevision: 'r2', latestRolledoutRevision: 'r1' });
    const s3 = componentStatusFromKnative(ready('r2', [{ revisionName: 'r2', percent: 100 }]), s2);
    expect(s3).toMatchObject({ latestRolledoutRevision: 'r2', previousRolledoutRevision: 'r1' });
  });
});

describe('predictor pod from a runtime', () => {
  it('merges the ISVC container over the runtime template and renders placeholders', () => {
    const i = isvc({ model: { modelFormat: { name: 'onnx' }, storageUri: 's3://b/m', args: ['--workers=2'], env: [{ name: 'A', value: 'isvc' }] } }, { modelFormat: 'onnx' });
    const runtime = {
      apiVersion: 'serving.kserve.io/v1alpha1',
      kind: 'ClusterServingRuntime' as const,
      metadata: { name: 'rt' },
      spec: {
        labels: { 'runtime-label': 'x' },
        containers: [
          {
            name: 'kserve-container',
            image: 'rt:1.0',
            args: ['--model_name={{.Name}}', '--fmt={{.Annotations.modelFormat}}', '--team={{.Labels.team}}'],
            env: [
              { name: 'A', value: 'rt' },
              { name: 'B', value: '{{.Namespace}}' },
            ],
          },
        ],
      },
    };
    const p = planRuntimePredictor(i, { ...i.spec.predictor.model!, runtimeVersion: '2.0' }, runtime, config);
    const c = p.podSpec.containers[0]!;
    expect(c.image).toBe('rt:2.0');
    expect(c.args).toEqual(['--model_name=m', '--fmt=onnx', '--team=a', '--workers=2']);
    expect(c.env).toEqual([
      { name: 'A', value: 'isvc' },
      { name: 'B', value: 'ns' },
      { name: 'STORAGE_URI', value: 's3://b/m' },
    ]);
    expect(c.resources).toEqual({ requests: { cpu: '1', memory: '2Gi' }, limits: { cpu: '1', memory: '2Gi' } });
    expect(p.labels).toMatchObject({ 'runtime-label': 'x', team: 'a', 'serving.kserve.io/inferenceservice': 'm', component: 'predictor' });
    expect(p.podAnnotations['internal.serving.kserve.io/storage-initializer-sourceuri']).toBe('s3://b/m');
  });

  it('a storage spec without a bucket leaves the placeholder scheme for the webhook', () => {
    const i = isvc({ model: { modelFormat: { name: 'onnx' }, storage: { key: 'localMinIO', path: '/models/mnist' } } });
    const runtime = {
      apiVersion: 'serving.kserve.io/v1alpha1',
      kind: 'ServingRuntime' as const,
      metadata: { name: 'rt' },
      spec: { containers: [{ name: 'kserve-container', image: 'rt:1' }] },
    };
    const p = planRuntimePredictor(i, i.spec.predictor.model!, runtime, config);
    expect(p.podAnnotations).toMatchObject({
      'internal.serving.kserve.io/storage-initializer-sourceuri': '<scheme-placeholder>://models/mnist',
      'internal.serving.kserve.io/storage-spec': 'true',
      'internal.serving.kserve.io/storage-spec-key': 'localMinIO',
    });
  });

  it('leaves unknown template fields untouched rather than losing text', () => {
    expect(renderPlaceholders('{{.Name}}-{{.Spec.Foo}}', { name: 'x' })).toBe('x-{{.Spec.Foo}}');
  });
});

describe('status derivation', () => {
  const dep = (conditions: { type: string; status: string; reason?: string; message?: string }[], extra: Partial<V1Deployment['status']> = {}): V1Deployment => ({
    metadata: { generation: 2 },
    spec: { replicas: 1, selector: {}, template: {} },
    status: { observedGeneration: 2, updatedReplicas: 1, conditions, ...extra },
  });
  it.each([
    ['no status', undefined, 'Unknown'],
    ['available', dep([{ type: 'Available', status: 'True' }]), 'True'],
    ['available but an old generation', dep([{ type: 'Available', status: 'True' }], { observedGeneration: 1 }), 'Unknown'],
    ['replica failure', dep([{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: 'quota' }]), 'False'],
    [
      'progress deadline',
      dep([
        { type: 'Available', status: 'False' },
        { type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' },
      ]),
      'False',
    ],
    [
      'still progressing',
      dep([
        { type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable' },
        { type: 'Progressing', status: 'True' },
      ]),
      'Unknown',
    ],
  ] as const)('%s → %s', (_n, d, want) => {
    expect(readinessFromDeployment('PredictorReady', d).status).toBe(want);
  });

  it('Ready is the living condition set of its dependents', () => {
    expect(aggregateReady([condition('A', 'True'), condition('B', 'True')]).status).toBe('True');
    expect(aggregateReady([condition('A', 'True'), condition('B', 'Unknown', 'Wait')])).toMatchObject({ status: 'Unknown', reason: 'Wait' });
    expect(aggregateReady([condition('A', 'Unknown'), condition('B', 'False', 'Bad', 'why')])).toMatchObject({ status: 'False', reason: 'Bad', message: 'why' });
  });

  it('transition times change only with the status', () => {
    const first = mergeConditions(undefined, [condition('Ready', 'False')], 't1');
    expect(mergeConditions(first, [condition('Ready', 'False', 'Other')], 't2')[0]?.lastTransitionTime).toBe('t1');
    expect(mergeConditions(first, [condition('Ready', 'True')], 't3')[0]?.lastTransitionTime).toBe('t3');
  });

  it('model status from the storage-initializer of the newest pod', () => {
    const pod = (name: string, created: string, init: NonNullable<V1Pod['status']>['initContainerStatuses']): V1Pod => ({
      metadata: { name, creationTimestamp: new Date(created) },
      status: { initContainerStatuses: init },
    });
    const failed = pod('new', '2026-01-02T00:00:00Z', [
      {
        name: 'storage-initializer',
        image: 'i',
        imageID: '',
        ready: false,
        restartCount: 2,
        state: { waiting: { reason: 'CrashLoopBackOff' } },
        lastState: { terminated: { exitCode: 1, message: 'no such bucket', reason: 'Error' } },
      },
    ]);
    const old = pod('old', '2026-01-01T00:00:00Z', [
      { name: 'storage-initializer', image: 'i', imageID: '', ready: true, restartCount: 0, state: { terminated: { exitCode: 0 } } },
    ]);
    expect(modelStatusFromPods([old, failed], false)).toMatchObject({
      transitionStatus: 'BlockedByFailedLoad',
      lastFailureInfo: { reason: 'ModelLoadFailed', message: 'no such bucket', exitCode: 1, location: 'new' },
    });
    const loading = pod('l', '2026-01-03T00:00:00Z', [{ name: 'storage-initializer', image: 'i', imageID: '', ready: false, restartCount: 0, state: { running: {} } }]);
    expect(modelStatusFromPods([loading], false).states?.targetModelState).toBe('Loading');
    expect(modelStatusFromPods([old], true)).toMatchObject({ transitionStatus: 'UpToDate', states: { activeModelState: 'Loaded' } });
  });
});

describe('inferenceservice-config and deployment mode', () => {
  it('KServe defaults when keys are absent; an absent deploy key means Knative', () => {
    expect(config.defaultDeploymentMode).toBe('Knative');
    expect(config.storageInitializer.image).toBe('kserve-ts-storage-initializer:0.1.0');
    expect(renderDomain(config.ingress.domainTemplate, { Name: 'a', Namespace: 'b', IngressDomain: config.ingress.ingressDomain })).toBe('a-b.example.com');
  });
  it('legacy mode names and clear errors', () => {
    expect(parseInferenceServiceConfig({ deploy: '{"defaultDeploymentMode":"RawDeployment"}' }).defaultDeploymentMode).toBe('Standard');
    expect(() => parseInferenceServiceConfig({ deploy: '{"defaultDeploymentMode":"Fast"}' })).toThrow(/deploy.*'Fast' must be one of/);
    expect(() => parseInferenceServiceConfig({ ingress: '{not json' })).toThrow(/'ingress': not valid JSON/);
    expect(() => parseInferenceServiceConfig({ autoscaler: '{"scaleDownStabilizationWindowSeconds":"-1"}' })).toThrow(/non-negative/);
  });
  it.each([
    ['status wins over annotation and default', { 'serving.kserve.io/deploymentMode': 'Knative' }, 'Standard', 'Knative', 'Standard'],
    ['annotation (legacy name) over default', { 'serving.kserve.io/deploymentMode': 'RawDeployment' }, undefined, 'Knative', 'Standard'],
    ['default when neither', {}, undefined, 'Standard', 'Standard'],
    ['unknown annotation falls back to the default', { 'serving.kserve.io/deploymentMode': 'Bogus' }, undefined, 'Knative', 'Knative'],
  ] as const)('%s', (_n, ann, recorded, dflt, want) => {
    expect(resolveDeploymentMode(isvc({}, { ...ann }, recorded ? { deploymentMode: recorded } : undefined), dflt)).toBe(want);
  });
});
