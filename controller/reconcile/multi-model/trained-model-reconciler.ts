/**
 * Reconciles one TrainedModel as KServe's `pkg/controller/v1alpha1/trainedmodel/controller.go`:
 * a TrainedModel whose parent InferenceService is gone is deleted; otherwise it carries
 * KServe's finalizer and parent label, its status says whether the parent is ready, serves
 * many models and has memory for it (KServe's conditions, reasons and messages), its URL is
 * the parent's with the model's predict path, and the parent's `modelconfig-<isvc>-0` lists
 * it. Deleting it takes it out of the ConfigMap before the finalizer goes.
 *
 * One difference: KServe adds a model to the ConfigMap only once its parent is Ready; here a
 * model that fits is listed at once (the server loads it when it starts, and a parent that
 * is not Ready yet is often waiting for exactly that).
 */
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { ISVC_GROUP, ISVC_PLURAL, ISVC_VERSION, type Condition, type InferenceService } from '../../api/inference-service.js';
import type { ServingRuntime } from '../../api/serving-runtime.js';
import {
  LABEL_PARENT_ISVC,
  TM_FINALIZER,
  TM_GROUP,
  TM_INFERENCE_SERVICE_READY,
  TM_IS_MMS_PREDICTOR,
  TM_MEMORY_RESOURCE_AVAILABLE,
  TM_PLURAL,
  TM_VERSION,
  type TrainedModel,
  type TrainedModelStatus,
} from '../../api/trained-model.js';
import type { InferenceServiceConfig } from '../../config/inferenceservice-config.js';
import { isNotFound } from '../../kube/api-errors.js';
import type { KubeClients } from '../../kube/clients.js';
import { type PredictorResolution, predictorMemoryLimit, resolvePredictor } from '../predictor-resolution.js';
import { READY, aggregateReady, condition, mergeConditions } from '../status/conditions.js';
import { sameStatus } from '../status/same-status.js';
import { allocate, trainedModelsOf } from './model-config.js';
import { listTrainedModels, syncModelConfig } from './model-config-sync.js';

export interface TrainedModelReconcilerDeps {
  readonly clients: KubeClients;
  readonly config: () => InferenceServiceConfig;
  readonly runtimes: (namespace: string) => Promise<{ namespaced: readonly ServingRuntime[]; cluster: readonly ServingRuntime[] }>;
  readonly logger: Logger;
}

/** KServe's messages (`controller.go`), kept for the webhook's refusals and the logs. */
export const tmMessages = {
  isvcNotReady: 'Inference Service needs to be ready before Trained Model can be ready',
  notMms: 'Inference Service predictor is not configured for multi-model serving',
  noMemory: 'Inference Service does not have enough memory resources for Trained Model',
};

const MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

export class TrainedModelReconciler {
  constructor(private readonly deps: TrainedModelReconcilerDeps) {}

  async reconcile(namespace: string, name: string): Promise<void> {
    const tm = await this.read(namespace, name);
    if (!tm) return;
    const isvc = await this.readIsvc(namespace, tm.spec.inferenceService);
    const log = this.deps.logger.child({ trainedmodel: `${namespace}/${name}`, inferenceService: tm.spec.inferenceService });
    const resolution = isvc ? resolvePredictor(isvc, this.deps.config(), await this.deps.runtimes(namespace)) : undefined;
    if (tm.metadata.deletionTimestamp) {
      if (!tm.metadata.finalizers?.includes(TM_FINALIZER)) return;
      if (isvc && resolution?.ok && resolution.multiModel) await syncModelConfig(this.deps.clients, isvc, resolution.plan);
      await this.patchMetadata(tm, { finalizers: tm.metadata.finalizers.filter((f) => f !== TM_FINALIZER) });
      log.info('removed from the model config; finalizer released');
      return;
    }
    if (!isvc) {
      // KServe deletes a TrainedModel whose parent is gone (the parent does not own it).
      log.info('parent InferenceService does not exist: deleting the TrainedModel');
      await this.deps.clients.custom.deleteNamespacedCustomObject({ group: TM_GROUP, version: TM_VERSION, namespace, plural: TM_PLURAL, name });
      return;
    }
    if (!tm.metadata.finalizers?.includes(TM_FINALIZER) || tm.metadata.labels?.[LABEL_PARENT_ISVC] !== isvc.metadata.name) {
      await this.patchMetadata(tm, {
        finalizers: [...(tm.metadata.finalizers ?? []).filter((f) => f !== TM_FINALIZER), TM_FINALIZER],
        labels: { [LABEL_PARENT_ISVC]: isvc.metadata.name! },
      });
    }
    const siblings = trainedModelsOf(isvc.metadata.name!, await listTrainedModels(this.deps.clients, namespace));
    const status = this.status(tm, isvc, resolution!, siblings);
    if (resolution?.ok && resolution.multiModel) await syncModelConfig(this.deps.clients, isvc, resolution.plan);
    await this.writeStatus(tm, status);
  }

  private status(tm: TrainedModel, isvc: InferenceService, resolution: PredictorResolution, siblings: readonly TrainedModel[]): TrainedModelStatus {
    const parentReady = isvc.status?.conditions?.find((c) => c.type === READY)?.status === 'True';
    const mms = resolution.ok && resolution.multiModel;
    const fits = resolution.ok && allocate(siblings, predictorMemoryLimit(resolution.plan)).has(tm.metadata.name!);
    const dependents: Condition[] = [
      parentReady ? condition(TM_INFERENCE_SERVICE_READY, 'True') : condition(TM_INFERENCE_SERVICE_READY, 'False', 'InferenceServiceNotReady', tmMessages.isvcNotReady),
      mms ? condition(TM_IS_MMS_PREDICTOR, 'True') : condition(TM_IS_MMS_PREDICTOR, 'False', 'IsNotMMSPredictor', tmMessages.notMms),
      fits ? condition(TM_MEMORY_RESOURCE_AVAILABLE, 'True') : condition(TM_MEMORY_RESOURCE_AVAILABLE, 'False', 'MemoryResourceNotAvailable', tmMessages.noMemory),
    ];
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const path = predictPath(tm.metadata.name!, isvc);
    const status: TrainedModelStatus = {
      observedGeneration: tm.metadata.generation ?? 0,
      conditions: mergeConditions(tm.status?.conditions, [...dependents, aggregateReady(dependents)], now),
    };
    if (isvc.status?.url) status.url = `${isvc.status.url.replace(/\/$/, '')}${path}`;
    if (isvc.status?.address?.url) status.address = { url: `${isvc.status.address.url.replace(/\/$/, '')}${path}` };
    return status;
  }

  private async writeStatus(tm: TrainedModel, status: TrainedModelStatus): Promise<void> {
    if (sameStatus(status, tm.status ?? {})) return;
    const fresh = await this.read(tm.metadata.namespace!, tm.metadata.name!);
    if (!fresh) return;
    await this.deps.clients.custom.replaceNamespacedCustomObjectStatus({
      group: TM_GROUP,
      version: TM_VERSION,
      namespace: tm.metadata.namespace!,
      plural: TM_PLURAL,
      name: tm.metadata.name!,
      body: { ...fresh, status },
    });
  }

  private async patchMetadata(tm: TrainedModel, metadata: { finalizers?: string[]; labels?: Record<string, string> }): Promise<void> {
    await this.deps.clients.custom.patchNamespacedCustomObject(
      {
        group: TM_GROUP,
        version: TM_VERSION,
        namespace: tm.metadata.namespace!,
        plural: TM_PLURAL,
        name: tm.metadata.name!,
        body: { metadata: { ...metadata, resourceVersion: tm.metadata.resourceVersion } },
      },
      MERGE_PATCH,
    );
  }

  private async read(namespace: string, name: string): Promise<TrainedModel | undefined> {
    try {
      return (await this.deps.clients.custom.getNamespacedCustomObject({ group: TM_GROUP, version: TM_VERSION, namespace, plural: TM_PLURAL, name })) as TrainedModel;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  private async readIsvc(namespace: string, name: string): Promise<InferenceService | undefined> {
    try {
      return (await this.deps.clients.custom.getNamespacedCustomObject({ group: ISVC_GROUP, version: ISVC_VERSION, namespace, plural: ISVC_PLURAL, name })) as InferenceService;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }
}

/** KServe's `constants.PredictPath`: V1 `:predict`, V2 `/infer`. */
export function predictPath(model: string, isvc: InferenceService): string {
  const protocol = isvc.spec.predictor.model?.protocolVersion ?? 'v1';
  return protocol === 'v2' || protocol === 'grpc-v2' ? `/v2/models/${model}/infer` : `/v1/models/${model}:predict`;
}
