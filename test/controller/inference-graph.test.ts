/**
 * InferenceGraphs on a real kube-apiserver + etcd + kube-controller-manager (the harness),
 * reconciled by `kserve-ts controller` running as its ServiceAccount with the shipped RBAC,
 * its webhooks registered, a fake kubelet reporting pods. Graphs are applied with kubectl
 * as written for KServe: the router's objects (KServe's shapes, plus the way in), the
 * `--graph-json` argument, `serviceName` resolved to the InferenceService's URL, status
 * while an InferenceService is missing, the webhook's refusals with KServe's messages,
 * Knative mode, the stop annotation and garbage collection.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { V1Deployment } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { InferenceGraph } from '../../controller/api/inference-graph.js';
import type { KnativeService } from '../../controller/reconcile/knative/knative-service.js';
import { ROOT } from '../helpers/server.js';
import { type ControllerProcess, controllerSuiteHooks, startControllerSuite } from './controller-process.js';
import { type FakeKubelet, type TestControlPlane, waitFor } from './harness/index.js';
import { type Clients, isReady, isvcYaml, kubectlApply, kubectlApplyRejected, notFound, waitForIsvc } from './kube-test-helpers.js';

vi.setConfig({ testTimeout: 150_000 });

const NS = 'graphs';
const CONFIG_YAML = readFileSync(path.join(ROOT, 'controller/runtimes/inferenceservice-config.yaml'), 'utf8');

let cp: TestControlPlane;
let c: Clients;
let kubelet: FakeKubelet;
let controller: ControllerProcess;

const graphApi = { group: 'serving.kserve.io', version: 'v1alpha1', namespace: NS, plural: 'inferencegraphs' };

async function getGraph(name: string): Promise<InferenceGraph> {
  return (await c.custom.getNamespacedCustomObject({ ...graphApi, name })) as InferenceGraph;
}

const conditionOf = (ig: InferenceGraph, type: string) => ig.status?.conditions?.find((x) => x.type === type);

function waitForGraph(name: string, until: (ig: InferenceGraph) => boolean, description: string): Promise<InferenceGraph> {
  return waitFor(() => getGraph(name), { until, description: `${NS}/${name}: ${description}`, timeoutMs: 90_000, intervalMs: 250 });
}

function graphYaml(name: string, spec: string, annotations: Record<string, string> = {}): string {
  const ann = Object.entries(annotations)
    .map(([k, v]) => `    ${k}: "${v}"`)
    .join('\n');
  return `apiVersion: serving.kserve.io/v1alpha1
kind: InferenceGraph
metadata:
  name: ${name}
${ann ? `  annotations:\n${ann}\n` : ''}spec:
${spec}`;
}

beforeAll(async () => {
  ({ cp, c, kubelet, controller } = await startControllerSuite({
    namespace: NS,
    identity: 'graph-replica',
    config: CONFIG_YAML,
    beforeController: async (plane) => {
      await kubectlApply(plane, readFileSync(path.join(ROOT, 'test/controller/fixtures/knative-service-crd.yaml'), 'utf8'));
      await waitFor(async () => (await plane.kubectl(['get', 'ksvc', '-A'])).code === 0, { description: 'Knative CRD served' });
    },
  }));
}, 45 * 60_000);

controllerSuiteHooks(() => ({ controller, kubelet, cp }));

describe('Standard mode', () => {
  it('a graph of serviceUrl steps becomes the router Deployment, Service, HPA and Ingress, Ready with its URLs', async () => {
    await kubectlApply(
      cp,
      graphYaml(
        'chain',
        `  nodes:
    root:
      routerType: Sequence
      steps:
        - serviceUrl: http://first.example/v1/models/first:predict
        - serviceUrl: http://second.example/v1/models/second:predict
          data: $response
          name: second
  routerTimeouts:
    serviceClient: 30
`,
      ),
      NS,
    );
    const ig = await waitForGraph('chain', (g) => conditionOf(g, 'Ready')?.status === 'True', 'Ready');
    expect(ig.status?.url).toBe(`http://chain-${NS}.example.com`);
    expect(ig.status?.address?.url).toBe(`http://chain.${NS}.svc.cluster.local`);
    expect(ig.status?.deploymentMode).toBe('Standard');
    expect(Object.fromEntries((ig.status?.conditions ?? []).map((x) => [x.type, x.status]))).toEqual({
      IngressReady: 'True',
      InferenceServicesReady: 'True',
      Ready: 'True',
      RouterReady: 'True',
      Stopped: 'False',
    });

    const dep = await c.apps.readNamespacedDeployment({ name: 'chain', namespace: NS });
    expect(dep.metadata?.labels).toMatchObject({ 'serving.kserve.io/inferencegraph': 'chain', app: 'isvc.chain' });
    expect(dep.metadata?.ownerReferences?.[0]).toMatchObject({ apiVersion: 'serving.kserve.io/v1alpha1', kind: 'InferenceGraph', name: 'chain', controller: true });
    expect(dep.spec?.selector.matchLabels).toEqual({ app: 'isvc.chain' });
    const pod = dep.spec!.template.spec!;
    expect(pod.automountServiceAccountToken).toBe(false);
    const container = pod.containers[0]!;
    expect(container.name).toBe('chain');
    expect(container.image).toBe('kserve-ts-router:0.1.0');
    expect(container.imagePullPolicy).toBe('IfNotPresent');
    // KServe's controller writes the same argument (json.Marshal of the spec, Go's field order).
    expect(container.args).toEqual([
      '--graph-json',
      '{"nodes":{"root":{"routerType":"Sequence","steps":[{"serviceUrl":"http://first.example/v1/models/first:predict"},{"name":"second","serviceUrl":"http://second.example/v1/models/second:predict","data":"$response"}]}},"resources":{},"routerTimeouts":{"serviceClient":30}}',
    ]);
    expect(container.resources).toEqual({ limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '100m', memory: '100Mi' } });
    expect(container.readinessProbe).toMatchObject({
      httpGet: { path: '/readyz', port: 8080, scheme: 'HTTP' },
      initialDelaySeconds: 5,
      timeoutSeconds: 2,
      periodSeconds: 5,
      failureThreshold: 3,
    });
    expect(container.securityContext).toEqual({
      privileged: false,
      runAsNonRoot: true,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    });
    expect(container.env).toBeUndefined();

    const svc = await c.core.readNamespacedService({ name: 'chain', namespace: NS });
    expect(svc.spec?.selector).toEqual({ app: 'isvc.chain' });
    expect(svc.spec?.ports?.map((p) => [p.name, p.port, p.targetPort])).toEqual([
      ['chain', 80, 8080],
      ['grpc', 8081, 8081],
    ]);
    const hpa = await c.autoscaling.readNamespacedHorizontalPodAutoscaler({ name: 'chain', namespace: NS });
    expect(hpa.spec).toMatchObject({ scaleTargetRef: { kind: 'Deployment', name: 'chain' }, minReplicas: 1, maxReplicas: 1 });
    const ingress = (await c.custom.getNamespacedCustomObject({ group: 'networking.k8s.io', version: 'v1', namespace: NS, plural: 'ingresses', name: 'chain' })) as {
      spec: { rules: unknown[] };
    };
    expect(ingress.spec.rules).toEqual([
      { host: `chain-${NS}.example.com`, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'chain', port: { number: 80 } } } }] } },
    ]);
  });

  it('serviceName: a missing InferenceService shows in the status; once it is Ready the graph routes to its URL and is Ready', async () => {
    await kubectlApply(
      cp,
      graphYaml(
        'pipe',
        `  nodes:
    root:
      routerType: Sequence
      steps:
        - serviceName: iris
        - nodeName: both
          data: $response
    both:
      routerType: Ensemble
      steps:
        - serviceName: iris
          name: a
        - serviceUrl: http://other.example/v2/models/m/infer
          name: b
`,
      ),
      NS,
    );
    const waiting = await waitForGraph('pipe', (g) => conditionOf(g, 'InferenceServicesReady')?.reason === 'InferenceServiceNotFound', 'InferenceServiceNotFound');
    expect(conditionOf(waiting, 'InferenceServicesReady')).toMatchObject({ status: 'False', message: `InferenceService "iris" not found in namespace ${NS}` });
    expect(conditionOf(waiting, 'Ready')?.status).toBe('False');
    expect(await notFound(c.apps.readNamespacedDeployment({ name: 'pipe', namespace: NS }))).toBe(true);

    await kubectlApply(cp, isvcYaml('iris', `  predictor:\n    model:\n      modelFormat:\n        name: onnx\n      storageUri: s3://models/iris\n`), NS);
    await waitForIsvc(c, NS, 'iris', isReady, 'Ready', 90_000);
    const ready = await waitForGraph('pipe', (g) => conditionOf(g, 'Ready')?.status === 'True', 'Ready');
    expect(conditionOf(ready, 'InferenceServicesReady')?.status).toBe('True');
    const dep: V1Deployment = await c.apps.readNamespacedDeployment({ name: 'pipe', namespace: NS });
    const graphJson = JSON.parse(dep.spec!.template.spec!.containers[0]!.args![1]!) as InferenceGraph['spec'];
    const url = `http://iris-predictor.${NS}.svc.cluster.local/v1/models/iris:predict`;
    expect(graphJson.nodes['root']!.steps![0]).toEqual({ serviceName: 'iris', serviceUrl: url });
    expect(graphJson.nodes['both']!.steps).toEqual([
      { name: 'a', serviceName: 'iris', serviceUrl: url },
      { name: 'b', serviceUrl: 'http://other.example/v2/models/m/infer' },
    ]);
  });

  it('the stop annotation removes the router: Stopped True, Ready False (Stopped)', async () => {
    await kubectlApply(
      cp,
      graphYaml('halted', '  nodes:\n    root:\n      routerType: Sequence\n      steps:\n        - serviceUrl: http://x.example/\n', { 'serving.kserve.io/stop': 'true' }),
      NS,
    );
    const ig = await waitForGraph('halted', (g) => conditionOf(g, 'Stopped')?.status === 'True', 'Stopped');
    expect(conditionOf(ig, 'Ready')).toMatchObject({ status: 'False', reason: 'Stopped' });
    expect(ig.status?.url).toBeUndefined();
    expect(await notFound(c.apps.readNamespacedDeployment({ name: 'halted', namespace: NS }))).toBe(true);
  });

  it('deleting a graph deletes its router (owner references, garbage collection)', async () => {
    await kubectlApply(
      cp,
      graphYaml('brief', '  nodes:\n    root:\n      routerType: Splitter\n      steps:\n        - serviceUrl: http://x.example/\n          weight: 100\n'),
      NS,
    );
    await waitFor(() => c.apps.readNamespacedDeployment({ name: 'brief', namespace: NS }), { description: 'router Deployment of brief' });
    expect((await cp.kubectl(['delete', 'inferencegraph', 'brief', '-n', NS])).code).toBe(0);
    await waitFor(() => notFound(c.apps.readNamespacedDeployment({ name: 'brief', namespace: NS })), {
      until: (gone) => gone,
      description: 'router Deployment of brief garbage-collected',
      timeoutMs: 60_000,
    });
    expect(await notFound(c.core.readNamespacedService({ name: 'brief', namespace: NS }))).toBe(true);
  });
});

describe('admission', () => {
  it.each([
    [
      'no root node',
      '  nodes:\n    main:\n      routerType: Sequence\n      steps:\n        - serviceName: a\n',
      "root node not found, InferenceGraph needs a node with name 'root' as the root node of the graph",
    ],
    [
      'splitter weights',
      '  nodes:\n    root:\n      routerType: Splitter\n      steps:\n        - serviceName: a\n          weight: 30\n        - serviceName: b\n          weight: 60\n',
      'InferenceGraph[bad] Node[root] splitter node: the sum of traffic weights for all routing targets should be 100',
    ],
    [
      'two targets in a step',
      '  nodes:\n    root:\n      routerType: Sequence\n      steps:\n        - serviceName: a\n          serviceUrl: http://b\n',
      'Step 0 ("") in node "root" of InferenceGraph "bad" specifies more than one of nodeName, serviceName, serviceUrl',
    ],
    ['a cycle', '  nodes:\n    root:\n      routerType: Sequence\n      steps:\n        - nodeName: root\n', 'InferenceGraph "bad" has a cycle of nodes: root -> root'],
  ])('refuses %s with the message KServe gives', async (_name, spec, message) => {
    const stderr = await kubectlApplyRejected(cp, graphYaml('bad', spec), NS);
    expect(stderr).toContain('admission webhook "inferencegraph.kserve-webhook-server.validator" denied the request');
    expect(stderr).toContain(message);
  });

  it('the CRD refuses a router type KServe does not have', async () => {
    const stderr = await kubectlApplyRejected(cp, graphYaml('bad', '  nodes:\n    root:\n      routerType: Broadcast\n'), NS);
    expect(stderr).toMatch(/routerType: Unsupported value: "Broadcast"/);
  });
});

describe('Knative mode', () => {
  it('a Knative Service as KServe makes it; Ready and url from it', async () => {
    await kubectlApply(
      cp,
      graphYaml(
        'kn',
        '  nodes:\n    root:\n      routerType: Sequence\n      steps:\n        - serviceUrl: http://x.example/v1/models/x:predict\n  minReplicas: 2\n  timeout: 40\n',
        { 'serving.kserve.io/deploymentMode': 'Knative' },
      ),
      NS,
    );
    const api = { group: 'serving.knative.dev', version: 'v1', namespace: NS, plural: 'services' };
    const ksvc = (await waitFor(() => c.custom.getNamespacedCustomObject({ ...api, name: 'kn' }), { description: 'ksvc kn' })) as KnativeService;
    expect(ksvc.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'InferenceGraph', name: 'kn', controller: true });
    expect(ksvc.spec.template.metadata.labels).toEqual({ 'serving.kserve.io/inferencegraph': 'kn', 'serving.kserve.io/kind': 'InferenceGraph' });
    expect(ksvc.spec.template.metadata.annotations).toEqual({
      'serving.kserve.io/deploymentMode': 'Knative',
      'autoscaling.knative.dev/class': 'kpa.autoscaling.knative.dev',
      'autoscaling.knative.dev/min-scale': '2',
    });
    expect(ksvc.spec.template.spec.timeoutSeconds).toBe(40);
    expect(ksvc.spec.template.spec.containers[0]).toMatchObject({
      image: 'kserve-ts-router:0.1.0',
      args: [
        '--graph-json',
        '{"nodes":{"root":{"routerType":"Sequence","steps":[{"serviceUrl":"http://x.example/v1/models/x:predict"}]}},"resources":{},"timeout":40,"minReplicas":2}',
      ],
    });
    expect(conditionOf(await getGraph('kn'), 'Ready')?.status).not.toBe('True');

    // Knative's controller does not run here: the test reports what it would.
    await c.custom.replaceNamespacedCustomObjectStatus({
      ...api,
      name: 'kn',
      body: {
        ...ksvc,
        status: {
          observedGeneration: ksvc.metadata?.generation,
          conditions: [{ type: 'Ready', status: 'True' }],
          url: `http://kn.${NS}.example.com`,
          address: { url: `http://kn.${NS}.svc.cluster.local` },
        },
      },
    });
    const ig = await waitForGraph('kn', (g) => conditionOf(g, 'Ready')?.status === 'True', 'Ready');
    expect(ig.status?.url).toBe(`http://kn.${NS}.example.com`);
    expect(ig.status?.deploymentMode).toBe('Knative');
  });
});
