/**
 * What the TrainedModel webhook needs to know about a parent InferenceService, read from
 * the API server on each CREATE: whether it serves many models (predictor-resolution.ts),
 * its serving container's memory limit, and the memory its other TrainedModels take.
 */
import type { KubernetesListObject } from '@kubernetes/client-node';
import { ISVC_GROUP, ISVC_PLURAL, ISVC_VERSION, type InferenceService } from '../../api/inference-service.js';
import { CLUSTER_SERVING_RUNTIME_PLURAL, RUNTIME_GROUP, RUNTIME_VERSION, SERVING_RUNTIME_PLURAL, type ServingRuntime } from '../../api/serving-runtime.js';
import type { TrainedModel } from '../../api/trained-model.js';
import type { InferenceServiceConfig } from '../../config/inferenceservice-config.js';
import { isNotFound } from '../../kube/api-errors.js';
import type { KubeClients } from '../../kube/clients.js';
import { predictorMemoryLimit, resolvePredictor } from '../predictor-resolution.js';
import { trainedModelsOf } from './model-config.js';
import { listTrainedModels } from './model-config-sync.js';

export interface ParentFacts {
  readonly multiModel: boolean;
  readonly memoryLimit?: string;
  readonly memoryInUse: readonly (string | number)[];
}

export function kubeParentFacts(clients: KubeClients, config: () => InferenceServiceConfig): (namespace: string, tm: TrainedModel) => Promise<ParentFacts | undefined> {
  const { custom } = clients;
  return async (namespace, tm) => {
    let isvc: InferenceService;
    try {
      isvc = (await custom.getNamespacedCustomObject({
        group: ISVC_GROUP,
        version: ISVC_VERSION,
        namespace,
        plural: ISVC_PLURAL,
        name: tm.spec.inferenceService,
      })) as InferenceService;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
    const list = async (plural: string, scoped: boolean) =>
      (
        (scoped
          ? await custom.listNamespacedCustomObject({ group: RUNTIME_GROUP, version: RUNTIME_VERSION, namespace, plural })
          : await custom.listClusterCustomObject({ group: RUNTIME_GROUP, version: RUNTIME_VERSION, plural })) as KubernetesListObject<ServingRuntime>
      ).items;
    const resolution = resolvePredictor(isvc, config(), { namespaced: await list(SERVING_RUNTIME_PLURAL, true), cluster: await list(CLUSTER_SERVING_RUNTIME_PLURAL, false) });
    if (!resolution.ok || !resolution.multiModel) return { multiModel: false, memoryInUse: [] };
    const others = trainedModelsOf(tm.spec.inferenceService, await listTrainedModels(clients, namespace)).filter((o) => o.metadata.name !== tm.metadata.name);
    const memoryLimit = predictorMemoryLimit(resolution.plan);
    return { multiModel: true, ...(memoryLimit !== undefined ? { memoryLimit } : {}), memoryInUse: others.map((o) => o.spec.model.memory) };
  };
}
