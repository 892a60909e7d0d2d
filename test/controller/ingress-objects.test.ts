/**
 * The Ingress and HTTPRoute objects Standard mode makes (KServe's raw ingress and HTTPRoute
 * reconcilers), built from an InferenceService and the `ingress` config; the real API server
 * accepting them is test/controller/isvc-fields.test.ts.
 */
import type { V1Service } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { InferenceService } from '../../controller/api/inference-service.js';
import { parseInferenceServiceConfig } from '../../controller/config/inferenceservice-config.js';
import { hostFor } from '../../controller/reconcile/ingress/domain.js';
import { desiredHttpRoutes, httpRouteProblem, httpRouteReportedCurrent, type HttpRoute } from '../../controller/reconcile/ingress/http-route.js';
import { desiredIngress } from '../../controller/reconcile/ingress/kube-ingress.js';

const isvc = (transformer = false): InferenceService => ({
  apiVersion: 'serving.kserve.io/v1beta1',
  kind: 'InferenceService',
  metadata: { name: 'iris', namespace: 'ml', uid: 'u-1', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}', team: 'a' } },
  spec: {
    predictor: { timeout: 20, model: { modelFormat: { name: 'onnx' } } },
    ...(transformer ? { transformer: { containers: [{ name: 'kserve-container', image: 't' }] } } : {}),
  },
});

const withExplainer = (transformer = false): InferenceService => {
  const base = isvc(transformer);
  return { ...base, spec: { ...base.spec, explainer: { containers: [{ name: 'kserve-container', image: 'e' }] } } };
};

const ingressConfig = (ingress: Record<string, unknown> = {}) => parseInferenceServiceConfig({ ingress: JSON.stringify(ingress) }).ingress;

const service = (name: string, ports: { name: string; port: number; appProtocol?: string }[]): V1Service => ({ metadata: { name }, spec: { ports } });

describe('Ingress', () => {
  it('routes the top-level host to the predictor without a transformer; copies annotations but not kubectl state', () => {
    const ing = desiredIngress(isvc(), ingressConfig({ ingressClassName: 'nginx' }));
    expect(ing.spec?.ingressClassName).toBe('nginx');
    expect(ing.spec?.rules?.map((r) => [r.host, r.http?.paths[0]?.backend.service?.name])).toEqual([
      ['iris-ml.example.com', 'iris-predictor'],
      ['iris-predictor-ml.example.com', 'iris-predictor'],
    ]);
    expect(ing.metadata?.annotations).toEqual({ team: 'a' });
    expect(ing.metadata?.ownerReferences?.[0]).toMatchObject({ uid: 'u-1', controller: true });
  });

  it('leaves ingressClassName out when the config has none (the cluster default class)', () => {
    expect(desiredIngress(isvc(true), ingressConfig()).spec).not.toHaveProperty('ingressClassName');
  });
});

describe('explain routing', () => {
  it('Ingress: the explain path of the model on the top-level host to the explainer ahead of /, and the explainer host', () => {
    const ing = desiredIngress(withExplainer(), ingressConfig());
    expect(ing.spec?.rules?.map((r) => [r.host, r.http?.paths.map((p) => [p.path, p.pathType, p.backend.service?.name])])).toEqual([
      [
        'iris-ml.example.com',
        [
          ['/v1/models/iris:explain', 'Exact', 'iris-explainer'],
          ['/', 'Prefix', 'iris-predictor'],
        ],
      ],
      ['iris-explainer-ml.example.com', [['/', 'Prefix', 'iris-explainer']]],
      ['iris-predictor-ml.example.com', [['/', 'Prefix', 'iris-predictor']]],
    ]);
  });

  it('Ingress with a transformer too: explain to the explainer, the rest to the transformer', () => {
    const top = desiredIngress(withExplainer(true), ingressConfig()).spec?.rules?.[0];
    expect(top?.http?.paths.map((p) => p.backend.service?.name)).toEqual(['iris-explainer', 'iris-transformer']);
  });

  it("HTTPRoutes: an explainer route, and KServe's explain regex first on the top-level route", () => {
    const predictor = { service: service('iris-predictor', [{ name: 'iris-predictor', port: 80 }]), component: {} };
    const explainer = { service: service('iris-explainer', [{ name: 'iris-explainer', port: 80 }]), component: { timeout: 90 } };
    const routes = desiredHttpRoutes(withExplainer(), ingressConfig({ enableGatewayApi: true }), predictor, undefined, explainer);
    expect(routes.map((r) => r.metadata.name)).toEqual(['iris-predictor', 'iris-explainer', 'iris']);
    const top = routes[2]!.spec.rules as { matches: unknown[]; backendRefs: { name: string }[]; timeouts: unknown }[];
    expect(top.map((r) => [r.matches, r.backendRefs[0]?.name])).toEqual([
      [[{ path: { type: 'RegularExpression', value: '^/v1/models/[\\w-]+:explain$' } }], 'iris-explainer'],
      [[{ path: { type: 'RegularExpression', value: '^/.*$' } }], 'iris-predictor'],
    ]);
    expect(top[0]?.timeouts).toEqual({ request: '90s' });
  });
});

describe('HTTPRoute', () => {
  const predictor = { service: service('iris-predictor', [{ name: 'iris-predictor', port: 80 }]), component: { timeout: 20 } };

  it('one route per component plus the top-level one, to the transformer when there is one', () => {
    const transformer = { service: service('iris-transformer', [{ name: 'iris-transformer', port: 80 }]), component: {} };
    const routes = desiredHttpRoutes(isvc(true), ingressConfig({ enableGatewayApi: true, kserveIngressGateway: 'gw/main' }), predictor, transformer);
    expect(routes.map((r) => [r.metadata.name, r.spec.hostnames, (r.spec.rules[0] as { backendRefs: { name: string }[] }).backendRefs[0]?.name])).toEqual([
      ['iris-predictor', ['iris-predictor-ml.example.com'], 'iris-predictor'],
      ['iris-transformer', ['iris-transformer-ml.example.com'], 'iris-transformer'],
      ['iris', ['iris-ml.example.com'], 'iris-transformer'],
    ]);
    expect(routes[0]?.spec.parentRefs).toEqual([{ group: 'gateway.networking.k8s.io', kind: 'Gateway', namespace: 'gw', name: 'main' }]);
    expect(routes[0]?.spec.rules[0]).toMatchObject({ timeouts: { request: '20s' } });
    expect(routes[1]?.spec.rules[0]).toMatchObject({ timeouts: { request: '60s' } });
  });

  it('a Service with a gRPC port gets a gRPC rule first, then the REST rule', () => {
    const dual = {
      service: service('iris-predictor', [
        { name: 'iris-predictor', port: 80 },
        { name: 'grpc', port: 8081 },
      ]),
      component: {},
    };
    const [route] = desiredHttpRoutes(isvc(), ingressConfig({ enableGatewayApi: true, disableHTTPRouteTimeout: true }), dual, undefined);
    expect(route?.spec.rules).toEqual([
      expect.objectContaining({
        matches: [
          {
            path: { type: 'RegularExpression', value: '^/inference\\.GRPCInferenceService/.*$' },
            headers: [{ type: 'RegularExpression', name: 'content-type', value: '^application/grpc.*' }],
          },
        ],
        backendRefs: [expect.objectContaining({ port: 8081 })],
      }),
      expect.objectContaining({ matches: [{ path: { type: 'RegularExpression', value: '^/.*$' } }], backendRefs: [expect.objectContaining({ port: 80 })] }),
    ]);
    expect(route?.spec.rules[0]).not.toHaveProperty('timeouts');
  });

  it('pathTemplate adds the ingress domain and a path rule to the top-level route only', () => {
    const routes = desiredHttpRoutes(isvc(), ingressConfig({ enableGatewayApi: true, pathTemplate: '/serving/{{ .Namespace }}/{{ .Name }}/' }), predictor, undefined);
    const top = routes.find((r) => r.metadata.name === 'iris')!;
    expect(top.spec.hostnames).toEqual(['iris-ml.example.com', 'example.com']);
    expect(top.spec.rules[1]).toMatchObject({
      matches: [{ path: { type: 'RegularExpression', value: '/serving/ml/iris/' } }],
      backendRefs: [{ name: 'iris-predictor', port: 80 }],
    });
    expect(routes.find((r) => r.metadata.name === 'iris-predictor')?.spec.rules).toHaveLength(1);
    expect(() => ingressConfig({ pathTemplate: 'serving/{{ .Name }}' })).toThrow(/must be an absolute path/);
    expect(() => desiredHttpRoutes(isvc(), ingressConfig({ enableGatewayApi: true, pathTemplate: '/a?b={{ .Name }}' }), predictor, undefined)).toThrow(
      /invalid path '\/a\?b=iris'/,
    );
  });

  it.each<[string, HttpRoute['status'], string | undefined]>([
    ['no parent yet', undefined, 'ParentStatusNotAvailable'],
    [
      'refused by the Gateway',
      { parents: [{ conditions: [{ type: 'Accepted', status: 'False', reason: 'NotAllowedByListeners', message: 'no listener' }] }] },
      'NotAllowedByListeners',
    ],
    [
      'accepted',
      {
        parents: [
          {
            conditions: [
              { type: 'Accepted', status: 'True' },
              { type: 'ResolvedRefs', status: 'True' },
            ],
          },
        ],
      },
      undefined,
    ],
  ])('readiness: %s', (_name, status, reason) => {
    const [route] = desiredHttpRoutes(isvc(), ingressConfig({ enableGatewayApi: true }), predictor, undefined);
    expect(httpRouteProblem({ ...route!, ...(status ? { status } : {}) })?.reason).toBe(reason);
  });

  it.each<[string, number | undefined, HttpRoute['status'], boolean]>([
    ['no Gateway has reported (nothing to wait for)', 3, undefined, true],
    ['the Gateway reported on an older generation', 3, { parents: [{ conditions: [{ type: 'Accepted', status: 'True', observedGeneration: 2 }] }] }, false],
    ['the Gateway reported on this generation', 3, { parents: [{ conditions: [{ type: 'Accepted', status: 'True', observedGeneration: 3 }] }] }, true],
    [
      'one of two Gateways is behind',
      3,
      { parents: [{ conditions: [{ type: 'Accepted', status: 'True', observedGeneration: 3 }] }, { conditions: [{ type: 'Accepted', status: 'True', observedGeneration: 1 }] }] },
      false,
    ],
    ['a route not yet stored (no generation)', undefined, { parents: [{ conditions: [{ type: 'Accepted', status: 'True', observedGeneration: 1 }] }] }, true],
  ])('reported on the current generation: %s', (_name, generation, status, current) => {
    const [route] = desiredHttpRoutes(isvc(), ingressConfig({ enableGatewayApi: true }), predictor, undefined);
    const stored: HttpRoute = { ...route!, metadata: { ...route!.metadata, ...(generation === undefined ? {} : { generation }) }, ...(status ? { status } : {}) };
    expect(httpRouteReportedCurrent(stored)).toBe(current);
  });
});

describe('ingress config and hosts', () => {
  it('KServe defaults: domain example.com, the name-namespace template, gateway kserve/kserve-ingress-gateway', () => {
    expect(ingressConfig()).toMatchObject({
      ingressDomain: 'example.com',
      urlScheme: 'http',
      enableGatewayApi: false,
      kserveIngressGateway: { namespace: 'kserve', name: 'kserve-ingress-gateway' },
    });
  });

  it('refuses a Gateway API config whose gateway is not namespace/name', () => {
    expect(() => ingressConfig({ enableGatewayApi: true, kserveIngressGateway: 'just-a-name' })).toThrow(/kserveIngressGateway 'just-a-name' must be <namespace>\/<name>/);
  });

  it('renders .Annotations and .Labels of the InferenceService in the domain template', () => {
    const i = isvc();
    i.metadata.labels = { tier: 'gold' };
    expect(hostFor('iris', i, ingressConfig({ domainTemplate: '{{ .Name }}.{{ .Labels.tier }}.{{ .Annotations.team }}.{{ .IngressDomain }}' }))).toBe('iris.gold.a.example.com');
  });

  it('additionalIngressDomains: the top-level route answers on each (deduplicated, invalid ones skipped)', () => {
    const predictor = { service: service('iris-predictor', [{ name: 'iris-predictor', port: 80 }]), component: {} };
    const routes = desiredHttpRoutes(
      isvc(),
      ingressConfig({ enableGatewayApi: true, additionalIngressDomains: ['models.internal', 'models.internal', 'Bad_Domain'] }),
      predictor,
      undefined,
    );
    expect(routes.find((r) => r.metadata.name === 'iris')?.spec.hostnames).toEqual(['iris-ml.example.com', 'iris-ml.models.internal']);
    expect(routes.find((r) => r.metadata.name === 'iris-predictor')?.spec.hostnames).toEqual(['iris-predictor-ml.example.com']);
    expect(() => ingressConfig({ additionalIngressDomains: 'x' })).toThrow(/must be a list of domain names/);
  });

  it('refuses a template that makes no domain name', () => {
    expect(() => hostFor('iris', isvc(), ingressConfig({ domainTemplate: '{{ .Name }}' }))).toThrow(/needs at least two labels/);
    expect(() => hostFor('iris', isvc(), ingressConfig({ domainTemplate: '{{ .Name }}_{{ .Namespace }}.{{ .IngressDomain }}' }))).toThrow(/label 'iris_ml' is not/);
  });
});
