/**
 * Writes a multi-model InferenceService's `modelconfig-<isvc>-0` from the TrainedModels the
 * API server holds now (read fresh, not from a cache, so the last writer is never behind):
 * server-side applied, so writing the same list twice changes nothing.
 */
import type { KubernetesListObject } from '@kubernetes/client-node';
import type { InferenceService } from '../../api/inference-service.js';
import { TM_GROUP, TM_PLURAL, TM_VERSION, type TrainedModel } from '../../api/trained-model.js';
import { isNotFound } from '../../kube/api-errors.js';
import { applyObject } from '../../kube/apply.js';
import type { KubeClients } from '../../kube/clients.js';
import type { ComponentPlan } from '../component-plan.js';
import { predictorMemoryLimit } from '../predictor-resolution.js';
import { allocate, desiredModelConfigMap, modelConfigJson, trainedModelsOf } from './model-config.js';

/** The namespace's TrainedModels; none when the CRD is not installed. */
export async function listTrainedModels(clients: KubeClients, namespace: string): Promise<TrainedModel[]> {
  try {
    const list = (await clients.custom.listNamespacedCustomObject({ group: TM_GROUP, version: TM_VERSION, plural: TM_PLURAL, namespace })) as KubernetesListObject<TrainedModel>;
    return list.items;
  } catch (err) {
    if (isNotFound(err)) return [];
    throw err;
  }
}

export async function syncModelConfig(clients: KubeClients, isvc: InferenceService, plan: ComponentPlan): Promise<void> {
  const models = trainedModelsOf(isvc.metadata.name!, await listTrainedModels(clients, isvc.metadata.namespace!));
  const json = modelConfigJson(models, allocate(models, predictorMemoryLimit(plan)));
  await applyObject(clients.objects, desiredModelConfigMap(isvc, json));
}
