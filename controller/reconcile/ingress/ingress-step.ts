/**
 * Standard mode's way in (KServe's RawIngressReconciler / RawHTTPRouteReconciler), run after
 * the components: nothing while a component is not Ready (`IngressReady=False`, KServe's
 * reasons), then an Ingress, or HTTPRoutes when the Gateway API is enabled, whose parents'
 * conditions decide `IngressReady`. Clusters that keep the ISVC internal (label
 * `networking.kserve.io/visibility: cluster-local`, domain `svc.cluster.local`) or disable
 * creation get no object and `IngressReady=True`. `url` is set only once the way in exists,
 * as KServe does.
 */
import type { KubernetesObjectApi, CustomObjectsApi } from '@kubernetes/client-node';
import type { Condition, InferenceService } from '../../api/inference-service.js';
import type { IngressConfig } from '../../config/inferenceservice-config.js';
import { isNotFound } from '../../kube/api-errors.js';
import { applyCustomObject, applyObject } from '../../kube/apply.js';
import { INGRESS_READY, condition } from '../status/conditions.js';
import { DomainError, hostFor } from './domain.js';
import { HTTP_ROUTES, type HttpRoute, type RouteBackend, desiredHttpRoutes, httpRouteProblem, httpRouteReportedCurrent } from './http-route.js';
import { desiredIngress } from './kube-ingress.js';

export const LABEL_VISIBILITY = 'networking.kserve.io/visibility';
const CLUSTER_LOCAL_DOMAIN = 'svc.cluster.local';
/** KServe requeues after 1 s while a route is not accepted; a little slower here. */
const ROUTE_RECHECK_MS = 2000;

/** A component behind the way in: whether it is Ready, and if not, why (its condition's words). */
type Backend = RouteBackend & { readonly ready: boolean; readonly notReady?: string };

export interface IngressInputs {
  readonly predictor: Backend;
  readonly transformer?: Backend;
  readonly explainer?: Backend;
}

export interface IngressOutcome {
  readonly condition: Condition;
  /** `status.url`, once the way in exists. */
  readonly url?: string;
  /** Look again after this long (a route a Gateway has not accepted, or not reported on since it changed). */
  readonly recheckAfterMs?: number;
  /**
   * Whether the way in no longer sends by an older rule set: true for an Ingress or no object,
   * and for HTTPRoutes once the Gateways that report on them have reported on the applied
   * generation; false while a component is not ready (the routes were not touched). Predictor
   * objects no longer in the spec (the old stable predictor of a promotion) go only then.
   */
  readonly routesCurrent: boolean;
}

export interface IngressClients {
  readonly objects: KubernetesObjectApi;
  readonly custom: CustomObjectsApi;
}

export const CANARY_NEEDS_GATEWAY_API = 'CanaryRequiresGatewayAPI';
const CANARY_INGRESS_MESSAGE =
  'spec.canary needs weighted routes, which a Kubernetes Ingress cannot express: set ingress.enableGatewayApi to true in inferenceservice-config, or remove spec.canary';

const GATEWAY_API_MISSING =
  'the Gateway API HTTPRoute CRD (httproutes.gateway.networking.k8s.io) is not installed: install the Gateway API or set ingress.enableGatewayApi to false in inferenceservice-config';

/**
 * The way in to `owner` (an InferenceService or InferenceGraph): its `status.url`, and whether
 * no object is made for it (an internal owner, or creation disabled), or why no URL can be
 * made (`IngressReady` False).
 */
export function wayIn(owner: Pick<InferenceService, 'metadata'>, ingress: IngressConfig): { url: string; noObject: boolean } | { condition: Condition } {
  let url: string;
  try {
    url = `${ingress.urlScheme}://${hostFor(owner.metadata.name!, owner, ingress)}`;
  } catch (err) {
    if (err instanceof DomainError) return { condition: condition(INGRESS_READY, 'False', 'InvalidIngressDomain', err.message) };
    throw err;
  }
  const internal = owner.metadata.labels?.[LABEL_VISIBILITY] === 'cluster-local' || ingress.ingressDomain === CLUSTER_LOCAL_DOMAIN;
  return { url, noObject: internal || ingress.disableIngressCreation };
}

export async function reconcileIngress(clients: IngressClients, isvc: InferenceService, ingress: IngressConfig, inputs: IngressInputs): Promise<IngressOutcome> {
  const way = wayIn(isvc, ingress);
  if ('condition' in way) return { ...way, routesCurrent: true };
  const { url } = way;
  if (way.noObject) return { condition: condition(INGRESS_READY, 'True'), url, routesCurrent: true };
  // KServe's reasons; the message carries the component's, so top-level Ready says why.
  for (const [name, backend] of [
    ['Predictor', inputs.predictor],
    ['Transformer', inputs.transformer],
    ['Explainer', inputs.explainer],
  ] as const) {
    if (backend && !backend.ready) {
      return {
        condition: condition(INGRESS_READY, 'False', `${name} ingress not created`, `${name.toLowerCase()} not ready: ${backend.notReady ?? 'no reason given'}`),
        routesCurrent: false,
      };
    }
  }
  if (!ingress.enableGatewayApi) {
    // KServe routes all traffic to the stable predictor here, saying nothing; kserve-ts says so.
    if (inputs.predictor.weights?.length) return { condition: condition(INGRESS_READY, 'False', CANARY_NEEDS_GATEWAY_API, CANARY_INGRESS_MESSAGE), routesCurrent: true };
    await applyObject(clients.objects, desiredIngress(isvc, ingress));
    return { condition: condition(INGRESS_READY, 'True'), url, routesCurrent: true };
  }
  const applied: HttpRoute[] = [];
  for (const route of desiredHttpRoutes(isvc, ingress, inputs.predictor, inputs.transformer, inputs.explainer)) {
    try {
      applied.push(await applyCustomObject<HttpRoute>(clients.custom, HTTP_ROUTES, route));
    } catch (err) {
      if (isNotFound(err)) return { condition: condition(INGRESS_READY, 'False', 'GatewayAPINotInstalled', GATEWAY_API_MISSING), routesCurrent: true };
      throw err;
    }
  }
  const routesCurrent = applied.every(httpRouteReportedCurrent);
  for (const route of applied) {
    const problem = httpRouteProblem(route);
    if (problem) return { condition: condition(INGRESS_READY, 'False', problem.reason, problem.message), recheckAfterMs: ROUTE_RECHECK_MS, routesCurrent };
  }
  return { condition: condition(INGRESS_READY, 'True'), url, routesCurrent, ...(routesCurrent ? {} : { recheckAfterMs: ROUTE_RECHECK_MS }) };
}

/** A component's own URL (`http://{component}-{ns}.{domain}`, KServe's raw component URL), or undefined if the template cannot make one. */
export function componentUrl(name: string, isvc: InferenceService, ingress: IngressConfig): string | undefined {
  try {
    return `http://${hostFor(name, isvc, ingress)}`;
  } catch (err) {
    if (err instanceof DomainError) return undefined;
    throw err;
  }
}
