/**
 * The live `inferenceservice-config`: watches the ConfigMap and re-parses it on every
 * change, keeping the last parse result (or its error). Runs on every replica, leader or
 * not, because the webhooks need it too. A missing ConfigMap means KServe's defaults.
 */
import type { KubernetesListObject, V1ConfigMap } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { CONFIGMAP_NAME } from '../constants.js';
import type { KubeClients } from '../kube/clients.js';
import { Watcher } from '../kube/watcher.js';
import { type InferenceServiceConfig, parseInferenceServiceConfig } from './inferenceservice-config.js';

export class ConfigSource {
  private value: InferenceServiceConfig | Error = parseInferenceServiceConfig(undefined);
  private readonly listeners: (() => void)[] = [];
  private readonly watcher: Watcher<V1ConfigMap>;

  constructor(
    clients: KubeClients,
    private readonly namespace: string,
    private readonly logger: Logger,
  ) {
    this.watcher = new Watcher<V1ConfigMap>(clients.kubeConfig, {
      name: 'inferenceservice-config',
      path: `/api/v1/namespaces/${namespace}/configmaps`,
      list: (): Promise<KubernetesListObject<V1ConfigMap>> => clients.core.listNamespacedConfigMap({ namespace }),
      onChange: (cm) => {
        if (cm.metadata?.name !== CONFIGMAP_NAME) return;
        this.reload();
        for (const l of this.listeners) l();
      },
      logger,
    });
  }

  async start(): Promise<void> {
    await this.watcher.start();
    await this.watcher.synced;
    this.reload();
  }

  stop(): Promise<void> {
    return this.watcher.stop();
  }

  /** The parsed ConfigMap; throws its ConfigError while the ConfigMap is invalid. */
  current(): InferenceServiceConfig {
    if (this.value instanceof Error) throw this.value;
    return this.value;
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  private reload(): void {
    const cm = this.watcher.get(CONFIGMAP_NAME, this.namespace);
    try {
      this.value = parseInferenceServiceConfig(cm?.data);
    } catch (err) {
      this.value = err as Error;
      this.logger.error({ err: (err as Error).message }, 'inferenceservice-config is invalid; reconciles and webhooks wait for a valid one');
    }
  }
}
