/**
 * Standard mode canaries on a real kube-apiserver (issue #31, KServe 0.20's
 * canary_controller_test): each canary's Deployment and Service `{isvc}-{name}-predictor`
 * with its own model, the stable predictor's floor lowered by ready canaries, HTTPRoute
 * weights only for canaries whose Deployment is available (one that cannot be scheduled gets
 * none; a dark launch gets 0), `status.canaryStatuses`; promotion by `predictor.name` keeping
 * the canary's Deployment (same uid, same pod template) and deleting the old stable one;
 * removing a canary and stopping the InferenceService; kserve-ts's A/B pin header rules as
 * the HTTPRoute CRD stores them; the webhook's refusals; and the refusal with a plain Ingress. The fake kubelet runs the
 * pods, the real kube-controller-manager makes the Deployments available.
 */
import { NetworkingV1Api, type V1Deployment } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { InferenceService } from '../../controller/api/inference-service.js';
import { ANN_STORAGE_INITIALIZER_SOURCE_URI } from '../../controller/constants.js';
import type { HttpRoute } from '../../controller/reconcile/ingress/http-route.js';
import { type ControllerProcess, controllerSuiteHooks, startControllerSuite } from './controller-process.js';
import { type FakeKubelet, type TestControlPlane, waitFor } from './harness/index.js';
import { type Clients, conditionOf, isvcYaml, kubectlApply, kubectlApplyRejected, notFound, standardConfigYaml, waitForIsvc } from './kube-test-helpers.js';

vi.setConfig({ testTimeout: 150_000 });

const NS = 'canary';
let cp: TestControlPlane;
let c: Clients;
let kubelet: FakeKubelet;
let controller: ControllerProcess;

const routes = { group: 'gateway.networking.k8s.io', version: 'v1', namespace: NS, plural: 'httproutes' };

const GATEWAY = { enableGatewayApi: true, kserveIngressGateway: 'kserve/kserve-ingress-gateway' };

const model = (uri: string, indent: string, extra = ''): string =>
  `${indent}model:\n${indent}  modelFormat: { name: onnx }\n${indent}  storageUri: ${uri}\n${extra ? `${indent}  ${extra}\n` : ''}`;

const readDeployment = (name: string): Promise<V1Deployment> => c.apps.readNamespacedDeployment({ name, namespace: NS });
const readRoute = async (name: string): Promise<HttpRoute> => (await c.custom.getNamespacedCustomObject({ ...routes, name })) as HttpRoute;
const backends = (route: HttpRoute): [string, number][][] =>
  route.spec.rules.map((r) => (r as { backendRefs: { name: string; weight: number }[] }).backendRefs.map((b) => [b.name, b.weight]));
const canaryReady = (i: InferenceService, name: string): boolean | undefined => i.status?.canaryStatuses?.find((s) => s.name === name)?.ready;

beforeAll(async () => {
  ({ cp, c, kubelet, controller } = await startControllerSuite({ namespace: NS, identity: 'canary-replica', config: standardConfigYaml(GATEWAY), gatewayApi: true }));
}, 45 * 60_000);

controllerSuiteHooks(() => ({ controller, kubelet, cp }));

describe('canaries with the Gateway API', () => {
  it('each canary gets its Deployment and Service; only available canaries get weight; a dark launch gets 0; promotion keeps the canary Deployment', async () => {
    // 'slow' asks for more CPU than the Node has: never scheduled, never available.
    await kubectlApply(
      cp,
      isvcYaml(
        'cn',
        `  predictor:
    minReplicas: 4
${model('s3://models/v1', '    ')}  canary:
    - trafficPercent: 25
      predictor:
        name: v2
${model('s3://models/v2', '        ')}    - trafficPercent: 0
      predictor:
        name: dark
${model('s3://models/dark', '        ')}    - trafficPercent: 20
      predictor:
        name: slow
${model('s3://models/slow', '        ', 'resources: { requests: { cpu: "100" }, limits: { cpu: "100" } }')}`,
      ),
      NS,
    );
    const isvc = await waitForIsvc(
      c,
      NS,
      'cn',
      (i) => canaryReady(i, 'v2') === true && canaryReady(i, 'dark') === true && canaryReady(i, 'slow') === false,
      'v2 and dark available, slow not',
      120_000,
    );
    expect(isvc.status?.canaryStatuses).toEqual([
      { name: 'v2', ready: true, trafficPercent: 25 },
      { name: 'dark', ready: true, trafficPercent: 0 },
      { name: 'slow', ready: false, trafficPercent: 20 },
    ]);
    const canaryCondition = conditionOf(isvc, 'CanaryPredictorReady');
    expect(canaryCondition).toMatchObject({ status: 'False', reason: 'CanariesNotReady' });
    // The pods say why: the scheduler's words.
    expect(canaryCondition?.message).toMatch(
      /^not ready: slow: Unschedulable: pod cn-slow-predictor-[a-z0-9]+-[a-z0-9]+ cannot be scheduled: 0\/1 nodes are available: 1 Insufficient cpu\./,
    );

    // Each canary runs its own model; the stable one keeps its own.
    const uri = (d: V1Deployment) => d.spec?.template.metadata?.annotations?.[ANN_STORAGE_INITIALIZER_SOURCE_URI];
    expect(uri(await readDeployment('cn-predictor'))).toBe('s3://models/v1');
    const v2 = await readDeployment('cn-v2-predictor');
    expect(uri(v2)).toBe('s3://models/v2');
    expect(v2.spec?.selector.matchLabels).toEqual({ app: 'isvc.cn-v2-predictor' });
    expect((await c.core.readNamespacedService({ name: 'cn-v2-predictor', namespace: NS })).spec?.selector).toEqual({ app: 'isvc.cn-v2-predictor' });
    // The canary's HPA pins its share: ceil(4 × 25%) = 1; the dark launch's floor is KServe's HPA minimum, 1.
    const hpa = (name: string) => c.autoscaling.readNamespacedHorizontalPodAutoscaler({ name, namespace: NS });
    expect((await hpa('cn-v2-predictor')).spec).toMatchObject({ minReplicas: 1, maxReplicas: 1 });
    expect((await hpa('cn-dark-predictor')).spec).toMatchObject({ minReplicas: 1, maxReplicas: 1 });
    // The stable floor drops by the ready canaries' replicas: 4 − 1 (v2) − 0 (dark).
    await waitFor(() => hpa('cn-predictor'), { until: (h) => h.spec?.minReplicas === 3, description: 'stable HPA minReplicas 3' });

    // Weights: the stable gets 100 − 25 − 0; slow is left out until it is available.
    const expected: [string, number][][] = [
      [
        ['cn-predictor', 75],
        ['cn-v2-predictor', 25],
        ['cn-dark-predictor', 0],
      ],
    ];
    await waitFor(() => readRoute('cn-predictor'), { until: (r) => JSON.stringify(backends(r)) === JSON.stringify(expected), description: 'weighted predictor route' });
    expect(backends(await readRoute('cn'))).toEqual(expected);

    // Promotion (KServe's way): the stable predictor takes the canary's name and model, the canaries go.
    const r = await cp.kubectl([
      'patch',
      'isvc',
      'cn',
      '-n',
      NS,
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { predictor: { name: 'v2', model: { storageUri: 's3://models/v2' } }, canary: null } }),
    ]);
    expect(r.code, r.stderr).toBe(0);
    for (const gone of ['cn-predictor', 'cn-dark-predictor', 'cn-slow-predictor']) {
      await waitFor(() => notFound(readDeployment(gone)), { until: (x) => x, description: `Deployment ${gone} deleted` });
      expect(await notFound(c.core.readNamespacedService({ name: gone, namespace: NS }))).toBe(true);
      expect(await notFound(hpa(gone))).toBe(true);
    }
    const promoted = await readDeployment('cn-v2-predictor');
    expect(promoted.metadata?.uid).toBe(v2.metadata?.uid);
    expect(promoted.spec?.template).toEqual(v2.spec?.template);
    // Now the stable predictor: its own scaling (4), one backend, the route's name and host unchanged.
    await waitFor(() => hpa('cn-v2-predictor'), { until: (h) => h.spec?.minReplicas === 4, description: 'promoted HPA minReplicas 4' });
    await waitFor(() => readRoute('cn-predictor'), {
      until: (route) => JSON.stringify(backends(route)) === JSON.stringify([[['cn-v2-predictor', 1]]]),
      description: 'route to the promoted predictor',
    });
    expect((await readRoute('cn-predictor')).spec.hostnames).toEqual(['cn-predictor-canary.example.com']);
    const after = await waitForIsvc(c, NS, 'cn', (i) => i.status?.canaryStatuses === undefined, 'canaryStatuses cleared');
    expect(conditionOf(after, 'CanaryPredictorReady')).toBeUndefined();
    expect(after.status?.components?.['predictor']?.address?.url).toBe('http://cn-v2-predictor.canary.svc.cluster.local');
  });
});

describe('the A/B pin header (serving.kserve.io/canary-header)', () => {
  it('the HTTPRoutes hold one header-matched rule per named ready predictor before the weighted rule, and the CRD accepts them', async () => {
    await kubectlApply(
      cp,
      isvcYaml(
        'ab',
        `  predictor:\n    name: a\n${model('s3://models/v1', '    ')}  canary:\n    - trafficPercent: 20\n      predictor:\n        name: b\n${model('s3://models/v2', '        ')}`,
        { 'serving.kserve.io/canary-header': 'x-variant' },
      ),
      NS,
    );
    await waitForIsvc(c, NS, 'ab', (i) => canaryReady(i, 'b') === true, 'canary b available', 120_000);
    const headers = (route: HttpRoute) => route.spec.rules.map((r) => (r as { matches: { headers?: unknown[] }[] }).matches.map((m) => m.headers ?? []));
    const expected: [string, number][][] = [
      [['ab-a-predictor', 1]],
      [['ab-b-predictor', 1]],
      [
        ['ab-a-predictor', 80],
        ['ab-b-predictor', 20],
      ],
    ];
    for (const name of ['ab-predictor', 'ab']) {
      const route = await waitFor(() => readRoute(name), { until: (r) => JSON.stringify(backends(r)) === JSON.stringify(expected), description: `pinned route ${name}` });
      expect(headers(route)).toEqual([[[{ type: 'Exact', name: 'x-variant', value: 'a' }]], [[{ type: 'Exact', name: 'x-variant', value: 'b' }]], [[]]]);
    }
    // Promotion keeps the annotation: with no canary left, the routes have a single rule again.
    const r = await cp.kubectl([
      'patch',
      'isvc',
      'ab',
      '-n',
      NS,
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { predictor: { name: 'b', model: { storageUri: 's3://models/v2' } }, canary: null } }),
    ]);
    expect(r.code, r.stderr).toBe(0);
    await waitFor(() => readRoute('ab-predictor'), {
      until: (route) => JSON.stringify(backends(route)) === JSON.stringify([[['ab-b-predictor', 1]]]),
      description: 'route to the promoted predictor, unpinned',
    });
  });
});

describe('removing a canary, and stopping', () => {
  it("removing a canary deletes its objects and restores the stable floor; serving.kserve.io/stop deletes the named stable predictor's objects", async () => {
    const hpa = (name: string) => c.autoscaling.readNamespacedHorizontalPodAutoscaler({ name, namespace: NS });
    await kubectlApply(
      cp,
      isvcYaml(
        'rm',
        `  predictor:\n    name: blue\n    minReplicas: 2\n${model('s3://models/v1', '    ')}  canary:\n    - trafficPercent: 50\n      predictor:\n        name: green\n${model('s3://models/v2', '        ')}`,
      ),
      NS,
    );
    await waitForIsvc(c, NS, 'rm', (i) => canaryReady(i, 'green') === true, 'green available', 120_000);
    // 2 − ceil(2 × 50%) = 1.
    await waitFor(() => hpa('rm-blue-predictor'), { until: (h) => h.spec?.minReplicas === 1, description: 'stable HPA minReplicas 1' });
    const r = await cp.kubectl(['patch', 'isvc', 'rm', '-n', NS, '--type=json', '-p', JSON.stringify([{ op: 'remove', path: '/spec/canary' }])]);
    expect(r.code, r.stderr).toBe(0);
    await waitFor(() => notFound(readDeployment('rm-green-predictor')), { until: (x) => x, description: 'canary Deployment deleted' });
    expect(await notFound(c.core.readNamespacedService({ name: 'rm-green-predictor', namespace: NS }))).toBe(true);
    await waitFor(() => hpa('rm-blue-predictor'), { until: (h) => h.spec?.minReplicas === 2, description: 'stable HPA minReplicas back to 2' });

    const s = await cp.kubectl(['annotate', 'isvc', 'rm', '-n', NS, 'serving.kserve.io/stop=true']);
    expect(s.code, s.stderr).toBe(0);
    await waitFor(() => notFound(readDeployment('rm-blue-predictor')), { until: (x) => x, description: 'stable Deployment deleted on stop' });
    expect(await notFound(c.core.readNamespacedService({ name: 'rm-blue-predictor', namespace: NS }))).toBe(true);
  });
});

describe('webhook refusals', () => {
  it.each<[string, string, Record<string, string>, string]>([
    [
      'a sum above 100',
      `  predictor:\n${model('s3://models/v1', '    ')}  canary:\n    - { trafficPercent: 60, predictor: { name: a, model: { modelFormat: { name: onnx } } } }\n    - { trafficPercent: 50, predictor: { name: b, model: { modelFormat: { name: onnx } } } }\n`,
      {},
      'sum of canary trafficPercent values (110) must be <= 100',
    ],
    [
      'canary in Knative mode',
      `  predictor:\n${model('s3://models/v1', '    ')}  canary:\n    - { trafficPercent: 10, predictor: { name: a, model: { modelFormat: { name: onnx } } } }\n`,
      { 'serving.kserve.io/deploymentMode': 'Knative' },
      'canary is only supported in Standard deployment mode',
    ],
    [
      'a canary named as the stable predictor',
      `  predictor:\n    name: a\n${model('s3://models/v1', '    ')}  canary:\n    - { trafficPercent: 10, predictor: { name: a, model: { modelFormat: { name: onnx } } } }\n`,
      {},
      'canary predictor.name "a" conflicts with stable predictor name',
    ],
    [
      'trafficPercent above 100 (the CRD)',
      `  predictor:\n${model('s3://models/v1', '    ')}  canary:\n    - { trafficPercent: 101, predictor: { name: a, model: { modelFormat: { name: onnx } } } }\n`,
      {},
      'should be less than or equal to 100',
    ],
    [
      'a pin header that is not a header name',
      `  predictor:\n${model('s3://models/v1', '    ')}  canary:\n    - { trafficPercent: 10, predictor: { name: a, model: { modelFormat: { name: onnx } } } }\n`,
      { 'serving.kserve.io/canary-header': 'x variant' },
      "annotation serving.kserve.io/canary-header: 'x variant' is not an HTTP header name",
    ],
  ])('%s', async (_, spec, annotations, message) => {
    const stderr = await kubectlApplyRejected(cp, isvcYaml('refused', spec, annotations), NS);
    expect(stderr).toContain(message);
  });
});

describe('canaries with a plain Ingress', () => {
  it('are refused with IngressReady False and a reason saying the Gateway API is needed', async () => {
    await kubectlApply(cp, standardConfigYaml({}));
    await kubectlApply(
      cp,
      isvcYaml(
        'ing',
        `  predictor:\n${model('s3://models/v1', '    ')}  canary:\n    - trafficPercent: 10\n      predictor:\n        name: v2\n${model('s3://models/v2', '        ')}`,
      ),
      NS,
    );
    const isvc = await waitForIsvc(c, NS, 'ing', (i) => conditionOf(i, 'IngressReady')?.reason === 'CanaryRequiresGatewayAPI', 'Ingress refused', 120_000);
    expect(conditionOf(isvc, 'IngressReady')?.message).toContain('ingress.enableGatewayApi');
    expect(conditionOf(isvc, 'Ready')?.status).toBe('False');
    expect(await notFound(cp.kubeConfig.makeApiClient(NetworkingV1Api).readNamespacedIngress({ name: 'ing', namespace: NS }))).toBe(true);
  });
});
