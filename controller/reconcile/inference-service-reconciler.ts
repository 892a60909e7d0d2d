/**
 * Reconciles one InferenceService: resolve the deployment mode, select the runtime,
 * server-side apply the component objects (owned by the ISVC so deletion cascades), and
 * write status from what the cluster reports. Idempotent: running it twice with nothing
 * changed writes nothing. Throwing means "retry with backoff" (the work queue does it);
 * spec errors are reported in status and not retried until something changes.
 */
import type { V1Deployment, V1Pod, V1Service } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import {
  ISVC_GROUP,
  ISVC_PLURAL,
  ISVC_VERSION,
  type ComponentExtensionSpec,
  type ComponentStatus,
  type Condition,
  type InferenceService,
  type InferenceServiceStatus,
} from '../api/inference-service.js';
import type { ServingRuntime } from '../api/serving-runtime.js';
import type { InferenceServiceConfig } from '../config/inferenceservice-config.js';
import { type DeploymentMode, LABEL_APP, componentName, predictorName } from '../constants.js';
import { resolveDeploymentMode } from '../deployment-mode.js';
import { apiErrorMessage, apiStatus, isNotFound } from '../kube/api-errors.js';
import { applyCustomObject, applyObject } from '../kube/apply.js';
import type { KubeClients } from '../kube/clients.js';
import type { ComponentPlan, ComponentType } from './component-plan.js';
import { KNATIVE_SERVICES, type KnativeService, desiredKnativeService } from './knative/knative-service.js';
import { withLogger } from './logger-args.js';
import { planExplainer, planTransformer } from './predictor-client-plan.js';
import { type PredictorResolution, resolvePredictor } from './predictor-resolution.js';
import { type IngressOutcome, componentUrl, reconcileIngress } from './ingress/ingress-step.js';
import { deleteComponentObjects, deleteIngressObjects, deletePredictorsExcept } from './component-objects.js';
import { KEDA_MISSING, KEDA_NOT_INSTALLED, applyAutoscaler } from './standard/autoscaler-step.js';
import { type WeightedBackend, canaryWeights, stableMinReplicas } from './standard/canary.js';
import { type CanaryOutcome, reconcileCanaries } from './standard/canary-step.js';
import { appLabel, desiredDeployment } from './standard/deployment.js';
import { decideScaling } from './standard/hpa.js';
import { desiredService } from './standard/service.js';
import { EXPLAINER_READY, INGRESS_READY, PREDICTOR_READY, READY, TRANSFORMER_READY, aggregateReady, condition, conditionText, mergeConditions } from './status/conditions.js';
import { readinessFromDeployment } from './status/deployment-status.js';
import { componentStatusFromKnative, readinessFromKnative } from './status/knative-status.js';
import { modelStatusFromPods } from './status/model-status.js';
import { explainFromPods } from './status/pod-failure.js';
import { sameStatus } from './status/same-status.js';
import { STOPPED, STOPPED_MESSAGE, isForceStopped } from './stop.js';

export interface RuntimeLister {
  namespaced(namespace: string): readonly ServingRuntime[];
  cluster(): readonly ServingRuntime[];
}

/**
 * The pods of one component, from the controller's watch cache: every change to them
 * already re-queues the ISVC, so reading the cache is as fresh as a list call and costs
 * no request per reconcile.
 */
export type PodLister = (namespace: string, isvc: string, component: ComponentType) => readonly V1Pod[];

export interface ReconcilerDeps {
  readonly clients: KubeClients;
  readonly pods: PodLister;
  /** The current parsed ConfigMap; throws a ConfigError when it is invalid. */
  readonly config: () => InferenceServiceConfig;
  readonly runtimes: RuntimeLister;
  /** Whether the Knative Service CRD is served (cached by the caller). */
  readonly knativeInstalled: () => Promise<boolean>;
  readonly logger: Logger;
  /** Writes a multi-model predictor's `modelconfig-<isvc>-0` (multi-model/model-config-sync.ts). */
  readonly modelConfig?: (isvc: InferenceService, plan: ComponentPlan) => Promise<void>;
}

interface ComponentOutcome {
  readonly ready: Condition;
  readonly status: ComponentStatus;
  /** Standard mode: the applied Service (what the ingress routes to). */
  readonly service?: V1Service;
  /** Standard mode: the applied Deployment. */
  readonly deployment?: V1Deployment;
}

/** What one reconcile asks of the queue beyond "done" (KServe's `RequeueAfter`). */
export interface ReconcileResult {
  readonly recheckAfterMs?: number;
}

const OPTIONAL_COMPONENTS: readonly ComponentType[] = ['transformer', 'explainer'];

/** The condition each component's readiness is reported under. */
const READY_CONDITIONS: Readonly<Record<ComponentType, string>> = {
  predictor: PREDICTOR_READY,
  transformer: TRANSFORMER_READY,
  explainer: EXPLAINER_READY,
};

const KNATIVE_MISSING =
  'the Knative Serving CRD (services.serving.knative.dev) is not installed: install Knative Serving or set the annotation serving.kserve.io/deploymentMode: Standard';

export class InferenceServiceReconciler {
  constructor(private readonly deps: ReconcilerDeps) {}

  async reconcile(namespace: string, name: string): Promise<ReconcileResult> {
    const isvc = await this.read(namespace, name);
    if (!isvc || isvc.metadata.deletionTimestamp) return {};
    const config = this.deps.config();
    const mode = resolveDeploymentMode(isvc, config.defaultDeploymentMode);
    const status: InferenceServiceStatus = { ...isvc.status, deploymentMode: mode, observedGeneration: isvc.metadata.generation ?? 0 };
    const conditions: Condition[] = [];

    if (mode === 'ModelMesh') {
      conditions.push(condition(PREDICTOR_READY, 'False', 'ModelMeshNotSupported', 'ModelMesh deployment mode is not supported by kserve-ts'));
      return this.done(isvc, status, conditions);
    }
    if (isForceStopped(isvc)) return this.stop(isvc, mode, status);
    const predictor = this.planPredictor(isvc, config, status);
    if (!predictor.ok) {
      conditions.push(condition(PREDICTOR_READY, 'False', predictor.reason, predictor.message));
      return this.done(isvc, status, conditions);
    }
    if (mode === 'Knative' && !(await this.deps.knativeInstalled())) {
      conditions.push(condition(PREDICTOR_READY, 'False', 'KnativeNotInstalled', KNATIVE_MISSING));
      return this.done(isvc, status, conditions);
    }
    const transformer = planTransformer(isvc, config);
    const explainer = planExplainer(isvc, config);
    const spec = isvc.spec;
    // Canaries before the stable predictor (KServe's order): its floor drops only for canaries already ready.
    const canaries = mode === 'Standard' ? await this.applyCanaries(isvc, config) : { statuses: [] };
    const stableMin = stableMinReplicas(isvc, canaries.statuses);
    const stablePlan = stableMin === undefined ? predictor.plan : { ...predictor.plan, scaling: { ...predictor.plan.scaling, minReplicas: stableMin } };
    const plans = [
      withLogger(stablePlan, isvc, spec.predictor.logger, config.logger),
      ...(transformer ? [withLogger(transformer, isvc, spec.transformer?.logger, config.logger)] : []),
      ...(explainer ? [withLogger(explainer, isvc, spec.explainer?.logger, config.logger)] : []),
    ];
    // The ConfigMap the pod mounts exists before the pod (a missing one keeps it from starting).
    if (predictor.multiModel) await this.deps.modelConfig?.(isvc, predictor.plan);
    const outcomes = new Map<ComponentType, ComponentOutcome>();
    // Predictor first: a transformer or explainer is useless before its predictor exists.
    for (const plan of plans) {
      try {
        outcomes.set(plan.component, mode === 'Standard' ? await this.applyStandard(isvc, plan, config) : await this.applyKnative(isvc, plan, status));
      } catch (err) {
        // 422: the PodSpec fields the user wrote (the CRD keeps them as written) do not make a
        // valid workload. A spec error: reported, not retried until the spec changes.
        if (apiStatus(err) !== 422) throw err;
        const type = READY_CONDITIONS[plan.component];
        conditions.push(condition(type, 'False', 'InvalidSpec', `the API server refused the ${plan.component}'s workload: ${apiErrorMessage(err)}`));
        this.deps.logger.info({ isvc: `${isvc.metadata.namespace}/${isvc.metadata.name}`, component: plan.component }, 'workload refused by the API server (InvalidSpec)');
        return this.done(isvc, status, conditions);
      }
    }
    await this.removeDropped(isvc, mode, outcomes);
    // The predictor's pods are the stable Deployment's (canaries share the component label).
    const stableApp = appLabel(stablePlan);
    const pods = (component: ComponentType) =>
      this.deps
        .pods(isvc.metadata.namespace!, isvc.metadata.name!, component)
        .filter((p) => component !== 'predictor' || mode !== 'Standard' || p.metadata?.labels?.[LABEL_APP] === stableApp);
    // A component that is not ready says why when its pods do (unschedulable, image pull, crash loop).
    for (const [component, outcome] of outcomes) outcomes.set(component, { ...outcome, ready: explainFromPods(outcome.ready, pods(component)) });
    const predictorOutcome = outcomes.get('predictor')!;
    conditions.push(predictorOutcome.ready);
    const transformerOutcome = outcomes.get('transformer');
    if (transformerOutcome) conditions.push({ ...transformerOutcome.ready, type: TRANSFORMER_READY });
    const explainerOutcome = outcomes.get('explainer');
    if (explainerOutcome) conditions.push({ ...explainerOutcome.ready, type: EXPLAINER_READY });
    status.components = Object.fromEntries([...outcomes].map(([k, v]) => [k, v.status]));
    status.modelStatus = modelStatusFromPods(pods('predictor'), predictorOutcome.ready.status === 'True');
    if (mode === 'Standard') {
      if (canaries.statuses.length > 0) status.canaryStatuses = canaries.statuses;
      else delete status.canaryStatuses;
      const weights = canaryWeights(isvc, canaries.statuses);
      const ingress = await this.standardIngress(isvc, config, status, weights, predictorOutcome, transformerOutcome, explainerOutcome);
      // After the way in: an old stable predictor (a promotion) or a removed canary goes only
      // once no route sends to it, so requests in flight through the gateway do not fail.
      if (ingress.routesCurrent) await this.removeOtherPredictors(isvc, stablePlan.name, predictorOutcome);
      conditions.push(ingress.condition);
      await this.writeStatus(isvc, status, conditions, false, canaries.condition ? [canaries.condition] : []);
      return ingress.recheckAfterMs !== undefined ? { recheckAfterMs: ingress.recheckAfterMs } : {};
    }
    this.setKnativeAddresses(isvc, status, transformer !== undefined);
    conditions.push(status.url ? condition(INGRESS_READY, 'True') : condition(INGRESS_READY, 'Unknown', 'IngressNotConfigured', 'waiting for the component URL'));
    return this.done(isvc, status, conditions);
  }

  /** Standard mode: each canary's objects and what is reported of them (canary-step.ts). */
  private applyCanaries(isvc: InferenceService, config: InferenceServiceConfig): Promise<CanaryOutcome> {
    const ns = isvc.metadata.namespace!;
    const candidates = { namespaced: this.deps.runtimes.namespaced(ns), cluster: this.deps.runtimes.cluster() };
    return reconcileCanaries(isvc, {
      resolve: (canary): PredictorResolution => resolvePredictor(canary, config, candidates),
      apply: async (canary, plan) => (await this.applyStandard(canary, withLogger(plan, canary, canary.spec.predictor.logger, config.logger), config)).deployment!,
      pods: (plan) => this.deps.pods(ns, isvc.metadata.name!, 'predictor').filter((p) => p.metadata?.labels?.[LABEL_APP] === appLabel(plan)),
    });
  }

  /**
   * Predictor objects neither the stable predictor nor a canary names: a removed canary, or
   * the old stable predictor after a promotion. Looked for only when the ISVC has or had a
   * canary, names its predictor, or its predictor's address changed, so an ISVC that never
   * used either costs no request.
   */
  private async removeOtherPredictors(isvc: InferenceService, stable: string, outcome: ComponentOutcome): Promise<void> {
    const ns = isvc.metadata.namespace!;
    const canaries = isvc.spec.canary ?? [];
    const moved = isvc.status?.components?.predictor?.address?.url !== undefined && isvc.status.components.predictor.address.url !== outcome.status.address?.url;
    if (canaries.length === 0 && !isvc.status?.canaryStatuses?.length && !isvc.spec.predictor.name && !moved) return;
    const keep = new Set([stable, ...canaries.map((c) => predictorName(isvc.metadata.name!, c.predictor.name))]);
    const gone = await deletePredictorsExcept(this.deps.clients, isvc.metadata.name!, ns, keep);
    if (gone.length > 0) this.deps.logger.info({ isvc: `${ns}/${isvc.metadata.name}`, deleted: gone }, 'predictor objects no longer in the spec deleted');
  }

  /**
   * A transformer or explainer taken out of the spec: its objects go (they are owned, but the
   * ISVC lives on, so garbage collection never removes them). Only a component the last
   * status recorded is looked for, so an ISVC that never had one costs no request.
   */
  private async removeDropped(isvc: InferenceService, mode: DeploymentMode, outcomes: ReadonlyMap<ComponentType, ComponentOutcome>): Promise<void> {
    for (const component of OPTIONAL_COMPONENTS) {
      if (outcomes.has(component) || !isvc.status?.components?.[component]) continue;
      await deleteComponentObjects(this.deps.clients, mode, componentName(isvc.metadata.name!, component), isvc.metadata.namespace!);
      this.deps.logger.info({ isvc: `${isvc.metadata.namespace}/${isvc.metadata.name}`, component }, 'component removed from the spec: its objects deleted');
    }
  }

  /**
   * KServe's force stop: every component's workload objects and the way in are deleted, the
   * status keeps only the deployment mode, and each component present reports Ready False
   * with reason Stopped (as KServe's predictor, transformer and explainer reconcilers do).
   */
  private async stop(isvc: InferenceService, mode: DeploymentMode, status: InferenceServiceStatus): Promise<ReconcileResult> {
    const name = isvc.metadata.name!;
    const namespace = isvc.metadata.namespace!;
    const present = (['predictor', ...OPTIONAL_COMPONENTS] as const).filter((c) => c === 'predictor' || isvc.spec[c] || isvc.status?.components?.[c]);
    for (const component of present) await deleteComponentObjects(this.deps.clients, mode, componentName(name, component), namespace);
    if (mode === 'Standard') {
      // A named stable predictor and the canaries go too (KServe stops both).
      await deletePredictorsExcept(this.deps.clients, name, namespace, new Set());
      await deleteIngressObjects(this.deps.clients, name, namespace, present);
    }
    const stopped: InferenceServiceStatus = { deploymentMode: status.deploymentMode, observedGeneration: status.observedGeneration };
    const conditions = present.filter((c) => c === 'predictor' || isvc.spec[c]).map((c) => condition(READY_CONDITIONS[c], 'False', STOPPED, STOPPED_MESSAGE));
    await this.writeStatus(isvc, stopped, conditions, true);
    return {};
  }

  private async done(isvc: InferenceService, status: InferenceServiceStatus, conditions: Condition[]): Promise<ReconcileResult> {
    await this.writeStatus(isvc, status, conditions);
    return {};
  }

  private async read(namespace: string, name: string): Promise<InferenceService | undefined> {
    try {
      return (await this.deps.clients.custom.getNamespacedCustomObject({
        group: ISVC_GROUP,
        version: ISVC_VERSION,
        namespace,
        plural: ISVC_PLURAL,
        name,
      })) as InferenceService;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  private planPredictor(
    isvc: InferenceService,
    config: InferenceServiceConfig,
    status: InferenceServiceStatus,
  ): { ok: true; plan: ComponentPlan; multiModel: boolean } | { ok: false; reason: string; message: string } {
    const ns = isvc.metadata.namespace!;
    const resolution = resolvePredictor(isvc, config, { namespaced: this.deps.runtimes.namespaced(ns), cluster: this.deps.runtimes.cluster() });
    if (!resolution.ok) return this.invalid(status, resolution.reason, resolution.message);
    delete status.servingRuntimeName;
    delete status.clusterServingRuntimeName;
    if (resolution.runtime?.scope === 'namespace') status.servingRuntimeName = resolution.runtime.name;
    if (resolution.runtime?.scope === 'cluster') status.clusterServingRuntimeName = resolution.runtime.name;
    return resolution;
  }

  private invalid(status: InferenceServiceStatus, reason: string, message: string): { ok: false; reason: string; message: string } {
    status.modelStatus = {
      transitionStatus: 'InvalidSpec',
      states: { activeModelState: '', targetModelState: 'FailedToLoad' },
      lastFailureInfo: { reason, message },
    };
    delete status.servingRuntimeName;
    delete status.clusterServingRuntimeName;
    return { ok: false, reason, message };
  }

  private async applyStandard(isvc: InferenceService, plan: ComponentPlan, config: InferenceServiceConfig): Promise<ComponentOutcome> {
    const { objects } = this.deps.clients;
    const scaling = decideScaling(isvc, plan, config.autoscaler);
    // KServe's order: Service, then Deployment, then the autoscaler.
    const service = desiredService(isvc, plan, config.serviceClusterIPNone);
    await applyObject(objects, service);
    const deployment = await applyObject<V1Deployment>(objects, desiredDeployment(isvc, plan, scaling.replicas));
    const autoscaling = await applyAutoscaler(this.deps.clients, scaling, plan.name, isvc.metadata.namespace!);
    // Terminal until the spec or the cluster changes: retrying cannot install KEDA.
    const ready = autoscaling.kedaMissing ? condition(PREDICTOR_READY, 'False', KEDA_NOT_INSTALLED, KEDA_MISSING) : readinessFromDeployment(PREDICTOR_READY, deployment);
    const address = serviceAddress(plan.name, isvc.metadata.namespace!, service);
    // The URL's host is `{isvc}-predictor` whatever predictor.name says (KServe's route name).
    const url = ready.status === 'True' ? componentUrl(componentName(isvc.metadata.name!, plan.component), isvc, config.ingress) : undefined;
    return { ready, service, deployment, status: { ...(url ? { url } : {}), address: { url: address } } };
  }

  private async applyKnative(isvc: InferenceService, plan: ComponentPlan, status: InferenceServiceStatus): Promise<ComponentOutcome> {
    const previous = status.components?.[plan.component];
    const ksvc = await applyCustomObject<KnativeService>(this.deps.clients.custom, KNATIVE_SERVICES, desiredKnativeService(isvc, plan, previous));
    return { ready: readinessFromKnative(PREDICTOR_READY, ksvc), status: componentStatusFromKnative(ksvc, previous) };
  }

  /**
   * Standard mode: the Ingress or HTTPRoutes, then `url` (kept from before while the way in
   * is not there yet, as KServe leaves it) and `address`, the cluster-local URL of the entry
   * component (the transformer when there is one).
   */
  private async standardIngress(
    isvc: InferenceService,
    config: InferenceServiceConfig,
    status: InferenceServiceStatus,
    weights: readonly WeightedBackend[],
    predictor: ComponentOutcome,
    transformer: ComponentOutcome | undefined,
    explainer: ComponentOutcome | undefined,
  ): Promise<IngressOutcome> {
    const backend = (o: ComponentOutcome, component: ComponentExtensionSpec) => ({
      service: o.service!,
      component,
      ready: o.ready.status === 'True',
      ...(o.ready.status === 'True' ? {} : { notReady: conditionText(o.ready) }),
    });
    const outcome = await reconcileIngress(this.deps.clients, isvc, config.ingress, {
      predictor: { ...backend(predictor, isvc.spec.predictor), weights },
      ...(transformer && isvc.spec.transformer ? { transformer: backend(transformer, isvc.spec.transformer) } : {}),
      ...(explainer && isvc.spec.explainer ? { explainer: backend(explainer, isvc.spec.explainer) } : {}),
    });
    if (outcome.url) status.url = outcome.url;
    const entry = transformer ?? predictor;
    status.address = { url: entry.status.address!.url! };
    return outcome;
  }

  /** Knative: `url` from the entry ksvc URL minus `-predictor`/`-transformer`. */
  private setKnativeAddresses(isvc: InferenceService, status: InferenceServiceStatus, hasTransformer: boolean): void {
    const name = isvc.metadata.name!;
    const ns = isvc.metadata.namespace!;
    const entry: ComponentType = hasTransformer ? 'transformer' : 'predictor';
    const componentUrl = status.components?.[entry]?.url;
    if (!componentUrl) {
      delete status.url;
      return;
    }
    const u = new URL(componentUrl);
    u.hostname = u.hostname.replace(`${name}-${entry}.`, `${name}.`);
    status.url = u.toString().replace(/\/$/, '');
    status.address = { url: `http://${name}.${ns}.svc.cluster.local` };
  }

  /** `informational` conditions are written but do not decide Ready (KServe's CanaryPredictorReady). */
  private async writeStatus(isvc: InferenceService, status: InferenceServiceStatus, dependents: Condition[], stopped = false, informational: Condition[] = []): Promise<void> {
    const ready = stopped ? condition(READY, 'False', STOPPED, STOPPED_MESSAGE) : aggregateReady(dependents);
    const all = [...dependents, ...informational, ready, condition(STOPPED, stopped ? 'True' : 'False')];
    status.conditions = mergeConditions(isvc.status?.conditions, all, new Date().toISOString().replace(/\.\d+Z$/, 'Z'));
    if (sameStatus(status, isvc.status ?? {})) return;
    // replace carries the resourceVersion we read: a concurrent change makes this a 409,
    // which the work queue retries against the fresh object.
    await this.deps.clients.custom.replaceNamespacedCustomObjectStatus({
      group: ISVC_GROUP,
      version: ISVC_VERSION,
      namespace: isvc.metadata.namespace!,
      plural: ISVC_PLURAL,
      name: isvc.metadata.name!,
      body: { ...isvc, status },
    });
    this.deps.logger.info({ isvc: `${isvc.metadata.namespace}/${isvc.metadata.name}`, ready: ready.status, reason: ready.reason }, 'status updated');
  }
}

/** `http://{svc}.{ns}.svc.cluster.local`, with the target port when the Service is headless (no port mapping), as KServe. */
function serviceAddress(name: string, ns: string, service: V1Service): string {
  const host = `http://${name}.${ns}.svc.cluster.local`;
  if (service.spec?.clusterIP !== 'None') return host;
  const http = service.spec?.ports?.find((p) => !/grpc|h2c/i.test(p.name ?? '') && p.appProtocol !== 'kubernetes.io/h2c');
  return `${host}:${String(http?.targetPort ?? 8080)}`;
}
