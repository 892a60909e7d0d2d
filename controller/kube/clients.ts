/**
 * Typed API clients made once from one KubeConfig (loaded at start-up by the entry point)
 * and passed down; nothing below the entry point reads kubeconfig files or environment.
 */
import { AppsV1Api, AutoscalingV2Api, CoordinationV1Api, CoreV1Api, CustomObjectsApi, type KubeConfig, KubernetesObjectApi } from '@kubernetes/client-node';

export interface KubeClients {
  readonly kubeConfig: KubeConfig;
  readonly core: CoreV1Api;
  readonly apps: AppsV1Api;
  readonly autoscaling: AutoscalingV2Api;
  readonly custom: CustomObjectsApi;
  readonly coordination: CoordinationV1Api;
  /** Generic object API: server-side apply and deletes of any kind. */
  readonly objects: KubernetesObjectApi;
}

export function makeClients(kubeConfig: KubeConfig): KubeClients {
  return {
    kubeConfig,
    core: kubeConfig.makeApiClient(CoreV1Api),
    apps: kubeConfig.makeApiClient(AppsV1Api),
    autoscaling: kubeConfig.makeApiClient(AutoscalingV2Api),
    custom: kubeConfig.makeApiClient(CustomObjectsApi),
    coordination: kubeConfig.makeApiClient(CoordinationV1Api),
    objects: KubernetesObjectApi.makeApiClient(kubeConfig),
  };
}
