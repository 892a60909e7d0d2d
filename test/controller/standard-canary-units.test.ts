/**
 * Standard mode canaries, the pure part (controller/reconcile/standard/canary.ts and the
 * weighted routes): KServe's replica split (`canaryReplicaCount`,
 * `adjustStableMinReplicasForCanaries`), the canary predictor built over the stable one
 * (`buildCanaryPredictor`), `applyCanaryWeights`, and kserve-ts's A/B pin rules
 * (`serving.kserve.io/canary-header`). The real API server is
 * test/controller/standard-canary.test.ts.
 */
import type { V1Service } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { CanarySpec, CanaryStatus, InferenceService } from '../../controller/api/inference-service.js';
import { parseInferenceServiceConfig } from '../../controller/config/inferenceservice-config.js';
import { desiredHttpRoutes } from '../../controller/reconcile/ingress/http-route.js';
import { desiredIngress } from '../../controller/reconcile/ingress/kube-ingress.js';
import { canaryPredictor, canaryReplicas, canaryWeights, stableMinReplicas } from '../../controller/reconcile/standard/canary.js';

const canary = (name: string, trafficPercent: number, extra: Record<string, unknown> = {}): CanarySpec => ({
  predictor: { name, model: { modelFormat: { name: 'onnx' }, storageUri: `s3://m/${name}` }, ...extra },
  trafficPercent,
});

const isvc = (canaries: CanarySpec[], predictor: Record<string, unknown> = {}, transformer = false): InferenceService => ({
  apiVersion: 'serving.kserve.io/v1beta1',
  kind: 'InferenceService',
  metadata: { name: 'iris', namespace: 'ml', uid: 'u-1' },
  spec: {
    predictor: { minReplicas: 4, model: { modelFormat: { name: 'onnx' }, storageUri: 's3://m/v1' }, ...predictor },
    canary: canaries,
    ...(transformer ? { transformer: { containers: [{ name: 'kserve-container', image: 't' }] } } : {}),
  },
});

const ready = (...names: string[]): CanaryStatus[] => names.map((name) => ({ name, ready: true, trafficPercent: 0 }));

describe('replicas (KServe canary_controller_test)', () => {
  it.each<[string, number, number | undefined, number]>([
    ['25% of 4', 25, undefined, 1],
    ['50% of 4', 50, undefined, 2],
    ['10% of 4 rounds up', 10, undefined, 1],
    ['a dark launch has no share', 0, undefined, 0],
    ["the canary's own minReplicas", 25, 3, 3],
  ])('%s', (_, percent, min, expected) => {
    const c = canary('v2', percent, min === undefined ? {} : { minReplicas: min });
    expect(canaryReplicas(isvc([c]), c)).toBe(expected);
  });

  it('the stable floor drops by the replicas of ready canaries only, to at least 1', () => {
    const two = isvc([canary('v2', 25), canary('v3', 50)]);
    expect(stableMinReplicas(two, [])).toBeUndefined();
    expect(stableMinReplicas(two, ready('v2'))).toBe(3);
    expect(stableMinReplicas(two, ready('v2', 'v3'))).toBe(1);
    expect(stableMinReplicas(isvc([canary('v2', 100)]), ready('v2'))).toBe(1);
    expect(stableMinReplicas(isvc([canary('v2', 25)], { minReplicas: undefined }), ready('v2'))).toBeUndefined();
  });
});

describe('the canary predictor', () => {
  it("is the stable one with the canary's fields over it, autoscaling dropped, replicas fixed", () => {
    const stable = {
      minReplicas: 4,
      maxReplicas: 8,
      scaleMetric: 'cpu' as const,
      scaleTarget: 60,
      serviceAccountName: 'sa',
      model: { modelFormat: { name: 'onnx' }, storageUri: 's3://m/v1', args: ['--a'] },
    };
    const c: CanarySpec = { predictor: { name: 'v2', model: { modelFormat: { name: 'onnx' }, storageUri: 's3://m/v2' } }, trafficPercent: 25 };
    expect(canaryPredictor(stable, c, 1)).toEqual({
      name: 'v2',
      minReplicas: 1,
      serviceAccountName: 'sa',
      model: { modelFormat: { name: 'onnx' }, storageUri: 's3://m/v2', args: ['--a'] },
    });
    expect(stable.model.storageUri).toBe('s3://m/v1');
  });
});

describe('weights (applyCanaryWeights)', () => {
  const svc = (name: string): V1Service => ({ metadata: { name }, spec: { ports: [{ name, port: 80 }] } });
  const ingress = parseInferenceServiceConfig({ ingress: JSON.stringify({ enableGatewayApi: true }) }).ingress;
  const backends = (route: { spec: { rules: unknown[] } }) =>
    route.spec.rules.map((r) => (r as { backendRefs: { name: string; weight: number }[] }).backendRefs.map((b) => [b.name, b.weight]));

  it('only ready canaries get weight; the stable predictor the rest', () => {
    const i = isvc([canary('v2', 20), canary('v3', 30), canary('dark', 0)]);
    expect(canaryWeights(i, [])).toEqual([{ service: 'iris-predictor', weight: 100 }]);
    expect(canaryWeights(i, ready('v3', 'dark'))).toEqual([
      { service: 'iris-predictor', weight: 70 },
      { service: 'iris-v3-predictor', weight: 30, name: 'v3' },
      { service: 'iris-dark-predictor', weight: 0, name: 'dark' },
    ]);
    expect(canaryWeights(isvc([canary('v2', 20)], { name: 'v1' }), ready('v2'))).toEqual([
      { service: 'iris-v1-predictor', weight: 80, name: 'v1' },
      { service: 'iris-v2-predictor', weight: 20, name: 'v2' },
    ]);
    expect(canaryWeights(isvc([]), ready('v2'))).toEqual([]);
  });

  it("the predictor route keeps its name and host and sends to the named stable Service and the canaries'", () => {
    const i = isvc([canary('v2', 25)], { name: 'v1' });
    const weights = canaryWeights(i, ready('v2'));
    const [predictorRoute, top] = desiredHttpRoutes(i, ingress, { service: svc('iris-v1-predictor'), component: {}, weights }, undefined);
    expect(predictorRoute?.metadata.name).toBe('iris-predictor');
    expect(predictorRoute?.spec.hostnames).toEqual(['iris-predictor-ml.example.com']);
    expect(backends(predictorRoute!)).toEqual([
      [
        ['iris-v1-predictor', 75],
        ['iris-v2-predictor', 25],
      ],
    ]);
    expect(top?.metadata.name).toBe('iris');
    expect(backends(top!)).toEqual(backends(predictorRoute!));
  });

  it('a transformer keeps its backend on the top-level route (KServe rewrites it too)', () => {
    const i = isvc([canary('v2', 25)], {}, true);
    const weights = canaryWeights(i, ready('v2'));
    const routes = desiredHttpRoutes(i, ingress, { service: svc('iris-predictor'), component: {}, weights }, { service: svc('iris-transformer'), component: {} });
    expect(routes.map((r) => [r.metadata.name, backends(r)])).toEqual([
      [
        'iris-predictor',
        [
          [
            ['iris-predictor', 75],
            ['iris-v2-predictor', 25],
          ],
        ],
      ],
      ['iris-transformer', [[['iris-transformer', 1]]]],
      ['iris', [[['iris-transformer', 1]]]],
    ]);
  });

  it('the Ingress sends to the named stable Service, its host unchanged', () => {
    const ing = desiredIngress(isvc([], { name: 'v1' }), parseInferenceServiceConfig({}).ingress);
    expect(ing.spec?.rules?.map((r) => [r.host, r.http?.paths[0]?.backend.service?.name])).toEqual([
      ['iris-ml.example.com', 'iris-v1-predictor'],
      ['iris-predictor-ml.example.com', 'iris-v1-predictor'],
    ]);
  });
});

describe('the A/B pin header (serving.kserve.io/canary-header)', () => {
  const PIN = 'serving.kserve.io/canary-header';
  const ingress = parseInferenceServiceConfig({ ingress: JSON.stringify({ enableGatewayApi: true }) }).ingress;
  const svc = (name: string, ports: { name: string; port: number; appProtocol?: string }[] = [{ name: 'http', port: 80 }]): V1Service => ({ metadata: { name }, spec: { ports } });
  const pinned = (i: InferenceService): InferenceService => ({ ...i, metadata: { ...i.metadata, annotations: { [PIN]: 'x-canary' } } });
  interface Rule {
    matches: { path: { value: string }; headers?: { type: string; name: string; value: string }[] }[];
    backendRefs: { name: string; weight: number; port: number }[];
  }
  const rules = (route: { spec: { rules: unknown[] } }) =>
    (route.spec.rules as Rule[]).map((r) => ({
      path: r.matches.map((m) => m.path.value),
      headers: r.matches.map((m) => (m.headers ?? []).map((h) => `${h.name}=${h.value}`)),
      to: r.backendRefs.map((b) => `${b.name}:${b.port}@${b.weight}`),
    }));

  it('puts one rule per ready canary before the weighted rule, matching the header on the canary name and sending to that canary alone', () => {
    const i = pinned(isvc([canary('v2', 20), canary('slow', 10), canary('dark', 0)]));
    const weights = canaryWeights(i, ready('v2', 'dark'));
    const [predictorRoute, top] = desiredHttpRoutes(i, ingress, { service: svc('iris-predictor'), component: {}, weights }, undefined);
    const expected = [
      { path: ['^/.*$'], headers: [['x-canary=v2']], to: ['iris-v2-predictor:80@1'] },
      { path: ['^/.*$'], headers: [['x-canary=dark']], to: ['iris-dark-predictor:80@1'] },
      { path: ['^/.*$'], headers: [[]], to: ['iris-predictor:80@80', 'iris-v2-predictor:80@20', 'iris-dark-predictor:80@0'] },
    ];
    expect(rules(predictorRoute!)).toEqual(expected);
    expect(rules(top!)).toEqual(expected);
    // The pin match is Exact, and the pinned rule keeps KServe's filters and timeout.
    const first = predictorRoute!.spec.rules[0] as Rule & { filters: unknown[]; timeouts: unknown };
    expect(first.matches[0]!.headers).toEqual([{ type: 'Exact', name: 'x-canary', value: 'v2' }]);
    expect(first.filters).toEqual((predictorRoute!.spec.rules[2] as { filters: unknown[] }).filters);
    expect(first.timeouts).toEqual({ request: '60s' });
  });

  it('pins a named stable predictor too, and adds the header to the gRPC match beside content-type', () => {
    const i = pinned(isvc([canary('v2', 20)], { name: 'v1' }));
    const weights = canaryWeights(i, ready('v2'));
    const ports = [
      { name: 'http', port: 80 },
      { name: 'grpc', port: 8081, appProtocol: 'kubernetes.io/h2c' },
    ];
    const [predictorRoute] = desiredHttpRoutes(i, ingress, { service: svc('iris-v1-predictor', ports), component: {}, weights }, undefined);
    const grpc = '^/inference\\.GRPCInferenceService/.*$';
    expect(rules(predictorRoute!)).toEqual([
      { path: [grpc], headers: [['content-type=^application/grpc.*', 'x-canary=v1']], to: ['iris-v1-predictor:8081@1'] },
      { path: [grpc], headers: [['content-type=^application/grpc.*', 'x-canary=v2']], to: ['iris-v2-predictor:8081@1'] },
      { path: [grpc], headers: [['content-type=^application/grpc.*']], to: ['iris-v1-predictor:8081@80', 'iris-v2-predictor:8081@20'] },
      { path: ['^/.*$'], headers: [['x-canary=v1']], to: ['iris-v1-predictor:80@1'] },
      { path: ['^/.*$'], headers: [['x-canary=v2']], to: ['iris-v2-predictor:80@1'] },
      { path: ['^/.*$'], headers: [[]], to: ['iris-v1-predictor:80@80', 'iris-v2-predictor:80@20'] },
    ]);
  });

  it('adds nothing without the annotation, without ready canaries, or where a transformer is the entry', () => {
    const plain = isvc([canary('v2', 20)]);
    const [unpinned] = desiredHttpRoutes(plain, ingress, { service: svc('iris-predictor'), component: {}, weights: canaryWeights(plain, ready('v2')) }, undefined);
    expect(rules(unpinned!).map((r) => r.headers)).toEqual([[[]]]);
    const i = pinned(isvc([canary('v2', 20)]));
    const [notReady] = desiredHttpRoutes(i, ingress, { service: svc('iris-predictor'), component: {}, weights: canaryWeights(i, []) }, undefined);
    expect(rules(notReady!)).toEqual([{ path: ['^/.*$'], headers: [[]], to: ['iris-predictor:80@100'] }]);
    const t = pinned(isvc([canary('v2', 20)], {}, true));
    const routes = desiredHttpRoutes(
      t,
      ingress,
      { service: svc('iris-predictor'), component: {}, weights: canaryWeights(t, ready('v2')) },
      { service: svc('iris-transformer'), component: {} },
    );
    expect(routes.map((r) => [r.metadata.name, rules(r).length])).toEqual([
      ['iris-predictor', 2],
      ['iris-transformer', 1],
      ['iris', 1],
    ]);
  });

  it('pins the path-template rule of the top-level route as well', () => {
    const withPath = parseInferenceServiceConfig({ ingress: JSON.stringify({ enableGatewayApi: true, pathTemplate: '/serving/{{ .Namespace }}/{{ .Name }}' }) }).ingress;
    const i = pinned(isvc([canary('v2', 20)]));
    const routes = desiredHttpRoutes(i, withPath, { service: svc('iris-predictor'), component: {}, weights: canaryWeights(i, ready('v2')) }, undefined);
    expect(rules(routes[1]!).map((r) => [r.path[0], r.headers[0], r.to])).toEqual([
      ['^/.*$', ['x-canary=v2'], ['iris-v2-predictor:80@1']],
      ['^/.*$', [], ['iris-predictor:80@80', 'iris-v2-predictor:80@20']],
      ['/serving/ml/iris/', ['x-canary=v2'], ['iris-v2-predictor:80@1']],
      ['/serving/ml/iris/', [], ['iris-predictor:80@80', 'iris-v2-predictor:80@20']],
    ]);
  });
});
