/**
 * The TrainedModel controller: watches TrainedModels, InferenceServices and runtimes, and
 * reconciles every TrainedModel of a parent when any of them, the parent or a runtime changes
 * (they share the parent's memory and its ConfigMap). When the TrainedModel CRD is not installed it logs so
 * and reconciles nothing.
 *
 * Lifecycle: start() once (when leading), stop() before exit or on losing leadership.
 */
import type { KubernetesListObject } from '@kubernetes/client-node';
import { ISVC_GROUP, ISVC_PLURAL, ISVC_VERSION, type InferenceService } from './api/inference-service.js';
import { CLUSTER_SERVING_RUNTIME_PLURAL, RUNTIME_GROUP, RUNTIME_VERSION, SERVING_RUNTIME_PLURAL, type ServingRuntime } from './api/serving-runtime.js';
import { TM_GROUP, TM_PLURAL, TM_VERSION, type TrainedModel } from './api/trained-model.js';
import type { ConfigSource } from './config/config-source.js';
import { isNotFound } from './kube/api-errors.js';
import type { KubeClients } from './kube/clients.js';
import type { Watcher } from './kube/watcher.js';
import { TrainedModelReconciler } from './reconcile/multi-model/trained-model-reconciler.js';
import { ReconcileLoop, loopTuning, type LoopTuning } from './reconcile-loop.js';

export interface TrainedModelControllerOptions extends LoopTuning {
  readonly clients: KubeClients;
  readonly config: ConfigSource;
}

export class TrainedModelController {
  private readonly loop: ReconcileLoop;
  private models: Watcher<TrainedModel> | undefined;

  constructor(private readonly opts: TrainedModelControllerOptions) {
    const log = opts.logger.child({ controller: 'trainedmodel' });
    const reconciler = new TrainedModelReconciler({
      clients: opts.clients,
      config: () => opts.config.current(),
      runtimes: (ns) => this.runtimes(ns),
      logger: log,
    });
    this.loop = new ReconcileLoop({
      kind: 'TrainedModel',
      ...loopTuning(opts),
      kubeConfig: opts.clients.kubeConfig,
      logger: log,
      reconcile: async (ns, name) => {
        await reconciler.reconcile(ns, name);
        return {};
      },
      allKeys: () => (this.models?.list() ?? []).map((tm) => `${tm.metadata.namespace}/${tm.metadata.name}`),
    });
    opts.config.onChange(() => {
      if (this.loop.started) this.loop.addAll();
    });
  }

  get synced(): boolean {
    return this.loop.started;
  }

  async start(): Promise<void> {
    const { custom } = this.opts.clients;
    const loop = this.loop;
    if (!(await this.crdInstalled())) {
      this.opts.logger.warn('the TrainedModel CRD (trainedmodels.serving.kserve.io) is not installed: TrainedModels are not reconciled');
      loop.startIdle();
      return;
    }
    this.models = loop.watch<TrainedModel>(
      'trainedmodels',
      `/apis/${TM_GROUP}/${TM_VERSION}/${TM_PLURAL}`,
      () => custom.listCustomObjectForAllNamespaces({ group: TM_GROUP, version: TM_VERSION, plural: TM_PLURAL }) as Promise<KubernetesListObject<TrainedModel>>,
      (o) => {
        loop.add(`${o.metadata.namespace}/${o.metadata.name}`);
        this.enqueueChildren(o.metadata.namespace, o.spec?.inferenceService);
      },
    );
    // A parent that appears, goes, gets an address or changes readiness or memory moves its models.
    loop.watch<InferenceService>(
      'inferenceservices (trainedmodels)',
      `/apis/${ISVC_GROUP}/${ISVC_VERSION}/${ISVC_PLURAL}`,
      () => custom.listCustomObjectForAllNamespaces({ group: ISVC_GROUP, version: ISVC_VERSION, plural: ISVC_PLURAL }) as Promise<KubernetesListObject<InferenceService>>,
      (o) => this.enqueueChildren(o.metadata?.namespace, o.metadata?.name),
    );
    // A runtime's memory limit or multiModel decides the models' memory and IsMMSPredictor.
    loop.watch<ServingRuntime>(
      'servingruntimes (trainedmodels)',
      `/apis/${RUNTIME_GROUP}/${RUNTIME_VERSION}/${SERVING_RUNTIME_PLURAL}`,
      () =>
        custom.listCustomObjectForAllNamespaces({ group: RUNTIME_GROUP, version: RUNTIME_VERSION, plural: SERVING_RUNTIME_PLURAL }) as Promise<
          KubernetesListObject<ServingRuntime>
        >,
      (o) => this.enqueueNamespace(o.metadata?.namespace),
    );
    loop.watch<ServingRuntime>(
      'clusterservingruntimes (trainedmodels)',
      `/apis/${RUNTIME_GROUP}/${RUNTIME_VERSION}/${CLUSTER_SERVING_RUNTIME_PLURAL}`,
      () =>
        custom.listClusterCustomObject({ group: RUNTIME_GROUP, version: RUNTIME_VERSION, plural: CLUSTER_SERVING_RUNTIME_PLURAL }) as Promise<KubernetesListObject<ServingRuntime>>,
      () => this.enqueueNamespace(undefined),
    );
    await loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  idle(): Promise<void> {
    return this.loop.idle();
  }

  private enqueueNamespace(namespace: string | undefined): void {
    for (const tm of this.models?.list(namespace) ?? []) this.loop.add(`${tm.metadata.namespace}/${tm.metadata.name}`);
  }

  private enqueueChildren(namespace: string | undefined, isvc: string | undefined): void {
    if (!namespace || !isvc) return;
    for (const tm of this.models?.list(namespace) ?? []) if (tm.spec?.inferenceService === isvc) this.loop.add(`${namespace}/${tm.metadata.name}`);
  }

  private async crdInstalled(): Promise<boolean> {
    try {
      await this.opts.clients.custom.listCustomObjectForAllNamespaces({ group: TM_GROUP, version: TM_VERSION, plural: TM_PLURAL, limit: 1 });
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  /** The runtimes runtime selection chooses from (read fresh: TrainedModel events are rare). */
  private async runtimes(namespace: string): Promise<{ namespaced: ServingRuntime[]; cluster: ServingRuntime[] }> {
    const { custom } = this.opts.clients;
    const namespaced = (await custom.listNamespacedCustomObject({
      group: RUNTIME_GROUP,
      version: RUNTIME_VERSION,
      namespace,
      plural: SERVING_RUNTIME_PLURAL,
    })) as KubernetesListObject<ServingRuntime>;
    const cluster = (await custom.listClusterCustomObject({
      group: RUNTIME_GROUP,
      version: RUNTIME_VERSION,
      plural: CLUSTER_SERVING_RUNTIME_PLURAL,
    })) as KubernetesListObject<ServingRuntime>;
    return { namespaced: namespaced.items, cluster: cluster.items };
  }
}
