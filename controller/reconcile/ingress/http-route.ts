/**
 * Gateway API HTTPRoutes, as KServe's raw HTTPRoute reconciler makes them when
 * `ingress.enableGatewayApi` is true: one per component (`{isvc}-predictor`,
 * `{isvc}-transformer`, host `{component}-{ns}.{domain}`) and a top-level `{isvc}` (host
 * `{isvc}-{ns}.{domain}`, to the transformer when there is one, else the predictor), each
 * attached to the configured Gateway, setting the `KServe-Isvc-Name` / `KServe-Isvc-Namespace`
 * request headers, with a request timeout of the component's `timeout` (60 s by default)
 * unless `disableHTTPRouteTimeout`. A Service with both a REST and a gRPC port gets a gRPC
 * rule first (path `^/inference\.GRPCInferenceService/.*$` and `content-type: application/grpc*`)
 * and the REST rule second; otherwise one rule `^/.*$` to port 80. With `pathTemplate`, the
 * top-level route also takes the ingress domain and a path rule (KServe's path-based routing);
 * with `additionalIngressDomains`, the top-level host on each of those domains too. With an
 * explainer, `{isvc}-explainer` too, and the top-level route's first rule sends KServe's
 * explain path (`^/v1/models/[\w-]+:explain$`) to the explainer.
 *
 * Canaries (KServe's `applyCanaryWeights`): every rule that sends to the stable predictor
 * sends instead to the weighted backends canary.ts computes (the stable predictor, then each
 * ready canary). Unlike KServe, a rule to the transformer or explainer keeps its backend:
 * KServe rewrites every rule of the top-level route, which would send a transformer's
 * traffic straight to the predictors. The predictor's route keeps the name and host
 * `{isvc}-predictor` when predictor.name renames its Service, so promotion changes no URL.
 *
 * Beyond KServe, the A/B pin: with the annotation `serving.kserve.io/canary-header: <header>`,
 * each weighted rule is preceded by one rule per named weighted backend (each ready canary,
 * and the stable predictor when predictor.name names it) that adds the match
 * `<header>: <name>` (Exact) and sends to that backend alone. Gateway API ranks a match with
 * more header matches first, and rule order breaks ties, so a pinned request skips the
 * weights; a request naming no ready predictor falls through to them.
 */
import type { V1OwnerReference, V1Service } from '@kubernetes/client-node';
import type { ComponentExtensionSpec, InferenceService } from '../../api/inference-service.js';
import type { IngressConfig } from '../../config/inferenceservice-config.js';
import { ANN_CANARY_HEADER, LABEL_ISVC, SERVICE_PORT, componentName } from '../../constants.js';
import type { CustomResource } from '../../kube/apply.js';
import { routingMetadata } from '../component-metadata.js';
import type { WeightedBackend } from '../standard/canary.js';
import { additionalHosts, hostFor, pathFor } from './domain.js';

export const HTTP_ROUTES: CustomResource = { group: 'gateway.networking.k8s.io', version: 'v1', plural: 'httproutes' };

const DEFAULT_TIMEOUT_SECONDS = 60;
const FALLBACK_PATH = '^/.*$';
const GRPC_PATH = '^/inference\\.GRPCInferenceService/.*$';
/** KServe's `ExplainPrefix()`: any model's V1 explain verb. */
export const EXPLAIN_PATH = '^/v1/models/[\\w-]+:explain$';

export interface HttpRoute {
  apiVersion: 'gateway.networking.k8s.io/v1';
  kind: 'HTTPRoute';
  metadata: { name: string; namespace: string; labels: Record<string, string>; annotations: Record<string, string>; ownerReferences: V1OwnerReference[]; generation?: number };
  spec: { hostnames: string[]; parentRefs: unknown[]; rules: unknown[] };
  status?: { parents?: { conditions?: { type: string; status: string; reason?: string; message?: string; observedGeneration?: number }[] }[] };
}

/** What a route sends to: the component's Service and the component fields that shape the rule. */
export interface RouteBackend {
  readonly service: V1Service;
  readonly component: ComponentExtensionSpec;
  /** The predictor with canaries: the Services its rules share the traffic between (empty: the Service alone). */
  readonly weights?: readonly WeightedBackend[];
}

/** One rule: the matches, KServe's ISVC headers, the Service port, the request timeout. */
function routeRule(isvc: InferenceService, ingress: IngressConfig, backend: RouteBackend, matches: unknown[], port: number): unknown {
  const ns = isvc.metadata.namespace!;
  const filters = [
    {
      type: 'RequestHeaderModifier',
      requestHeaderModifier: {
        set: [
          { name: 'KServe-Isvc-Name', value: isvc.metadata.name! },
          { name: 'KServe-Isvc-Namespace', value: ns },
        ],
      },
    },
  ];
  const timeout = ingress.disableHTTPRouteTimeout ? undefined : `${backend.component.timeout ?? DEFAULT_TIMEOUT_SECONDS}s`;
  return {
    matches,
    filters,
    backendRefs: backend.weights?.length
      ? backend.weights.map((w) => ({ group: '', kind: 'Service', name: w.service, namespace: ns, port, weight: w.weight }))
      : [{ group: '', kind: 'Service', name: backend.service.metadata!.name!, namespace: ns, port, weight: 1 }],
    ...(timeout ? { timeouts: { request: timeout } } : {}),
  };
}

const pathMatch = (value: string): unknown[] => [{ path: { type: 'RegularExpression', value } }];

/**
 * The rules of one match set: the pinned rules first (one per named weighted backend, when
 * the ISVC names a pin header), then the weighted rule.
 */
function rulesFor(isvc: InferenceService, ingress: IngressConfig, backend: RouteBackend, matches: unknown[], port: number): unknown[] {
  const header = isvc.metadata.annotations?.[ANN_CANARY_HEADER];
  const pins = header === undefined ? [] : (backend.weights ?? []).filter((w) => w.name !== undefined);
  return [
    ...pins.map((w) => {
      const pinned = (matches as { headers?: unknown[] }[]).map((m) => ({ ...m, headers: [...(m.headers ?? []), { type: 'Exact', name: header, value: w.name }] }));
      return routeRule(isvc, ingress, { ...backend, weights: [{ service: w.service, weight: 1 }] }, pinned, port);
    }),
    routeRule(isvc, ingress, backend, matches, port),
  ];
}

export function desiredHttpRoute(isvc: InferenceService, ingress: IngressConfig, name: string, host: string, backend: RouteBackend): HttpRoute {
  const { rest, grpc } = protocolPorts(backend.service);
  const rules =
    rest !== undefined && grpc !== undefined
      ? [
          ...rulesFor(
            isvc,
            ingress,
            backend,
            [{ path: { type: 'RegularExpression', value: GRPC_PATH }, headers: [{ type: 'RegularExpression', name: 'content-type', value: '^application/grpc.*' }] }],
            grpc,
          ),
          ...rulesFor(isvc, ingress, backend, pathMatch(FALLBACK_PATH), rest),
        ]
      : rulesFor(isvc, ingress, backend, pathMatch(FALLBACK_PATH), SERVICE_PORT);
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: routingMetadata(isvc, name, { ...isvc.metadata.labels, [LABEL_ISVC]: isvc.metadata.name! }),
    spec: {
      hostnames: [host],
      parentRefs: [{ group: 'gateway.networking.k8s.io', kind: 'Gateway', namespace: ingress.kserveIngressGateway.namespace, name: ingress.kserveIngressGateway.name }],
      rules,
    },
  };
}

/** The routes for an ISVC: per component, then the top-level one. */
export function desiredHttpRoutes(
  isvc: InferenceService,
  ingress: IngressConfig,
  predictor: RouteBackend,
  transformer: RouteBackend | undefined,
  explainer?: RouteBackend,
): HttpRoute[] {
  const routes = [predictor, ...(transformer ? [transformer] : []), ...(explainer ? [explainer] : [])].map((b) => {
    const name = b === predictor ? componentName(isvc.metadata.name!, 'predictor') : b.service.metadata!.name!;
    return desiredHttpRoute(isvc, ingress, name, hostFor(name, isvc, ingress), b);
  });
  const name = isvc.metadata.name!;
  const topHost = hostFor(name, isvc, ingress);
  const top = desiredHttpRoute(isvc, ingress, name, topHost, transformer ?? predictor);
  top.spec.hostnames.push(...additionalHosts(topHost, ingress));
  if (explainer) top.spec.rules.unshift(routeRule(isvc, ingress, explainer, pathMatch(EXPLAIN_PATH), SERVICE_PORT));
  if (ingress.pathTemplate !== undefined) {
    // KServe: the ingress domain itself is a host of the top-level route, and the ISVC's path
    // (a regular expression `path/`) goes to the entry component's port 80.
    const path = pathFor(isvc, ingress.pathTemplate);
    top.spec.hostnames.push(ingress.ingressDomain);
    top.spec.rules.push(...rulesFor(isvc, ingress, transformer ?? predictor, pathMatch(`${path}/`), SERVICE_PORT));
  }
  routes.push(top);
  return routes;
}

/** KServe's `isHTTPRouteReady`: every parent reported, and no parent condition False. */
export function httpRouteProblem(route: HttpRoute): { reason: string; message: string } | undefined {
  const parents = route.status?.parents ?? [];
  if (parents.length === 0) return { reason: 'ParentStatusNotAvailable', message: `HTTPRoute ${route.metadata.name}: HttpRouteNotReady (no Gateway has reported on it yet)` };
  for (const p of parents) {
    const failed = p.conditions?.find((c) => c.status === 'False');
    if (failed) return { reason: failed.reason ?? 'HttpRouteNotReady', message: `HTTPRoute ${route.metadata.name}: ${failed.message ?? failed.type}` };
  }
  return undefined;
}

/**
 * Whether the Gateways that report on `route` have reported on its current generation, so
 * none routes by an older rule set any more: what the old stable predictor of a promotion
 * waits for before it is deleted. A route no Gateway has reported on (none installed, or not
 * yet) has nothing to wait for.
 */
export function httpRouteReportedCurrent(route: HttpRoute): boolean {
  const generation = route.metadata.generation;
  if (generation === undefined) return true;
  return (route.status?.parents ?? []).every((p) => (p.conditions ?? []).every((c) => c.observedGeneration === undefined || c.observedGeneration >= generation));
}

function protocolPorts(service: V1Service): { rest?: number; grpc?: number } {
  const out: { rest?: number; grpc?: number } = {};
  for (const p of service.spec?.ports ?? []) {
    const isGrpc = p.appProtocol === 'kubernetes.io/h2c' || /grpc|h2c/i.test(p.name ?? '');
    if (isGrpc) out.grpc ??= p.port;
    else out.rest ??= p.port;
  }
  return out;
}
