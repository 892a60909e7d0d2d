/**
 * Standard mode's way in to a graph's router (beyond KServe, whose InferenceGraph gets a
 * `status.url` but no object routing to it in Standard mode): the same kind of object
 * kserve-ts makes for an InferenceService, per the ingress config. An Ingress `{graph}`
 * with the host `{graph}-{ns}.{domain}` (the domain template) to the router Service's port
 * 80, or, with `enableGatewayApi`, an HTTPRoute `{graph}` attached to the configured
 * Gateway: gRPC (`content-type: application/grpc*`) to the router's gRPC port, the rest to
 * port 80. Internal graphs (visibility cluster-local, domain svc.cluster.local) and
 * `disableIngressCreation` get none. Owned by the graph.
 */
import type { V1Ingress } from '@kubernetes/client-node';
import type { Condition } from '../../api/inference-service.js';
import type { InferenceGraph } from '../../api/inference-graph.js';
import type { IngressConfig } from '../../config/inferenceservice-config.js';
import { SERVICE_PORT } from '../../constants.js';
import { isNotFound } from '../../kube/api-errors.js';
import { applyCustomObject, applyObject } from '../../kube/apply.js';
import { hostFor } from '../ingress/domain.js';
import { HTTP_ROUTES, type HttpRoute, httpRouteProblem } from '../ingress/http-route.js';
import { type IngressClients, wayIn } from '../ingress/ingress-step.js';
import { INGRESS_READY, condition } from '../status/conditions.js';
import { ROUTER_GRPC_PORT, graphMetadata } from './router-workload.js';

const ROUTE_RECHECK_MS = 2000;

export function desiredGraphIngress(ig: InferenceGraph, ingress: IngressConfig): V1Ingress {
  const name = ig.metadata.name!;
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: graphMetadata(ig),
    spec: {
      ...(ingress.ingressClassName ? { ingressClassName: ingress.ingressClassName } : {}),
      rules: [{ host: hostFor(name, ig, ingress), http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name, port: { number: SERVICE_PORT } } } }] } }],
    },
  };
}

export function desiredGraphHttpRoute(ig: InferenceGraph, ingress: IngressConfig): HttpRoute {
  const name = ig.metadata.name!;
  const ns = ig.metadata.namespace!;
  const backend = (port: number) => [{ group: '', kind: 'Service', name, namespace: ns, port, weight: 1 }];
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: graphMetadata(ig),
    spec: {
      hostnames: [hostFor(name, ig, ingress)],
      parentRefs: [{ group: 'gateway.networking.k8s.io', kind: 'Gateway', namespace: ingress.kserveIngressGateway.namespace, name: ingress.kserveIngressGateway.name }],
      rules: [
        {
          matches: [
            {
              path: { type: 'RegularExpression', value: '^/inference\\.GRPCInferenceService/.*$' },
              headers: [{ type: 'RegularExpression', name: 'content-type', value: '^application/grpc.*' }],
            },
          ],
          backendRefs: backend(ROUTER_GRPC_PORT),
        },
        { matches: [{ path: { type: 'RegularExpression', value: '^/.*$' } }], backendRefs: backend(SERVICE_PORT) },
      ],
    },
  };
}

export interface GraphIngressOutcome {
  readonly condition: Condition;
  /** `status.url`. */
  readonly url?: string;
  readonly recheckAfterMs?: number;
}

export async function reconcileGraphIngress(clients: IngressClients, ig: InferenceGraph, ingress: IngressConfig, routerReady: boolean): Promise<GraphIngressOutcome> {
  const way = wayIn(ig, ingress);
  if ('condition' in way) return way;
  const { url } = way;
  if (way.noObject) return { condition: condition(INGRESS_READY, 'True'), url };
  if (!routerReady) return { condition: condition(INGRESS_READY, 'False', 'RouterNotReady', 'the router is not ready: no ingress yet') };
  if (!ingress.enableGatewayApi) {
    await applyObject(clients.objects, desiredGraphIngress(ig, ingress));
    return { condition: condition(INGRESS_READY, 'True'), url };
  }
  let route: HttpRoute;
  try {
    route = await applyCustomObject<HttpRoute>(clients.custom, HTTP_ROUTES, desiredGraphHttpRoute(ig, ingress));
  } catch (err) {
    if (isNotFound(err)) return { condition: condition(INGRESS_READY, 'False', 'GatewayAPINotInstalled', 'the Gateway API HTTPRoute CRD is not installed') };
    throw err;
  }
  const problem = httpRouteProblem(route);
  if (problem) return { condition: condition(INGRESS_READY, 'False', problem.reason, problem.message), recheckAfterMs: ROUTE_RECHECK_MS };
  return { condition: condition(INGRESS_READY, 'True'), url };
}
