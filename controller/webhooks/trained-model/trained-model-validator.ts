/**
 * KServe's TrainedModel validation (`pkg/apis/serving/v1alpha1/trainedmodel_webhook.go`)
 * with its messages, in its order: the name, the storage URI's scheme, and on UPDATE the
 * memory (immutable). The first failure is the answer, as KServe's `FirstNonNilError`.
 *
 * Beyond KServe, where KServe only reports a condition later (its controller's messages,
 * so the words are the same): on CREATE the parent InferenceService must exist, serve many
 * models and have memory left for this model; `inferenceService` and `model.framework` are
 * immutable like `model.memory` (a model moved to another server or format is another
 * model: delete it and create it again); `model.memory` must be a quantity.
 */
import type { TrainedModel } from '../../api/trained-model.js';
import type { ParentFacts } from '../../reconcile/multi-model/parent-facts.js';
import { parseQuantity } from '../../../cli/quantity.js';
import { STORAGE_SCHEME_NAMES } from '../../../storage-initializer/schemes.js';
import { redact } from '../../../storage-initializer/redact.js';

/** KServe's `TmNameFmt`. */
export const TM_NAME_FORMAT = '[a-zA-Z0-9_-]+';
const TM_NAME = new RegExp(`^${TM_NAME_FORMAT}$`);

/** The URI prefixes a TrainedModel may name: the schemes the server's puller downloads through the storage-initializer's library. */
export const TM_STORAGE_PREFIXES: readonly string[] = STORAGE_SCHEME_NAMES.map((s) => `${s}://`);

export const tmValidationMessages = {
  invalidName: (name: string) =>
    `the Trained Model "${name}" is invalid: a Trained Model name must consist of alphanumeric characters, '_', or '-'. (e.g. "my-Name" or "abc_123", regex used for validation is '^${TM_NAME_FORMAT}$')`,
  invalidStorageUri: (name: string, uri: string) =>
    `the Trained Model "${name}" storageUri field is invalid. The storage uri must start with one of the prefixes: ${TM_STORAGE_PREFIXES.join(', ')}. (the storage uri given is "${redact(uri)}")`,
  memoryModified: (name: string, was: string, now: string) => `the Trained Model "${name}" memory field is immutable. The memory was "${was}" but it is updated to "${now}"`,
  invalidMemory: (name: string, memory: string) => `the Trained Model "${name}" memory field is invalid: "${memory}" is not a Kubernetes quantity (for example 256Mi)`,
  parentModified: (name: string, was: string, now: string) =>
    `the Trained Model "${name}" inferenceService field is immutable. The inferenceService was "${was}" but it is updated to "${now}"`,
  frameworkModified: (name: string, was: string, now: string) =>
    `the Trained Model "${name}" framework field is immutable. The framework was "${was}" but it is updated to "${now}"`,
  parentNotFound: (isvc: string, name: string) => `Inference Service "${isvc}" is not found. Trained Model "${name}" cannot deploy`,
  notMms: (isvc: string, name: string) => `Inference Service "${isvc}" predictor is not configured for multi-model serving. Trained Model "${name}" cannot deploy`,
  noMemory: (isvc: string, name: string) => `Inference Service "${isvc}" memory resources are not available. Trained Model "${name}" cannot deploy`,
};

/** The checks that need no cluster: KServe's, and the immutable fields on UPDATE. */
export function validateTrainedModel(tm: TrainedModel, old?: TrainedModel): string | undefined {
  const name = tm.metadata.name ?? '';
  const m = tmValidationMessages;
  if (!TM_NAME.test(name)) return m.invalidName(name);
  const uri = tm.spec.model.storageUri;
  if (!TM_STORAGE_PREFIXES.some((p) => uri.startsWith(p))) return m.invalidStorageUri(name, uri);
  if (old) {
    const was = String(old.spec.model.memory);
    const now = String(tm.spec.model.memory);
    if (parseQuantity(was) !== parseQuantity(now) || (parseQuantity(now) === undefined && was !== now)) return m.memoryModified(name, was, now);
    if (old.spec.inferenceService !== tm.spec.inferenceService) return m.parentModified(name, old.spec.inferenceService, tm.spec.inferenceService);
    if (old.spec.model.framework !== tm.spec.model.framework) return m.frameworkModified(name, old.spec.model.framework, tm.spec.model.framework);
  }
  if (parseQuantity(tm.spec.model.memory) === undefined) return m.invalidMemory(name, String(tm.spec.model.memory));
  return undefined;
}

/** CREATE only: the parent exists, serves many models, and has this model's memory left. */
export function validateParent(tm: TrainedModel, parent: ParentFacts | undefined): string | undefined {
  const name = tm.metadata.name ?? '';
  const isvc = tm.spec.inferenceService;
  const m = tmValidationMessages;
  if (!parent) return m.parentNotFound(isvc, name);
  if (!parent.multiModel) return m.notMms(isvc, name);
  const limit = parseQuantity(parent.memoryLimit);
  const used = parent.memoryInUse.reduce<number>((sum, q) => sum + (parseQuantity(q) ?? 0), 0);
  if (limit === undefined || used + (parseQuantity(tm.spec.model.memory) ?? 0) > limit) return m.noMemory(isvc, name);
  return undefined;
}
