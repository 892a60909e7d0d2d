/**
 * `/mutate-serving-kserve-io-v1beta1-inferenceservice` and
 * `/validate-serving-kserve-io-v1beta1-inferenceservice` (CREATE, UPDATE).
 */
import type { InferenceService } from '../../api/inference-service.js';
import { type AdmissionHandler, allow, deny, requestObject } from '../admission.js';
import { diff } from '../json-patch.js';
import { INFERENCE_SERVICE_SHAPE } from '../object-shape.js';
import type { GetWebhookConfig } from '../webhook-config.js';
import { defaultInferenceService } from './defaulter.js';
import { validateInferenceService } from './validator.js';

export function isvcDefaultingWebhook(getConfig: GetWebhookConfig): AdmissionHandler {
  return async (request) => {
    if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return allow();
    const original = requestObject<InferenceService>(request, 'object', INFERENCE_SERVICE_SHAPE, 'InferenceService');
    const isvc = structuredClone(original);
    defaultInferenceService(isvc, (await getConfig()).defaultDeploymentMode);
    return allow(diff(original, isvc));
  };
}

export function isvcValidatingWebhook(getConfig: GetWebhookConfig): AdmissionHandler {
  return async (request) => {
    if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return allow();
    const isvc = requestObject<InferenceService>(request, 'object', INFERENCE_SERVICE_SHAPE, 'InferenceService');
    // Never block the updates that finish a deletion (finalizer removal).
    if (request.operation === 'UPDATE' && isvc.metadata?.deletionTimestamp) return allow();
    const old = request.operation === 'UPDATE' ? requestObject<InferenceService>(request, 'oldObject', INFERENCE_SERVICE_SHAPE, 'InferenceService') : undefined;
    const problems = validateInferenceService(isvc, (await getConfig()).defaultDeploymentMode, old);
    if (problems.length === 0) return allow();
    const name = isvc.metadata?.name ?? request.name ?? '';
    return deny(403, `InferenceService '${name}' is invalid: ${problems.join('; ')}`);
  };
}
