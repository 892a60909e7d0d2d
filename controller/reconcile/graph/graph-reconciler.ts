/**
 * Reconciles one InferenceGraph, as KServe's InferenceGraph controller does: resolve every
 * `serviceName` step to its InferenceService's URL, then run the router for the graph
 * (Standard: Deployment, Service, HPA; Knative: a Knative Service), owned by the graph,
 * and write status. Beyond KServe: Standard mode gets an Ingress or HTTPRoute as an
 * InferenceService does, and the status says why a graph is not Ready:
 *
 * - `InferenceServicesReady`: every InferenceService the graph names exists and is Ready
 *   (False naming the missing ones: InferenceServiceNotFound; Unknown while one is not
 *   Ready). While a URL cannot be resolved (missing, no address yet) the router is not
 *   created or changed, as KServe's controller waits;
 * - `RouterReady`: the router's Deployment is Available (or its Knative Service Ready);
 * - `IngressReady` (Standard), and `Ready` when all of these are True (KServe: when the
 *   router is);
 * - KServe's `Stopped` (the `serving.kserve.io/stop` annotation removes the router; stop.ts).
 *
 * Idempotent; throwing means "retry with backoff" (the work queue's).
 */
import type { V1Deployment } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { GRAPH_GROUP, GRAPH_PLURAL, GRAPH_VERSION, type InferenceGraph, type InferenceGraphSpec, type InferenceGraphStatus } from '../../api/inference-graph.js';
import type { Condition, InferenceService } from '../../api/inference-service.js';
import type { InferenceServiceConfig } from '../../config/inferenceservice-config.js';
import type { DeploymentMode } from '../../constants.js';
import { resolveDeploymentMode } from '../../deployment-mode.js';
import { isNotFound } from '../../kube/api-errors.js';
import { applyCustomObject, applyObject } from '../../kube/apply.js';
import type { KubeClients } from '../../kube/clients.js';
import { KNATIVE_SERVICES, type KnativeService } from '../knative/knative-service.js';
import { READY, aggregateReady, condition, mergeConditions } from '../status/conditions.js';
import { sameStatus } from '../status/same-status.js';
import { readinessFromDeployment } from '../status/deployment-status.js';
import { readinessFromKnative } from '../status/knative-status.js';
import { deleteComponentObjects, deleteIngressObjects } from '../component-objects.js';
import { KEDA_MISSING, KEDA_NOT_INSTALLED, applyAutoscaler } from '../standard/autoscaler-step.js';
import { STOPPED, STOPPED_MESSAGE, isForceStopped } from '../stop.js';
import { reconcileGraphIngress } from './graph-ingress.js';
import { graphJson } from './graph-json.js';
import { desiredRouterDeployment, desiredRouterKnativeService, desiredRouterService, routerScaling } from './router-workload.js';
import { type RuntimeLookup, predictorEndpoint } from './service-url.js';

export const ROUTER_READY = 'RouterReady';
export const SERVICES_READY = 'InferenceServicesReady';

export interface GraphReconcilerDeps {
  readonly clients: KubeClients;
  readonly config: () => InferenceServiceConfig;
  /** An InferenceService from the controller's cache, or undefined. */
  readonly isvc: (namespace: string, name: string) => InferenceService | undefined;
  readonly runtimes: RuntimeLookup;
  readonly knativeInstalled: () => Promise<boolean>;
  readonly logger: Logger;
}

export interface GraphReconcileResult {
  readonly recheckAfterMs?: number;
}

interface Resolution {
  readonly spec: InferenceGraphSpec | undefined;
  readonly condition: Condition;
}

const isReady = (isvc: InferenceService): boolean => isvc.status?.conditions?.find((c) => c.type === READY)?.status === 'True';

/** Every InferenceService the graph names, in order, once each. */
export function serviceNamesOf(spec: InferenceGraphSpec): string[] {
  const names = new Set<string>();
  for (const node of Object.values(spec.nodes ?? {})) for (const s of node.steps ?? []) if (s.serviceName) names.add(s.serviceName);
  return [...names];
}

export class InferenceGraphReconciler {
  constructor(private readonly deps: GraphReconcilerDeps) {}

  async reconcile(namespace: string, name: string): Promise<GraphReconcileResult> {
    const ig = await this.read(namespace, name);
    if (!ig || ig.metadata.deletionTimestamp) return {};
    const config = this.deps.config();
    const mode = resolveDeploymentMode(ig, config.defaultDeploymentMode);
    const status: InferenceGraphStatus = { ...ig.status, deploymentMode: mode, observedGeneration: ig.metadata.generation ?? 0 };
    if (mode === 'ModelMesh') return this.write(ig, status, [condition(ROUTER_READY, 'False', 'ModelMeshNotSupported', 'an InferenceGraph cannot run in ModelMesh mode')]);
    if (isForceStopped(ig)) return this.stop(ig, mode, status);

    const resolved = await this.resolve(ig);
    if (resolved.spec === undefined) {
      return this.write(ig, status, [
        resolved.condition,
        condition(ROUTER_READY, 'Unknown', 'WaitingForInferenceServices', 'the router starts once every serviceName step has a URL'),
      ]);
    }
    const json = graphJson(resolved.spec);
    if (mode === 'Knative') {
      if (!(await this.deps.knativeInstalled())) {
        const message = `the resolved deployment mode of InferenceGraph '${name}' is Knative, but Knative Serving is not available`;
        return this.write(ig, status, [resolved.condition, condition(ROUTER_READY, 'False', 'ServerlessModeRejected', message)]);
      }
      const ksvc = await applyCustomObject<KnativeService>(this.deps.clients.custom, KNATIVE_SERVICES, desiredRouterKnativeService(ig, config.router, json));
      const ready = readinessFromKnative(ROUTER_READY, ksvc);
      if (ready.status === 'True' && ksvc.status?.url) status.url = ksvc.status.url;
      else delete status.url;
      if (ksvc.status?.address?.url) status.address = { url: ksvc.status.address.url };
      return this.write(ig, status, [resolved.condition, ready]);
    }

    const { objects } = this.deps.clients;
    const scaling = routerScaling(ig, config.autoscaler);
    await applyObject(objects, desiredRouterService(ig, config.serviceClusterIPNone));
    const deployment = await applyObject<V1Deployment>(objects, desiredRouterDeployment(ig, config.router, json, scaling.replicas));
    const autoscaling = await applyAutoscaler(this.deps.clients, scaling, name, namespace);
    if (autoscaling.kedaMissing) return this.write(ig, status, [resolved.condition, condition(ROUTER_READY, 'False', KEDA_NOT_INSTALLED, KEDA_MISSING)]);
    const ready = readinessFromDeployment(ROUTER_READY, deployment);
    const ingress = await reconcileGraphIngress(this.deps.clients, ig, config.ingress, ready.status === 'True');
    if (ingress.url) status.url = ingress.url;
    status.address = { url: `http://${name}.${namespace}.svc.cluster.local` };
    await this.write(ig, status, [resolved.condition, ready, ingress.condition]);
    return ingress.recheckAfterMs !== undefined ? { recheckAfterMs: ingress.recheckAfterMs } : {};
  }

  /**
   * The spec with every `serviceName` step's URL filled in (a step with its own serviceUrl
   * keeps it, as KServe), and the InferenceServicesReady condition; no spec while a URL
   * cannot be resolved.
   */
  private async resolve(ig: InferenceGraph): Promise<Resolution> {
    const ns = ig.metadata.namespace!;
    const missing: string[] = [];
    const notReady: string[] = [];
    const unresolved: string[] = [];
    const urls = new Map<string, string>();
    for (const name of serviceNamesOf(ig.spec)) {
      const isvc = this.deps.isvc(ns, name);
      if (!isvc) {
        missing.push(name);
        continue;
      }
      if (!isReady(isvc)) notReady.push(name);
      const url = await predictorEndpoint(isvc, this.deps.runtimes);
      if (url.ok) urls.set(name, url.url);
      else unresolved.push(url.message);
    }
    const list = (names: string[]) => names.map((n) => `"${n}"`).join(', ');
    const cond =
      missing.length > 0
        ? condition(SERVICES_READY, 'False', 'InferenceServiceNotFound', `InferenceService${missing.length > 1 ? 's' : ''} ${list(missing)} not found in namespace ${ns}`)
        : unresolved.length > 0
          ? condition(SERVICES_READY, 'Unknown', 'InferenceServiceNotReady', unresolved.join('; '))
          : notReady.length > 0
            ? condition(SERVICES_READY, 'Unknown', 'InferenceServiceNotReady', `InferenceService${notReady.length > 1 ? 's' : ''} ${list(notReady)} not Ready yet`)
            : condition(SERVICES_READY, 'True');
    if (missing.length > 0 || unresolved.length > 0) return { spec: undefined, condition: cond };
    const nodes = Object.fromEntries(
      Object.entries(ig.spec.nodes ?? {}).map(([node, router]) => [
        node,
        { ...router, ...(router.steps ? { steps: router.steps.map((s) => (s.serviceName && !s.serviceUrl ? { ...s, serviceUrl: urls.get(s.serviceName)! } : s)) } : {}) },
      ]),
    );
    return { spec: { ...ig.spec, nodes }, condition: cond };
  }

  /** KServe's force stop: the router's objects go; Stopped True, Ready False (reason Stopped). */
  private async stop(ig: InferenceGraph, mode: DeploymentMode, status: InferenceGraphStatus): Promise<GraphReconcileResult> {
    const name = ig.metadata.name!;
    const namespace = ig.metadata.namespace!;
    await deleteComponentObjects(this.deps.clients, mode, name, namespace);
    if (mode === 'Standard') await deleteIngressObjects(this.deps.clients, name, namespace, []);
    delete status.url;
    delete status.address;
    return this.write(ig, status, [condition(ROUTER_READY, 'False', STOPPED, STOPPED_MESSAGE)], true);
  }

  private async read(namespace: string, name: string): Promise<InferenceGraph | undefined> {
    try {
      return (await this.deps.clients.custom.getNamespacedCustomObject({ group: GRAPH_GROUP, version: GRAPH_VERSION, namespace, plural: GRAPH_PLURAL, name })) as InferenceGraph;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  private async write(ig: InferenceGraph, status: InferenceGraphStatus, dependents: Condition[], stopped = false): Promise<GraphReconcileResult> {
    const ready = stopped ? condition(READY, 'False', STOPPED) : aggregateReady(dependents);
    const all = [...dependents, ready, condition(STOPPED, stopped ? 'True' : 'False')];
    status.conditions = mergeConditions(ig.status?.conditions, all, new Date().toISOString().replace(/\.\d+Z$/, 'Z'));
    if (sameStatus(status, ig.status ?? {})) return {};
    await this.deps.clients.custom.replaceNamespacedCustomObjectStatus({
      group: GRAPH_GROUP,
      version: GRAPH_VERSION,
      namespace: ig.metadata.namespace!,
      plural: GRAPH_PLURAL,
      name: ig.metadata.name!,
      body: { ...ig, status },
    });
    this.deps.logger.info({ graph: `${ig.metadata.namespace}/${ig.metadata.name}`, ready: ready.status, reason: ready.reason }, 'InferenceGraph status updated');
    return {};
  }
}
