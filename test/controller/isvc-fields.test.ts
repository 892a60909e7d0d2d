/**
 * InferenceService fields end to end on a real kube-apiserver: Standard mode's way in (a
 * Kubernetes Ingress, or Gateway API HTTPRoutes with the real Gateway API CRDs installed),
 * the status URLs, pod-spec fidelity (every PodSpec field group a user writes on a component
 * reaches the Deployment's pod template, merged with the runtime as KServe does), and KServe's
 * legacy framework shorthands. The controller runs as its ServiceAccount with the shipped
 * RBAC, so a missing rule (ingresses, httproutes) fails these tests.
 */
import { NetworkingV1Api, type V1Deployment, type V1PodSpec } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { HttpRoute } from '../../controller/reconcile/ingress/http-route.js';
import { type ControllerProcess, controllerSuiteHooks, startControllerSuite } from './controller-process.js';
import { type FakeKubelet, type TestControlPlane, waitFor } from './harness/index.js';
import { type Clients, conditionOf, isReady, isvcYaml, kubectlApply, kubectlApplyRejected, notFound, standardConfigYaml, waitForIsvc } from './kube-test-helpers.js';

vi.setConfig({ testTimeout: 150_000 });

const NS = 'fields';
let cp: TestControlPlane;
let c: Clients;
let net: NetworkingV1Api;
let kubelet: FakeKubelet;
let controller: ControllerProcess;

const routes = { group: 'gateway.networking.k8s.io', version: 'v1', namespace: NS, plural: 'httproutes' };

async function deployment(name: string): Promise<V1Deployment> {
  return waitFor(() => c.apps.readNamespacedDeployment({ name, namespace: NS }), { description: `Deployment ${name}` });
}

async function podSpecOf(isvc: string, spec: string, component = 'predictor'): Promise<V1PodSpec> {
  await kubectlApply(cp, isvcYaml(isvc, spec), NS);
  return (await deployment(`${isvc}-${component}`)).spec!.template.spec!;
}

beforeAll(async () => {
  ({ cp, c, kubelet, controller } = await startControllerSuite({
    namespace: NS,
    identity: 'fields-replica',
    config: standardConfigYaml({ ingressClassName: 'nginx' }),
    gatewayApi: true,
  }));
  net = cp.kubeConfig.makeApiClient(NetworkingV1Api);
}, 45 * 60_000);

controllerSuiteHooks(() => ({ controller, kubelet, cp }));

const ONNX = `    model:
      modelFormat: { name: onnx }
      storageUri: s3://models/x
`;

describe('Standard mode Ingress (ingress.ingressClassName, domainTemplate)', () => {
  it('predictor + transformer: one Ingress with KServe host rules, url, address and component URLs; deleted with the ISVC', async () => {
    await kubectlApply(cp, isvcYaml('ing', `  predictor:\n${ONNX}  transformer:\n    containers:\n      - name: kserve-container\n        image: transformer:1\n`), NS);
    const isvc = await waitForIsvc(c, NS, 'ing', isReady, 'Ready', 90_000);
    expect(isvc.status?.url).toBe('http://ing-fields.example.com');
    expect(isvc.status?.address?.url).toBe('http://ing-transformer.fields.svc.cluster.local');
    expect(isvc.status?.components?.['predictor']).toMatchObject({
      url: 'http://ing-predictor-fields.example.com',
      address: { url: 'http://ing-predictor.fields.svc.cluster.local' },
    });
    expect(isvc.status?.components?.['transformer']?.url).toBe('http://ing-transformer-fields.example.com');
    expect(conditionOf(isvc, 'IngressReady')?.status).toBe('True');

    const ingress = await net.readNamespacedIngress({ name: 'ing', namespace: NS });
    expect(ingress.spec?.ingressClassName).toBe('nginx');
    expect(ingress.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'InferenceService', name: 'ing', controller: true });
    const rules = ingress.spec?.rules?.map((r) => [
      r.host,
      r.http?.paths[0]?.path,
      r.http?.paths[0]?.pathType,
      r.http?.paths[0]?.backend.service?.name,
      r.http?.paths[0]?.backend.service?.port?.number,
    ]);
    expect(rules).toEqual([
      ['ing-fields.example.com', '/', 'Prefix', 'ing-transformer', 80],
      ['ing-transformer-fields.example.com', '/', 'Prefix', 'ing-transformer', 80],
      ['ing-predictor-fields.example.com', '/', 'Prefix', 'ing-predictor', 80],
    ]);

    await c.custom.deleteNamespacedCustomObject({ group: 'serving.kserve.io', version: 'v1beta1', namespace: NS, plural: 'inferenceservices', name: 'ing' });
    // The garbage collector's first pass waits for its discovery sync: slow on a cold control plane.
    await waitFor(() => notFound(net.readNamespacedIngress({ name: 'ing', namespace: NS })), {
      until: (gone) => gone,
      description: 'the Ingress garbage-collected',
      timeoutMs: 120_000,
    });
  });

  it('predictor + explainer with loggers: {isvc}-explainer Deployment, Service and HPA told the predictor host, ExplainerReady, :explain routed to it; deleted when taken out of the spec', async () => {
    await kubectlApply(
      cp,
      isvcYaml(
        'expl',
        `  predictor:
    logger: { url: "http://sink.fields:8080/events", mode: request, metadataHeaders: [x-tenant, traceparent] }
${ONNX}  explainer:
    minReplicas: 1
    maxReplicas: 2
    logger: {}
    containers:
      - name: my-explainer
        image: explainer:1
        args: [--workers, "2"]
`,
      ),
      NS,
    );
    const isvc = await waitForIsvc(c, NS, 'expl', isReady, 'Ready', 90_000);
    expect(conditionOf(isvc, 'ExplainerReady')?.status).toBe('True');
    expect(isvc.status?.components?.['explainer']).toEqual({
      url: 'http://expl-explainer-fields.example.com',
      address: { url: 'http://expl-explainer.fields.svc.cluster.local' },
    });
    // The predictor stays the entry point: the explainer is reached by its verb.
    expect(isvc.status?.address?.url).toBe('http://expl-predictor.fields.svc.cluster.local');

    const explainer = (await deployment('expl-explainer')).spec!.template;
    expect(explainer.metadata?.labels).toMatchObject({ component: 'explainer', 'serving.kserve.io/inferenceservice': 'expl' });
    const identity = (component: string) => ['--logger_inference_service', 'expl', '--logger_namespace', NS, '--logger_component', component, '--logger_endpoint', 'default'];
    expect(explainer.spec!.containers.map((k) => [k.name, k.image, k.args])).toEqual([
      [
        'kserve-container',
        'explainer:1',
        [
          '--workers',
          '2',
          '--model_name',
          'expl',
          '--predictor_host',
          'expl-predictor.fields',
          '--http_port',
          '8080',
          '--logger_url',
          'http://default-broker',
          '--logger_mode',
          'all',
          ...identity('explainer'),
        ],
      ],
    ]);
    const predictorArgs = (await deployment('expl-predictor')).spec!.template.spec!.containers[0]!.args!;
    expect(predictorArgs.slice(-14)).toEqual([
      '--logger_url',
      'http://sink.fields:8080/events',
      '--logger_mode',
      'request',
      ...identity('predictor'),
      '--logger_metadata_headers',
      'x-tenant,traceparent',
    ]);
    const svc = await c.core.readNamespacedService({ name: 'expl-explainer', namespace: NS });
    expect(svc.spec?.ports?.[0]).toMatchObject({ port: 80, targetPort: 8080 });
    const hpa = await c.autoscaling.readNamespacedHorizontalPodAutoscaler({ name: 'expl-explainer', namespace: NS });
    expect(hpa.spec).toMatchObject({ minReplicas: 1, maxReplicas: 2, scaleTargetRef: { kind: 'Deployment', name: 'expl-explainer' } });

    // The API server accepted the explain path (an Ingress path must start with '/').
    const ingress = await net.readNamespacedIngress({ name: 'expl', namespace: NS });
    expect(ingress.spec?.rules?.map((r) => [r.host, r.http?.paths.map((p) => `${p.pathType} ${p.path} → ${p.backend.service?.name}`)])).toEqual([
      ['expl-fields.example.com', ['Exact /v1/models/expl:explain → expl-explainer', 'Prefix / → expl-predictor']],
      ['expl-explainer-fields.example.com', ['Prefix / → expl-explainer']],
      ['expl-predictor-fields.example.com', ['Prefix / → expl-predictor']],
    ]);

    expect((await deployment('expl-explainer')).metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'InferenceService', name: 'expl', controller: true });

    // The explainer taken out of the spec: its objects go, and so do its status and route.
    await kubectlApply(cp, isvcYaml('expl', `  predictor:\n${ONNX}`), NS);
    for (const read of [
      () => c.apps.readNamespacedDeployment({ name: 'expl-explainer', namespace: NS }),
      () => c.core.readNamespacedService({ name: 'expl-explainer', namespace: NS }),
      () => c.autoscaling.readNamespacedHorizontalPodAutoscaler({ name: 'expl-explainer', namespace: NS }),
    ]) {
      await waitFor(() => notFound(read()), { until: (gone) => gone, description: 'explainer objects deleted', timeoutMs: 60_000 });
    }
    const after = await waitForIsvc(c, NS, 'expl', (i) => isReady(i) && !i.status?.components?.['explainer'], 'Ready without the explainer', 60_000);
    expect(conditionOf(after, 'ExplainerReady')).toBeUndefined();
    const routesAfter = (await net.readNamespacedIngress({ name: 'expl', namespace: NS })).spec?.rules?.map((r) => r.host);
    expect(routesAfter).toEqual(['expl-fields.example.com', 'expl-predictor-fields.example.com']);

    await c.custom.deleteNamespacedCustomObject({ group: 'serving.kserve.io', version: 'v1beta1', namespace: NS, plural: 'inferenceservices', name: 'expl' });
    await waitFor(() => notFound(c.apps.readNamespacedDeployment({ name: 'expl-predictor', namespace: NS })), {
      until: (gone) => gone,
      description: 'the predictor garbage-collected',
      timeoutMs: 120_000,
    });
  });

  it("the CRD refuses built-in explainers and what only KServe's logger agent does, each by name", async () => {
    const art = await kubectlApplyRejected(cp, isvcYaml('art', `  predictor:\n${ONNX}  explainer:\n    art: { type: SquareAttack }\n`), NS);
    expect(art).toContain('built-in explainers (explainer.art, explainer.alibi) are not supported by kserve-ts');
    const empty = await kubectlApplyRejected(cp, isvcYaml('noexpl', `  predictor:\n${ONNX}  explainer:\n    minReplicas: 1\n`), NS);
    expect(empty).toContain('spec.explainer.containers must name at least one container');
    const storage = await kubectlApplyRejected(cp, isvcYaml('logstore', `  predictor:\n    logger: { storage: { path: /logs, key: k } }\n${ONNX}`), NS);
    expect(storage).toContain('logger.storage (request logs written to storage) is not supported by kserve-ts');
    const mode = await kubectlApplyRejected(cp, isvcYaml('logmode', `  predictor:\n    logger: { mode: both }\n${ONNX}`), NS);
    expect(mode).toMatch(/spec.predictor.logger.mode: Unsupported value: "both"/);
  });

  it('a cluster-local InferenceService gets no Ingress, but a url and IngressReady', async () => {
    await kubectlApply(
      cp,
      `${isvcYaml('local', `  predictor:\n${ONNX}`).replace('  name: local\n', '  name: local\n  labels:\n    networking.kserve.io/visibility: cluster-local\n')}`,
      NS,
    );
    const isvc = await waitForIsvc(c, NS, 'local', isReady, 'Ready', 90_000);
    expect(isvc.status?.url).toBe('http://local-fields.example.com');
    expect(await notFound(net.readNamespacedIngress({ name: 'local', namespace: NS }))).toBe(true);
  });
});

describe('Gateway API HTTPRoutes (ingress.enableGatewayApi)', () => {
  beforeAll(async () => {
    await kubectlApply(
      cp,
      standardConfigYaml({
        enableGatewayApi: true,
        kserveIngressGateway: 'kserve/kserve-ingress-gateway',
        domainTemplate: '{{ .Name }}.{{ .Namespace }}.{{ .IngressDomain }}',
        pathTemplate: '/serving/{{ .Namespace }}/{{ .Name }}',
      }),
    );
  });
  afterAll(async () => {
    await kubectlApply(cp, standardConfigYaml({ ingressClassName: 'nginx' }));
  });

  /** What a Gateway controller reports once it has accepted the route. */
  async function gatewayAccepts(name: string): Promise<void> {
    const route = (await c.custom.getNamespacedCustomObject({ ...routes, name })) as HttpRoute;
    await c.custom.replaceNamespacedCustomObjectStatus({
      ...routes,
      name,
      body: {
        ...route,
        status: {
          parents: [
            {
              parentRef: { group: 'gateway.networking.k8s.io', kind: 'Gateway', namespace: 'kserve', name: 'kserve-ingress-gateway' },
              controllerName: 'example.com/gateway-controller',
              conditions: [
                {
                  type: 'Accepted',
                  status: 'True',
                  reason: 'Accepted',
                  message: 'accepted',
                  lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
                  observedGeneration: route.metadata.generation ?? 1,
                },
                {
                  type: 'ResolvedRefs',
                  status: 'True',
                  reason: 'ResolvedRefs',
                  message: 'resolved',
                  lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
                  observedGeneration: route.metadata.generation ?? 1,
                },
              ],
            },
          ],
        },
      },
    });
  }

  it('per-component and top-level HTTPRoutes; IngressReady waits for the Gateway to accept them', async () => {
    await kubectlApply(cp, isvcYaml('gw', `  predictor:\n    timeout: 30\n${ONNX}`), NS);
    const pending = await waitForIsvc(c, NS, 'gw', (i) => conditionOf(i, 'IngressReady')?.reason === 'ParentStatusNotAvailable', 'routes waiting for the Gateway', 90_000);
    expect(conditionOf(pending, 'Ready')?.status).toBe('False');

    const predictorRoute = (await c.custom.getNamespacedCustomObject({ ...routes, name: 'gw-predictor' })) as HttpRoute;
    expect(predictorRoute.spec.hostnames).toEqual(['gw-predictor.fields.example.com']);
    expect(predictorRoute.spec.parentRefs).toEqual([{ group: 'gateway.networking.k8s.io', kind: 'Gateway', namespace: 'kserve', name: 'kserve-ingress-gateway' }]);
    expect(predictorRoute.spec.rules).toEqual([
      {
        matches: [{ path: { type: 'RegularExpression', value: '^/.*$' } }],
        filters: [
          {
            type: 'RequestHeaderModifier',
            requestHeaderModifier: {
              set: [
                { name: 'KServe-Isvc-Name', value: 'gw' },
                { name: 'KServe-Isvc-Namespace', value: NS },
              ],
            },
          },
        ],
        backendRefs: [{ group: '', kind: 'Service', name: 'gw-predictor', namespace: NS, port: 80, weight: 1 }],
        timeouts: { request: '30s' },
      },
    ]);
    expect(predictorRoute.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'InferenceService', name: 'gw', controller: true });
    const top = (await c.custom.getNamespacedCustomObject({ ...routes, name: 'gw' })) as HttpRoute;
    // pathTemplate: the ingress domain and the ISVC's path go to the entry component too.
    expect(top.spec.hostnames).toEqual(['gw.fields.example.com', 'example.com']);
    expect((top.spec.rules[1] as { matches: unknown[] }).matches).toEqual([{ path: { type: 'RegularExpression', value: '/serving/fields/gw/' } }]);
    expect(await notFound(net.readNamespacedIngress({ name: 'gw', namespace: NS }))).toBe(true);

    await gatewayAccepts('gw-predictor');
    await gatewayAccepts('gw');
    const isvc = await waitForIsvc(c, NS, 'gw', isReady, 'Ready once the Gateway accepted both routes', 60_000);
    expect(isvc.status?.url).toBe('http://gw.fields.example.com');
    expect(isvc.status?.address?.url).toBe('http://gw-predictor.fields.svc.cluster.local');

    await c.custom.deleteNamespacedCustomObject({ group: 'serving.kserve.io', version: 'v1beta1', namespace: NS, plural: 'inferenceservices', name: 'gw' });
    await waitFor(() => notFound(c.custom.getNamespacedCustomObject({ ...routes, name: 'gw-predictor' })), {
      until: (gone) => gone,
      description: 'routes garbage-collected',
      timeoutMs: 120_000,
    });
  });
});

describe('pod-spec fidelity: component PodSpec fields reach the Deployment pod template', () => {
  it('volumes and volumeMounts (merged into the runtime container by mountPath)', async () => {
    const pod = await podSpecOf(
      'vol',
      `  predictor:
    volumes:
      - name: cache
        emptyDir: { medium: Memory }
      - name: cfg
        configMap: { name: my-config }
    model:
      modelFormat: { name: onnx }
      storageUri: s3://models/x
      volumeMounts:
        - { name: cache, mountPath: /cache }
        - { name: cfg, mountPath: /etc/cfg, readOnly: true }
`,
    );
    expect(pod.volumes).toEqual([
      { name: 'cache', emptyDir: { medium: 'Memory' } },
      { name: 'cfg', configMap: { name: 'my-config', defaultMode: 420 } },
    ]);
    expect(pod.containers[0]?.volumeMounts).toEqual([
      { name: 'cache', mountPath: '/cache' },
      { name: 'cfg', mountPath: '/etc/cfg', readOnly: true },
    ]);
  });

  it('env (merged with the runtime by name) and envFrom', async () => {
    const pod = await podSpecOf(
      'env',
      `  predictor:
    model:
      modelFormat: { name: onnx }
      storageUri: s3://models/x
      env:
        - { name: LOG_LEVEL, value: debug }
        - name: TOKEN
          valueFrom: { secretKeyRef: { name: s, key: token } }
      envFrom:
        - configMapRef: { name: extra-env }
`,
    );
    const c0 = pod.containers[0]!;
    expect(c0.env).toEqual(
      expect.arrayContaining([
        { name: 'LOG_LEVEL', value: 'debug' },
        { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 's', key: 'token' } } },
        { name: 'STORAGE_URI', value: 's3://models/x' },
      ]),
    );
    expect(c0.envFrom).toEqual([{ configMapRef: { name: 'extra-env' } }]);
  });

  it('pod and container securityContext', async () => {
    const pod = await podSpecOf(
      'sec',
      `  predictor:
    securityContext: { runAsNonRoot: true, runAsUser: 1000, fsGroup: 2000 }
    model:
      modelFormat: { name: onnx }
      storageUri: s3://models/x
      securityContext:
        allowPrivilegeEscalation: false
        readOnlyRootFilesystem: true
        capabilities: { drop: [ALL] }
`,
    );
    expect(pod.securityContext).toEqual({ runAsNonRoot: true, runAsUser: 1000, fsGroup: 2000 });
    expect(pod.containers[0]?.securityContext).toEqual({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
  });

  it('initContainers and extra containers (after the runtime container)', async () => {
    const pod = await podSpecOf(
      'side',
      `  predictor:
    initContainers:
      - { name: warm-up, image: busybox:1, command: [sh, -c, 'true'] }
    containers:
      - { name: log-shipper, image: shipper:2 }
      - { name: transformer-container, image: transformer:3 }
    model:
      modelFormat: { name: onnx }
      storageUri: s3://models/x
`,
    );
    expect(pod.initContainers?.map((i) => [i.name, i.image, i.command])).toEqual([['warm-up', 'busybox:1', ['sh', '-c', 'true']]]);
    // KServe's order: the model container, a collocated transformer-container, the rest.
    expect(pod.containers.map((x) => [x.name, x.image])).toEqual([
      ['kserve-container', 'kserve-ts-server:0.1.0'],
      ['transformer-container', 'transformer:3'],
      ['log-shipper', 'shipper:2'],
    ]);
  });

  it('scheduling: nodeSelector, tolerations, affinity, priorityClassName, runtimeClassName, topologySpreadConstraints', async () => {
    const pod = await podSpecOf(
      'sched',
      `  predictor:
    nodeSelector: { accelerator: none, zone: a }
    tolerations:
      - { key: dedicated, operator: Equal, value: inference, effect: NoSchedule }
    affinity:
      podAntiAffinity:
        preferredDuringSchedulingIgnoredDuringExecution:
          - weight: 50
            podAffinityTerm:
              topologyKey: kubernetes.io/hostname
              labelSelector: { matchLabels: { app: isvc.sched-predictor } }
    priorityClassName: inference-high
    runtimeClassName: gvisor
    topologySpreadConstraints:
      - { maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway, labelSelector: { matchLabels: { app: isvc.sched-predictor } } }
    model:
      modelFormat: { name: onnx }
      storageUri: s3://models/x
`,
    );
    expect(pod.nodeSelector).toEqual({ accelerator: 'none', zone: 'a' });
    expect(pod.tolerations).toEqual([{ key: 'dedicated', operator: 'Equal', value: 'inference', effect: 'NoSchedule' }]);
    expect(pod.affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution?.[0]?.weight).toBe(50);
    expect(pod.priorityClassName).toBe('inference-high');
    expect(pod.runtimeClassName).toBe('gvisor');
    expect(pod.topologySpreadConstraints?.[0]).toMatchObject({ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway' });
  });

  it('imagePullSecrets, serviceAccountName and the rest of the pod (dnsPolicy, terminationGracePeriodSeconds, hostAliases)', async () => {
    await c.core.createNamespacedServiceAccount({ namespace: NS, body: { metadata: { name: 'model-reader' } } });
    const pod = await podSpecOf(
      'sa',
      `  predictor:
    serviceAccountName: model-reader
    imagePullSecrets: [{ name: registry-creds }]
    dnsPolicy: ClusterFirst
    terminationGracePeriodSeconds: 45
    hostAliases: [{ ip: 10.0.0.1, hostnames: [models.internal] }]
    model:
      modelFormat: { name: onnx }
      storageUri: s3://models/x
`,
    );
    expect(pod.serviceAccountName).toBe('model-reader');
    expect(pod.imagePullSecrets).toEqual([{ name: 'registry-creds' }]);
    expect(pod.terminationGracePeriodSeconds).toBe(45);
    expect(pod.hostAliases).toEqual([{ ip: '10.0.0.1', hostnames: ['models.internal'] }]);
  });

  it('component labels and annotations reach the pod template', async () => {
    await kubectlApply(cp, isvcYaml('meta', `  predictor:\n    labels: { team: vision }\n    annotations: { example.com/owner: vision-team }\n${ONNX}`), NS);
    const dep = await deployment('meta-predictor');
    expect(dep.spec?.template.metadata?.labels).toMatchObject({ team: 'vision', 'serving.kserve.io/inferenceservice': 'meta', component: 'predictor' });
    expect(dep.spec?.template.metadata?.annotations).toMatchObject({ 'example.com/owner': 'vision-team' });
  });

  it('resources, ports and probes: merged over the runtime container field by field', async () => {
    const pod = await podSpecOf(
      'res',
      `  predictor:
    model:
      modelFormat: { name: onnx }
      storageUri: s3://models/x
      resources:
        limits: { memory: 4Gi }
      ports:
        - { containerPort: 8080, name: http1, protocol: TCP }
        - { containerPort: 8081, name: grpc, protocol: TCP }
      readinessProbe:
        periodSeconds: 3
      livenessProbe:
        httpGet: { path: /v2/health/live, port: 8080 }
`,
    );
    const c0 = pod.containers[0]!;
    // The runtime's requests and cpu limit stay; the ISVC's memory limit wins.
    expect(c0.resources).toEqual({ requests: { cpu: '1', memory: '512Mi' }, limits: { cpu: '1', memory: '4Gi' } });
    expect(c0.ports?.map((p) => [p.containerPort, p.name])).toEqual([
      [8080, 'http1'],
      [8081, 'grpc'],
    ]);
    // The runtime's readiness probe keeps its httpGet; the ISVC adds periodSeconds.
    expect(c0.readinessProbe).toMatchObject({ httpGet: { path: '/v2/health/ready', port: 8080 }, periodSeconds: 3 });
    expect(c0.livenessProbe).toMatchObject({ httpGet: { path: '/v2/health/live', port: 8080 } });
    const svc = await c.core.readNamespacedService({ name: 'res-predictor', namespace: NS });
    expect(svc.spec?.ports?.map((p) => [p.port, p.targetPort])).toEqual([
      [80, 8080],
      [8081, 8081],
    ]);
  });

  it('a custom predictor and a transformer keep their whole PodSpec', async () => {
    const pod = await podSpecOf(
      'custom',
      `  predictor:
    nodeSelector: { pool: cpu }
    volumes: [{ name: scratch, emptyDir: {} }]
    containers:
      - name: kserve-container
        image: my-server:1
        volumeMounts: [{ name: scratch, mountPath: /scratch }]
  transformer:
    securityContext: { runAsUser: 1234 }
    tolerations: [{ key: t, operator: Exists }]
    containers:
      - { name: kserve-container, image: my-transformer:1 }
`,
    );
    expect(pod.nodeSelector).toEqual({ pool: 'cpu' });
    expect(pod.volumes?.[0]?.name).toBe('scratch');
    expect(pod.containers[0]?.volumeMounts).toEqual([{ name: 'scratch', mountPath: '/scratch' }]);
    const transformer = (await deployment('custom-transformer')).spec!.template.spec!;
    expect(transformer.securityContext).toEqual({ runAsUser: 1234 });
    expect(transformer.tolerations).toEqual([{ key: 't', operator: 'Exists' }]);
  });

  it('a PodSpec the API server refuses is PredictorReady=False InvalidSpec with its message', async () => {
    await kubectlApply(
      cp,
      isvcYaml(
        'badmount',
        `  predictor:\n    model:\n      modelFormat: { name: onnx }\n      storageUri: s3://models/x\n      volumeMounts: [{ name: nowhere, mountPath: /x }]\n`,
      ),
      NS,
    );
    const isvc = await waitForIsvc(c, NS, 'badmount', (i) => conditionOf(i, 'PredictorReady')?.reason === 'InvalidSpec', 'InvalidSpec');
    expect(conditionOf(isvc, 'PredictorReady')?.message).toMatch(/the API server refused the predictor's workload: .*volumeMounts\[0\]\.name: Not found: "nowhere"/);
    expect(conditionOf(isvc, 'Ready')?.status).toBe('False');
  });

  it('the CRD still refuses a field that is neither KServe PodSpec nor a component field', async () => {
    const err = await kubectlApplyRejected(cp, isvcYaml('typo', `  predictor:\n    nodeSelectr: { a: b }\n${ONNX}`), NS);
    expect(err).toMatch(/unknown field "spec.predictor.nodeSelectr"/);
    // predictor.name is served (test/controller/standard-canary.test.ts), with KServe's pattern.
    const named = await kubectlApplyRejected(cp, isvcYaml('named', `  predictor:\n    name: Blue_1\n${ONNX}`), NS);
    expect(named).toContain('spec.predictor.name: Invalid value: "Blue_1"');
  });
});

describe('legacy framework shorthands', () => {
  it('predictor.onnx is served by the onnx runtime, stored as model with protocol v2', async () => {
    await kubectlApply(cp, isvcYaml('legacy-onnx', `  predictor:\n    onnx:\n      storageUri: s3://models/onnx\n      resources: { limits: { memory: 3Gi } }\n`), NS);
    const isvc = await waitForIsvc(c, NS, 'legacy-onnx', isReady, 'Ready', 90_000);
    expect(isvc.spec.predictor.model).toMatchObject({ modelFormat: { name: 'onnx' }, storageUri: 's3://models/onnx', protocolVersion: 'v2' });
    expect(isvc.spec.predictor.onnx).toBeUndefined();
    expect(isvc.status?.clusterServingRuntimeName).toBe('kserve-ts');
    const dep = await deployment('legacy-onnx-predictor');
    expect(dep.spec?.template.spec?.containers[0]?.resources?.limits?.memory).toBe('3Gi');
  });

  it.each(['sklearn', 'xgboost', 'pytorch', 'triton', 'huggingface', 'pmml', 'lightgbm', 'paddle'])(
    'predictor.%s is accepted and, with no runtime for the format, says so',
    async (framework) => {
      const name = `legacy-${framework}`;
      await kubectlApply(cp, isvcYaml(name, `  predictor:\n    ${framework}:\n      storageUri: s3://models/${framework}\n`), NS);
      const isvc = await waitForIsvc(c, NS, name, (i) => conditionOf(i, 'PredictorReady')?.reason === 'NoSupportingRuntime', 'NoSupportingRuntime');
      expect(isvc.spec.predictor.model?.modelFormat).toEqual({ name: framework });
      expect(conditionOf(isvc, 'Ready')?.status).toBe('False');
      expect(isvc.status?.modelStatus).toMatchObject({ transitionStatus: 'InvalidSpec', lastFailureInfo: { reason: 'NoSupportingRuntime' } });
      expect(isvc.status?.modelStatus?.lastFailureInfo?.message).toContain(`model format '${framework}'`);
    },
  );

  it("two implementations are refused with KServe's message", async () => {
    const err = await kubectlApplyRejected(cp, isvcYaml('two', `  predictor:\n    sklearn: { storageUri: s3://a }\n    xgboost: { storageUri: s3://b }\n`), NS);
    expect(err).toContain(
      'exactly one of [Name, SKLearn, XGBoost, Tensorflow, PyTorch, Triton, ONNX, HuggingFace, PMML, LightGBM, Paddle, Model, StorageUris, StorageContainerName, WorkerSpec, PodSpec] must be specified in PredictorSpec',
    );
    const withModel = await kubectlApplyRejected(cp, isvcYaml('two', `  predictor:\n    pmml: { storageUri: s3://a }\n${ONNX}`), NS);
    expect(withModel).toContain('exactly one of [');
  });
});

describe('credentials (#16)', () => {
  const ACCESS = 'AKIAFIELDSTEST0000ZZ';
  const SECRET = 'fields-secret-key-Zm9vYmFyYmF6cXV4';
  it('S3 credentials reach the pod as secret references; no credential value is in the controller log (debug level)', async () => {
    await kubectlApply(
      cp,
      `apiVersion: v1
kind: Secret
metadata:
  name: s3-creds
  annotations: { serving.kserve.io/s3-endpoint: "s3.local:9000", serving.kserve.io/s3-usehttps: "0" }
stringData: { AWS_ACCESS_KEY_ID: ${ACCESS}, AWS_SECRET_ACCESS_KEY: ${SECRET} }
---
apiVersion: v1
kind: ServiceAccount
metadata: { name: s3-reader }
secrets: [{ name: s3-creds }]
---
apiVersion: v1
kind: Secret
metadata: { name: storage-config }
stringData: { broken: '{"type": "s3", "secret_access_key": ${SECRET}' }
`,
      NS,
    );
    await kubectlApply(
      cp,
      isvcYaml(
        'creds',
        `  predictor:
    serviceAccountName: s3-reader
${ONNX}`,
      ),
      NS,
    );
    await waitForIsvc(c, NS, 'creds', isReady, 'Ready', 90_000);
    const pods = await c.core.listNamespacedPod({ namespace: NS, labelSelector: 'serving.kserve.io/inferenceservice=creds' });
    const init = pods.items[0]?.spec?.initContainers?.find((i) => i.name === 'storage-initializer');
    expect(init?.env).toContainEqual({ name: 'AWS_SECRET_ACCESS_KEY', valueFrom: { secretKeyRef: { name: 's3-creds', key: 'AWS_SECRET_ACCESS_KEY' } } });
    // A storage spec whose secret entry is not JSON: the pod is refused, the secret not quoted.
    await kubectlApply(
      cp,
      isvcYaml(
        'broken',
        `  predictor:
    model:
      modelFormat: { name: onnx }
      storage: { key: broken, path: m/x }
`,
      ),
      NS,
    );
    const rs = await waitFor(() => c.apps.listNamespacedReplicaSet({ namespace: NS, labelSelector: 'serving.kserve.io/inferenceservice=broken' }), {
      until: (l) => (l.items[0]?.status?.conditions ?? []).some((x) => x.type === 'ReplicaFailure'),
      description: 'the ReplicaSet reports the refused pod',
      timeoutMs: 60_000,
    });
    const failure = rs.items[0]?.status?.conditions?.find((x) => x.type === 'ReplicaFailure')?.message ?? '';
    expect(failure).toContain("key 'broken' of storage secret 'storage-config' is not valid JSON");
    expect(failure).not.toContain(SECRET);
    const log = controller.cli.output();
    expect(log).toContain('"level":20'); // debug lines are there
    for (const value of [ACCESS, SECRET, Buffer.from(SECRET).toString('base64')]) expect(log.includes(value), `controller log contains ${value}`).toBe(false);
  });

  it('Hugging Face and HDFS credentials, and an hdfs storage spec, reach the storage-initializer through the real pod webhook (#18)', async () => {
    await kubectlApply(
      cp,
      `apiVersion: v1
kind: Secret
metadata: { name: hf-creds }
stringData: { HF_TOKEN: hf_fields_token }
---
apiVersion: v1
kind: Secret
metadata: { name: hdfs-creds }
stringData: { HDFS_NAMENODE: "http://namenode:9870", USER_PROXY: kserve }
---
apiVersion: v1
kind: ServiceAccount
metadata: { name: hub-reader }
secrets: [{ name: hf-creds }, { name: hdfs-creds }]
---
apiVersion: v1
kind: Secret
metadata: { name: hdfs-storage }
stringData: { default_hdfs: '{"type": "hdfs", "HDFS_NAMENODE": "http://namenode:9870"}' }
`,
      NS,
    );
    const initOf = async (isvc: string) => {
      const pods = await waitFor(() => c.core.listNamespacedPod({ namespace: NS, labelSelector: `serving.kserve.io/inferenceservice=${isvc}` }), {
        until: (l) => l.items.length > 0,
        description: `a pod of ${isvc}`,
        timeoutMs: 90_000,
      });
      return { pod: pods.items[0]!.spec!, init: pods.items[0]!.spec!.initContainers!.find((i) => i.name === 'storage-initializer')! };
    };
    await kubectlApply(
      cp,
      isvcYaml(
        'hub',
        `  predictor:
    serviceAccountName: hub-reader
    model:
      modelFormat: { name: onnx }
      storageUri: hf://org/model
`,
      ),
      NS,
    );
    const hub = await initOf('hub');
    expect(hub.init.env).toEqual(
      expect.arrayContaining([
        { name: 'HF_TOKEN', valueFrom: { secretKeyRef: { name: 'hf-creds', key: 'HF_TOKEN' } } },
        { name: 'HDFS_SECRET_DIR', value: '/var/secrets/kserve-hdfscreds' },
      ]),
    );
    expect(hub.init.volumeMounts).toContainEqual({ name: 'hdfs-secrets', mountPath: '/var/secrets/kserve-hdfscreds', readOnly: true });
    expect(hub.pod.volumes).toContainEqual(expect.objectContaining({ name: 'hdfs-secrets', secret: expect.objectContaining({ secretName: 'hdfs-creds' }) }));

    await kubectlApply(
      cp,
      isvcYaml(
        'hdfsspec',
        `  predictor:
    model:
      modelFormat: { name: onnx }
      storage: { path: models/iris, parameters: { type: hdfs } }
`,
        { 'serving.kserve.io/secretName': 'hdfs-storage' },
      ),
      NS,
    );
    const spec = await initOf('hdfsspec');
    expect(spec.init.args).toEqual(['hdfs://models/iris', '/mnt/models']);
    expect(spec.init.env).toContainEqual({ name: 'STORAGE_CONFIG', valueFrom: { secretKeyRef: { name: 'hdfs-storage', key: 'default_hdfs' } } });
  });
});
