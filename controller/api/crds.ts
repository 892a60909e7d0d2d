/**
 * Every CRD kserve-ts ships, written by `npm run crds` to controller/crds (which the CRD
 * chart links under files/). A new kind adds its description file and a row here.
 */
import type { CrdFile } from './crd.js';
import { INFERENCE_GRAPH_CRD } from './inference-graph-crd.js';
import { INFERENCE_SERVICE_CRD } from './inference-service-crd.js';
import { CLUSTER_SERVING_RUNTIME_CRD, SERVING_RUNTIME_CRD } from './serving-runtime-crd.js';
import { TRAINED_MODEL_CRD } from './trained-model-crd.js';

export const CRD_FILES: readonly CrdFile[] = [INFERENCE_SERVICE_CRD, SERVING_RUNTIME_CRD, CLUSTER_SERVING_RUNTIME_CRD, INFERENCE_GRAPH_CRD, TRAINED_MODEL_CRD];
