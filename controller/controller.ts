/**
 * The InferenceService controller: watches ISVCs and everything that can change their
 * outcome (owned Deployments and Knative Services, predictor pods, runtimes, the
 * ConfigMap), maps each event to the owning ISVC's key, and reconciles keys from one
 * work queue. A periodic resync re-queues every ISVC so drift is repaired even when an
 * event was missed.
 *
 * Lifecycle: start() once (when leading), stop() before exit or on losing leadership.
 */
import type { KubernetesListObject, KubernetesObject, V1Deployment, V1Pod } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { ISVC_GROUP, ISVC_PLURAL, ISVC_VERSION, type InferenceService } from './api/inference-service.js';
import { CLUSTER_SERVING_RUNTIME_PLURAL, RUNTIME_GROUP, RUNTIME_VERSION, SERVING_RUNTIME_PLURAL, type ServingRuntime } from './api/serving-runtime.js';
import type { ConfigSource } from './config/config-source.js';
import { LABEL_COMPONENT, LABEL_ISVC } from './constants.js';
import { apiErrorMessage, isNotFound } from './kube/api-errors.js';
import type { KubeClients } from './kube/clients.js';
import { Watcher } from './kube/watcher.js';
import type { ControllerMetrics } from './metrics.js';
import { KNATIVE_SERVICES, type KnativeService } from './reconcile/knative/knative-service.js';
import { InferenceServiceReconciler } from './reconcile/inference-service-reconciler.js';
import { WorkQueue } from './work-queue.js';

export interface ControllerOptions {
  readonly clients: KubeClients;
  /** The live inferenceservice-config (started by the caller). */
  readonly config: ConfigSource;
  readonly resyncPeriodMs: number;
  readonly concurrency: number;
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
  readonly logger: Logger;
  readonly metrics: ControllerMetrics;
}

export class Controller {
  private readonly queue: WorkQueue;
  private readonly reconciler: InferenceServiceReconciler;
  private readonly watchers: Watcher<KubernetesObject>[] = [];
  private isvcs!: Watcher<InferenceService>;
  private runtimes!: Watcher<ServingRuntime>;
  private pods!: Watcher<V1Pod>;
  private clusterRuntimes!: Watcher<ServingRuntime>;
  private resyncTimer: NodeJS.Timeout | undefined;
  private knative: { installed: boolean; checkedAt: number } | undefined;
  private started = false;

  constructor(private readonly opts: ControllerOptions) {
    this.queue = new WorkQueue((key) => this.handle(key), {
      concurrency: opts.concurrency,
      baseDelayMs: opts.retryBaseMs,
      maxDelayMs: opts.retryMaxMs,
      onError: (key, err, retryInMs) => opts.logger.warn({ isvc: key, err: apiErrorMessage(err), retryInMs }, 'reconcile failed; retrying'),
    });
    this.reconciler = new InferenceServiceReconciler({
      clients: opts.clients,
      config: () => opts.config.current(),
      pods: (namespace, isvc, component) =>
        this.pods
          .list(namespace)
          .filter((p) => p.metadata?.labels?.[LABEL_ISVC] === isvc && p.metadata.labels[LABEL_COMPONENT] === component),
      runtimes: {
        namespaced: (ns) => this.runtimes.list(ns),
        cluster: () => this.clusterRuntimes.list(),
      },
      knativeInstalled: () => this.knativeInstalled(),
      logger: opts.logger,
    });
    opts.config.onChange(() => {
      if (this.started) this.enqueueAll(undefined);
    });
  }

  get synced(): boolean {
    return this.started;
  }

  /** Resolves once every cache has listed and the queue runs. */
  async start(): Promise<void> {
    const { clients, logger } = this.opts;
    const { custom, apps, core } = clients;
    const byLabel = (obj: KubernetesObject): void => {
      const isvc = obj.metadata?.labels?.[LABEL_ISVC];
      if (isvc && obj.metadata?.namespace) this.queue.add(`${obj.metadata.namespace}/${isvc}`);
    };
    this.isvcs = this.watch<InferenceService>('inferenceservices', `/apis/${ISVC_GROUP}/${ISVC_VERSION}/${ISVC_PLURAL}`, () =>
      custom.listCustomObjectForAllNamespaces({ group: ISVC_GROUP, version: ISVC_VERSION, plural: ISVC_PLURAL }) as Promise<KubernetesListObject<InferenceService>>,
      (o) => this.queue.add(`${o.metadata!.namespace}/${o.metadata!.name}`),
    );
    this.runtimes = this.watch<ServingRuntime>('servingruntimes', `/apis/${RUNTIME_GROUP}/${RUNTIME_VERSION}/${SERVING_RUNTIME_PLURAL}`, () =>
      custom.listCustomObjectForAllNamespaces({ group: RUNTIME_GROUP, version: RUNTIME_VERSION, plural: SERVING_RUNTIME_PLURAL }) as Promise<KubernetesListObject<ServingRuntime>>,
      (o) => this.enqueueAll(o.metadata?.namespace),
    );
    this.clusterRuntimes = this.watch<ServingRuntime>('clusterservingruntimes', `/apis/${RUNTIME_GROUP}/${RUNTIME_VERSION}/${CLUSTER_SERVING_RUNTIME_PLURAL}`, () =>
      custom.listClusterCustomObject({ group: RUNTIME_GROUP, version: RUNTIME_VERSION, plural: CLUSTER_SERVING_RUNTIME_PLURAL }) as Promise<KubernetesListObject<ServingRuntime>>,
      () => this.enqueueAll(undefined),
    );
    this.watch<V1Deployment>('deployments', '/apis/apps/v1/deployments', () => apps.listDeploymentForAllNamespaces({ labelSelector: LABEL_ISVC }), byLabel, LABEL_ISVC);
    this.pods = this.watch<V1Pod>('pods', '/api/v1/pods', () => core.listPodForAllNamespaces({ labelSelector: LABEL_ISVC }), byLabel, LABEL_ISVC);
    if (await this.knativeInstalled()) {
      this.watch<KnativeService>('knative-services', '/apis/serving.knative.dev/v1/services', () =>
        custom.listCustomObjectForAllNamespaces(KNATIVE_SERVICES) as Promise<KubernetesListObject<KnativeService>>,
        byLabel, LABEL_ISVC,
      );
    }
    await Promise.all(this.watchers.map((w) => w.start()));
    await Promise.all(this.watchers.map((w) => w.synced));
    this.queue.start();
    this.enqueueAll(undefined);
    this.resyncTimer = setInterval(() => {
      this.knative = undefined;
      this.enqueueAll(undefined);
    }, this.opts.resyncPeriodMs);
    this.started = true;
    logger.info({ watchers: this.watchers.length }, 'controller caches synced; reconciling');
  }

  async stop(): Promise<void> {
    this.started = false;
    if (this.resyncTimer) clearInterval(this.resyncTimer);
    await Promise.all(this.watchers.map((w) => w.stop()));
    this.watchers.length = 0;
    await this.queue.stop();
  }

  /** Resolves when no reconcile is queued or running (tests). */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  private watch<T extends KubernetesObject>(
    name: string,
    path: string,
    list: () => Promise<KubernetesListObject<T>>,
    onChange: (obj: T) => void,
    labelSelector?: string,
  ): Watcher<T> {
    const w = new Watcher<T>(this.opts.clients.kubeConfig, {
      name,
      path,
      list,
      onChange,
      logger: this.opts.logger,
      ...(labelSelector ? { labelSelector } : {}),
    });
    this.watchers.push(w as unknown as Watcher<KubernetesObject>);
    return w;
  }

  private enqueueAll(namespace: string | undefined): void {
    if (!this.isvcs) return;
    for (const isvc of this.isvcs.list(namespace)) this.queue.add(`${isvc.metadata.namespace}/${isvc.metadata.name}`);
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

  private async handle(key: string): Promise<void> {
    const [namespace, name] = key.split('/') as [string, string];
    const end = this.opts.metrics.reconcileSeconds.startTimer();
    try {
      const result = await this.reconciler.reconcile(namespace, name);
      this.opts.metrics.reconciles.inc({ result: 'success' });
      // Something the controller does not watch (an HTTPRoute's acceptance) is pending.
      if (result.recheckAfterMs !== undefined && this.started) this.queue.addAfter(key, result.recheckAfterMs);
    } catch (err) {
      this.opts.metrics.reconciles.inc({ result: 'error' });
      throw err;
    } finally {
      end();
      this.opts.metrics.queueDepth.set(this.queue.depth);
    }
  }
}
