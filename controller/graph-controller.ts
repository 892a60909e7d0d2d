/**
 * The InferenceGraph controller: watches graphs and what decides their outcome (the
 * router workloads they own, the InferenceServices they name, the ConfigMap), maps each
 * event to the graph's key, and reconciles keys from a loop of its own (reconcile-loop.ts). When the InferenceGraph CRD is not installed it logs so and
 * reconciles nothing (the InferenceService controller runs regardless).
 *
 * Lifecycle: start() once (when leading), stop() before exit or on losing leadership.
 */
import type { KubernetesListObject, KubernetesObject, V1Deployment } from '@kubernetes/client-node';
import { GRAPH_GROUP, GRAPH_PLURAL, GRAPH_VERSION, type InferenceGraph } from './api/inference-graph.js';
import { ISVC_GROUP, ISVC_PLURAL, ISVC_VERSION, type InferenceService } from './api/inference-service.js';
import { CLUSTER_SERVING_RUNTIME_PLURAL, RUNTIME_GROUP, RUNTIME_VERSION, SERVING_RUNTIME_PLURAL, type ServingRuntime } from './api/serving-runtime.js';
import type { ConfigSource } from './config/config-source.js';
import { isNotFound } from './kube/api-errors.js';
import type { KubeClients } from './kube/clients.js';
import type { Watcher } from './kube/watcher.js';
import { InferenceGraphReconciler, serviceNamesOf } from './reconcile/graph/graph-reconciler.js';
import { LABEL_GRAPH } from './reconcile/graph/router-workload.js';
import { KNATIVE_SERVICES, type KnativeService } from './reconcile/knative/knative-service.js';
import { ReconcileLoop, loopTuning, type LoopTuning } from './reconcile-loop.js';

export interface GraphControllerOptions extends LoopTuning {
  readonly clients: KubeClients;
  readonly config: ConfigSource;
  /** Whether the Knative Service CRD is served (the InferenceService controller's cached check). */
  readonly knativeInstalled: () => Promise<boolean>;
}

export class GraphController {
  private readonly loop: ReconcileLoop;
  private graphs: Watcher<InferenceGraph> | undefined;
  private isvcs: Watcher<InferenceService> | undefined;

  constructor(private readonly opts: GraphControllerOptions) {
    const log = opts.logger.child({ controller: 'inferencegraph' });
    const reconciler = new InferenceGraphReconciler({
      clients: opts.clients,
      config: () => opts.config.current(),
      isvc: (ns, name) => this.isvcs?.get(name, ns),
      runtimes: (ns, name) => this.runtime(ns, name),
      knativeInstalled: opts.knativeInstalled,
      logger: log,
    });
    this.loop = new ReconcileLoop({
      kind: 'InferenceGraph',
      ...loopTuning(opts),
      kubeConfig: opts.clients.kubeConfig,
      logger: log,
      reconcile: (ns, name) => reconciler.reconcile(ns, name),
      allKeys: () => (this.graphs?.list() ?? []).map((ig) => `${ig.metadata.namespace}/${ig.metadata.name}`),
    });
    opts.config.onChange(() => {
      if (this.loop.started) this.loop.addAll();
    });
  }

  get synced(): boolean {
    return this.loop.started;
  }

  async start(): Promise<void> {
    const { custom, apps } = this.opts.clients;
    const loop = this.loop;
    if (!(await this.crdInstalled())) {
      this.opts.logger.warn('the InferenceGraph CRD (inferencegraphs.serving.kserve.io) is not installed: InferenceGraphs are not reconciled');
      loop.startIdle();
      return;
    }
    const byLabel = (obj: KubernetesObject): void => {
      const graph = obj.metadata?.labels?.[LABEL_GRAPH];
      if (graph && obj.metadata?.namespace) loop.add(`${obj.metadata.namespace}/${graph}`);
    };
    this.graphs = loop.watch<InferenceGraph>(
      'inferencegraphs',
      `/apis/${GRAPH_GROUP}/${GRAPH_VERSION}/${GRAPH_PLURAL}`,
      () => custom.listCustomObjectForAllNamespaces({ group: GRAPH_GROUP, version: GRAPH_VERSION, plural: GRAPH_PLURAL }) as Promise<KubernetesListObject<InferenceGraph>>,
      (o) => loop.add(`${o.metadata.namespace}/${o.metadata.name}`),
    );
    // An InferenceService that appears, gets an address or changes readiness moves the graphs naming it.
    this.isvcs = loop.watch<InferenceService>(
      'inferenceservices (graphs)',
      `/apis/${ISVC_GROUP}/${ISVC_VERSION}/${ISVC_PLURAL}`,
      () => custom.listCustomObjectForAllNamespaces({ group: ISVC_GROUP, version: ISVC_VERSION, plural: ISVC_PLURAL }) as Promise<KubernetesListObject<InferenceService>>,
      (o) => this.enqueueNaming(o.metadata?.namespace, o.metadata?.name),
    );
    loop.watch<V1Deployment>('deployments (graphs)', '/apis/apps/v1/deployments', () => apps.listDeploymentForAllNamespaces({ labelSelector: LABEL_GRAPH }), byLabel, LABEL_GRAPH);
    if (await this.opts.knativeInstalled()) {
      loop.watch<KnativeService>(
        'knative-services (graphs)',
        '/apis/serving.knative.dev/v1/services',
        () => custom.listCustomObjectForAllNamespaces({ ...KNATIVE_SERVICES, labelSelector: LABEL_GRAPH }) as Promise<KubernetesListObject<KnativeService>>,
        byLabel,
        LABEL_GRAPH,
      );
    }
    await loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  idle(): Promise<void> {
    return this.loop.idle();
  }

  private async crdInstalled(): Promise<boolean> {
    try {
      await this.opts.clients.custom.listCustomObjectForAllNamespaces({ group: GRAPH_GROUP, version: GRAPH_VERSION, plural: GRAPH_PLURAL, limit: 1 });
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  private enqueueNaming(namespace: string | undefined, isvc: string | undefined): void {
    if (!namespace || !isvc) return;
    for (const ig of this.graphs?.list(namespace) ?? []) if (serviceNamesOf(ig.spec).includes(isvc)) this.loop.add(`${namespace}/${ig.metadata.name}`);
  }

  /** A ServingRuntime of the namespace, else the ClusterServingRuntime of that name (KServe's GetServingRuntime). */
  private async runtime(namespace: string, name: string): Promise<ServingRuntime | undefined> {
    const { custom } = this.opts.clients;
    try {
      return (await custom.getNamespacedCustomObject({ group: RUNTIME_GROUP, version: RUNTIME_VERSION, namespace, plural: SERVING_RUNTIME_PLURAL, name })) as ServingRuntime;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    try {
      return (await custom.getClusterCustomObject({ group: RUNTIME_GROUP, version: RUNTIME_VERSION, plural: CLUSTER_SERVING_RUNTIME_PLURAL, name })) as ServingRuntime;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }
}
