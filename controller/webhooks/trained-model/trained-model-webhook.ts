/**
 * `/validate-trainedmodel` (CREATE, UPDATE; KServe's path): KServe's TrainedModel validator,
 * and on CREATE the parent checks (trained-model-validator.ts). A refusal is a 403 carrying
 * the message alone, as controller-runtime answers for KServe's validator.
 */
import type { TrainedModel } from '../../api/trained-model.js';
import { type AdmissionHandler, BadAdmissionReview, allow, deny, requestObject } from '../admission.js';
import { TRAINED_MODEL_SHAPE } from '../object-shape.js';
import type { ParentFacts } from '../../reconcile/multi-model/parent-facts.js';
import { validateParent, validateTrainedModel } from './trained-model-validator.js';

/** Finds the parent of a TrainedModel being created (the controller's real one reads the API server). */
export type ParentLookup = (namespace: string, tm: TrainedModel) => Promise<ParentFacts | undefined>;

export function trainedModelValidatingWebhook(parent: ParentLookup): AdmissionHandler {
  return async (request) => {
    if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return allow();
    const tm = complete(requestObject<TrainedModel>(request, 'object', TRAINED_MODEL_SHAPE, 'TrainedModel'), '');
    // Never block the updates that finish a deletion (finalizer removal), as KServe.
    if (request.operation === 'UPDATE' && tm.metadata?.deletionTimestamp) return allow();
    const old = request.operation === 'UPDATE' ? complete(requestObject<TrainedModel>(request, 'oldObject', TRAINED_MODEL_SHAPE, 'TrainedModel'), '(old) ') : undefined;
    const problem = validateTrainedModel(tm, old) ?? (old ? undefined : validateParent(tm, await parent(request.namespace ?? tm.metadata.namespace ?? '', tm)));
    return problem === undefined ? allow() : deny(403, problem);
  };
}

/**
 * The fields the CRD requires, of the types it admits (`memory` is int-or-string, which the
 * shape check cannot say); the API server checks them first, a direct caller may not have.
 */
function complete(tm: TrainedModel, which: string): TrainedModel {
  const model = tm.spec?.model as Partial<TrainedModel['spec']['model']> | undefined;
  if (
    typeof tm.spec?.inferenceService !== 'string' ||
    typeof model?.storageUri !== 'string' ||
    typeof model.framework !== 'string' ||
    !['string', 'number'].includes(typeof model.memory)
  ) {
    throw new BadAdmissionReview(
      `TrainedModel ${which}is malformed: spec.inferenceService, spec.model.storageUri, spec.model.framework (strings) and spec.model.memory (a quantity: a string or a number) are required`,
    );
  }
  return tm;
}
