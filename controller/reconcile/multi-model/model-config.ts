/**
 * The multi-model ConfigMap, as KServe's TrainedModel controller writes it
 * (`pkg/modelconfig/configmap.go`): `modelconfig-<isvc>-<shard>` (one shard, 0, as KServe's
 * memory strategy gives), key `models.json`, a JSON list of
 * `{"modelName", "modelSpec": {"storageUri", "framework", "memory"}}` sorted by name. Owned
 * by the InferenceService, so it goes with it.
 *
 * Which TrainedModels are listed is decided here, from the whole set rather than one change
 * at a time, so every writer (the InferenceService and TrainedModel reconcilers) writes the
 * same content: those of the parent not being deleted whose memory fits, counted in
 * creation order (KServe counts in allocation order, which is creation order unless the
 * controller was behind).
 */
import type { V1ConfigMap } from '@kubernetes/client-node';
import type { InferenceService } from '../../api/inference-service.js';
import type { TrainedModel } from '../../api/trained-model.js';
import { LABEL_ISVC } from '../../constants.js';
import { ownerReference } from '../owner.js';
import { parseQuantity } from '../../../cli/quantity.js';

export const MODEL_CONFIG_KEY = 'models.json';
/** Where KServe's agent injector mounts it (`constants.ModelConfigDir`). */
export const MODEL_CONFIG_DIR = '/mnt/configs';
export const MODEL_CONFIG_VOLUME = 'model-config';
export const MODEL_CONFIG_FILE = `${MODEL_CONFIG_DIR}/${MODEL_CONFIG_KEY}`;

/** KServe's `constants.ModelConfigName`. */
export function modelConfigName(isvc: string, shard = 0): string {
  return `modelconfig-${isvc}-${shard}`;
}

/** One entry of `models.json` (KServe's `modelconfig.ModelConfig`). */
export interface ModelConfigEntry {
  readonly modelName: string;
  readonly modelSpec: { readonly storageUri: string; readonly framework: string; readonly memory: string };
}

/** The TrainedModels of `isvc`, not being deleted, oldest first (then by name). */
export function trainedModelsOf(isvc: string, all: readonly TrainedModel[]): TrainedModel[] {
  return all
    .filter((tm) => tm.spec?.inferenceService === isvc && !tm.metadata.deletionTimestamp)
    .sort((a, b) => created(a) - created(b) || compare(a.metadata.name ?? '', b.metadata.name ?? ''));
}

/**
 * The names whose memory fits `limit` (a quantity; none fit without one, as KServe's
 * `IsMemoryResourceAvailable` with no limit), summed in the order given.
 */
export function allocate(models: readonly TrainedModel[], limit: string | undefined): Set<string> {
  const out = new Set<string>();
  const max = parseQuantity(limit);
  if (max === undefined) return out;
  let used = 0;
  for (const tm of models) {
    const memory = parseQuantity(tm.spec.model.memory);
    if (memory === undefined || used + memory > max) continue;
    used += memory;
    out.add(tm.metadata.name!);
  }
  return out;
}

/** `models.json`: the allocated models of the parent, sorted by name. */
export function modelConfigJson(models: readonly TrainedModel[], allocated: ReadonlySet<string>): string {
  const entries: ModelConfigEntry[] = models
    .filter((tm) => allocated.has(tm.metadata.name!))
    .map((tm) => ({
      modelName: tm.metadata.name!,
      modelSpec: { storageUri: tm.spec.model.storageUri, framework: tm.spec.model.framework, memory: String(tm.spec.model.memory) },
    }))
    .sort((a, b) => compare(a.modelName, b.modelName));
  return JSON.stringify(entries);
}

export function desiredModelConfigMap(isvc: InferenceService, json: string): V1ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: modelConfigName(isvc.metadata.name!),
      namespace: isvc.metadata.namespace!,
      labels: { [LABEL_ISVC]: isvc.metadata.name! },
      ownerReferences: [ownerReference(isvc)],
    },
    data: { [MODEL_CONFIG_KEY]: json },
  };
}

function created(tm: TrainedModel): number {
  const t = tm.metadata.creationTimestamp;
  if (t === undefined) return 0;
  return t instanceof Date ? t.getTime() : Date.parse(String(t));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
