/**
 * `/validate-serving-kserve-io-v1alpha1-inferencegraph` (CREATE, UPDATE): KServe's
 * InferenceGraph validator. A refusal is a 403 carrying the rule's message alone, as
 * controller-runtime answers for KServe's validator.
 */
import type { InferenceGraph } from '../../api/inference-graph.js';
import { type AdmissionHandler, allow, deny, requestObject } from '../admission.js';
import { INFERENCE_GRAPH_SHAPE } from '../object-shape.js';
import { validateInferenceGraph } from './graph-validator.js';

export function graphValidatingWebhook(): AdmissionHandler {
  return async (request) => {
    if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return allow();
    const ig = requestObject<InferenceGraph>(request, 'object', INFERENCE_GRAPH_SHAPE, 'InferenceGraph');
    // Never block the updates that finish a deletion (finalizer removal), as KServe.
    if (request.operation === 'UPDATE' && ig.metadata?.deletionTimestamp) return allow();
    const problem = validateInferenceGraph(ig);
    return problem === undefined ? allow() : deny(403, problem);
  };
}
