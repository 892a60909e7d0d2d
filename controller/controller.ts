/**
 * The InferenceService controller: watches ISVCs and everything that can change their
 * outcome (owned Deployments and Knative Services, predictor pods, runtimes, the
 * ConfigMap), maps each event to the owning ISVC's key, and reconciles keys from one
 * loop (reconcile-loop.ts: work queue, backoff, periodic resync).
 *
 * Lifecycle: start() once (when leading), stop() before exit or on losing leadership.
 */
import type { KubernetesListObject, KubernetesObject, V1Deployment, V1Pod } from '@kubernetes/client-node';
import { ISVC_GROUP, ISVC_PLURAL, ISVC_VERSION, type InferenceService } from './api/inference-service.js';
import { CLUSTER_SERVING_RUNTIME_PLURAL, RUNTIME_GROUP, RUNTIME_VERSION, SERVING_RUNTIME_PLURAL, type ServingRuntime } from './api/serving-runtime.js';
import type { ConfigSource } from './config/config-source.js';
import { LABEL_COMPONENT, LABEL_ISVC } from './constants.js';
import { isNotFound } from './kube/api-errors.js';
import type { KubeClients } from './kube/clients.js';
import type { Watcher } from './kube/watcher.js';
import { KNATIVE_SERVICES, type KnativeService } from './reconcile/knative/knative-service.js';
import { InferenceServiceReconciler } from './reconcile/inference-service-reconciler.js';
import { syncModelConfig } from './reconcile/multi-model/model-config-sync.js';
import { ReconcileLoop, loopTuning, type LoopTuning } from './reconcile-loop.js';

export interface ControllerOptions extends LoopTuning {
  readonly clients: KubeClients;
  /** The live inferenceservice-config (started by the caller). */
  readonly config: ConfigSource;
}

export class Controller {
  private readonly loop: ReconcileLoop;
  private isvcs: Watcher<InferenceService> | undefined;
  private runtimes!: Watcher<ServingRuntime>;
  private pods!: Watcher<V1Pod>;
  private clusterRuntimes!: Watcher<ServingRuntime>;
  private knative: { installed: boolean; checkedAt: number } | undefined;

  constructor(private readonly opts: ControllerOptions) {
    const reconciler = new InferenceServiceReconciler({
      clients: opts.clients,
      config: () => opts.config.current(),
      pods: (namespace, isvc, component) => this.pods.list(namespace).filter((p) => p.metadata?.labels?.[LABEL_ISVC] === isvc && p.metadata.labels[LABEL_COMPONENT] === component),
      runtimes: {
        namespaced: (ns) => this.runtimes.list(ns),
        cluster: () => this.clusterRuntimes.list(),
      },
      knativeInstalled: () => this.knativeInstalled(),
      logger: opts.logger,
      modelConfig: (isvc, plan) => syncModelConfig(opts.clients, isvc, plan),
    });
    this.loop = new ReconcileLoop({
      kind: 'InferenceService',
      ...loopTuning(opts),
      kubeConfig: opts.clients.kubeConfig,
      reconcile: (ns, name) => reconciler.reconcile(ns, name),
      allKeys: () => this.keys(undefined),
      onResync: () => {
        this.knative = undefined;
      },
      // What operators and the suites wait for (the graph loop says its own).
      syncedMessage: 'controller caches synced; reconciling',
    });
    opts.config.onChange(() => {
      if (this.loop.started) this.loop.addAll();
    });
  }

  get synced(): boolean {
    return this.loop.started;
  }

  /** Resolves once every cache has listed and the queue runs. */
  async start(): Promise<void> {
    const { custom, apps, core } = this.opts.clients;
    const loop = this.loop;
    const byLabel = (obj: KubernetesObject): void => {
      const isvc = obj.metadata?.labels?.[LABEL_ISVC];
      if (isvc && obj.metadata?.namespace) loop.add(`${obj.metadata.namespace}/${isvc}`);
    };
    const enqueueNamespace = (ns: string | undefined) => {
      for (const key of this.keys(ns)) loop.add(key);
    };
    this.isvcs = loop.watch<InferenceService>(
      'inferenceservices',
      `/apis/${ISVC_GROUP}/${ISVC_VERSION}/${ISVC_PLURAL}`,
      () => custom.listCustomObjectForAllNamespaces({ group: ISVC_GROUP, version: ISVC_VERSION, plural: ISVC_PLURAL }) as Promise<KubernetesListObject<InferenceService>>,
      (o) => loop.add(`${o.metadata.namespace}/${o.metadata.name}`),
    );
    this.runtimes = loop.watch<ServingRuntime>(
      'servingruntimes',
      `/apis/${RUNTIME_GROUP}/${RUNTIME_VERSION}/${SERVING_RUNTIME_PLURAL}`,
      () =>
        custom.listCustomObjectForAllNamespaces({ group: RUNTIME_GROUP, version: RUNTIME_VERSION, plural: SERVING_RUNTIME_PLURAL }) as Promise<
          KubernetesListObject<ServingRuntime>
        >,
      (o) => enqueueNamespace(o.metadata?.namespace),
    );
    this.clusterRuntimes = loop.watch<ServingRuntime>(
      'clusterservingruntimes',
      `/apis/${RUNTIME_GROUP}/${RUNTIME_VERSION}/${CLUSTER_SERVING_RUNTIME_PLURAL}`,
      () =>
        custom.listClusterCustomObject({ group: RUNTIME_GROUP, version: RUNTIME_VERSION, plural: CLUSTER_SERVING_RUNTIME_PLURAL }) as Promise<KubernetesListObject<ServingRuntime>>,
      () => enqueueNamespace(undefined),
    );
    loop.watch<V1Deployment>('deployments', '/apis/apps/v1/deployments', () => apps.listDeploymentForAllNamespaces({ labelSelector: LABEL_ISVC }), byLabel, LABEL_ISVC);
    this.pods = loop.watch<V1Pod>('pods', '/api/v1/pods', () => core.listPodForAllNamespaces({ labelSelector: LABEL_ISVC }), byLabel, LABEL_ISVC);
    if (await this.knativeInstalled()) {
      loop.watch<KnativeService>(
        'knative-services',
        '/apis/serving.knative.dev/v1/services',
        () => custom.listCustomObjectForAllNamespaces(KNATIVE_SERVICES) as Promise<KubernetesListObject<KnativeService>>,
        byLabel,
        LABEL_ISVC,
      );
    }
    await loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Resolves when no reconcile is queued or running (tests). */
  idle(): Promise<void> {
    return this.loop.idle();
  }

  private keys(namespace: string | undefined): string[] {
    return (this.isvcs?.list(namespace) ?? []).map((isvc) => `${isvc.metadata.namespace}/${isvc.metadata.name}`);
  }

  /** Whether the Knative Service CRD is served (checked at most every 30 s; the graph controller asks too). */
  async knativeInstalled(): Promise<boolean> {
    if (this.knative && Date.now() - this.knative.checkedAt < 30_000) return this.knative.installed;
    let installed = true;
    try {
      await this.opts.clients.custom.listCustomObjectForAllNamespaces({ ...KNATIVE_SERVICES, limit: 1 });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      installed = false;
    }
    this.knative = { installed, checkedAt: Date.now() };
    return installed;
  }
}
