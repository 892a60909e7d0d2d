/**
 * TrainedModel v1alpha1 (KServe's `pkg/apis/serving/v1alpha1/trained_model.go`): one model
 * added to a running multi-model InferenceService (`spec.inferenceService`) without
 * restarting it. The controller lists a parent's TrainedModels in the ConfigMap
 * `modelconfig-<isvc>-0` (KServe's `models.json`), which the predictor's server reads
 * (`--model_config_file`). These types have exactly the CRD schema's fields
 * (trained-model-crd.ts, checked by test/controller/crd-schema.test.ts).
 */
import type { V1ObjectMeta } from '@kubernetes/client-node';
import type { Condition } from './inference-service.js';

export const TM_GROUP = 'serving.kserve.io';
export const TM_VERSION = 'v1alpha1';
export const TM_PLURAL = 'trainedmodels';
export const TM_KIND = 'TrainedModel';

/** KServe's condition types (`trained_model_status.go`); Ready is true when all three are. */
export const TM_INFERENCE_SERVICE_READY = 'InferenceServiceReady';
export const TM_MEMORY_RESOURCE_AVAILABLE = 'MemoryResourceAvailable';
export const TM_IS_MMS_PREDICTOR = 'IsMMSPredictor';

/** KServe's finalizer: removal takes the model out of the ConfigMap before the object goes. */
export const TM_FINALIZER = 'trainedmodel.finalizer';
/** KServe's `ParentInferenceServiceLabel`, set by the controller. */
export const LABEL_PARENT_ISVC = 'inferenceservice';

export interface TrainedModelModelSpec {
  /** Where the server's puller downloads the model from. */
  storageUri: string;
  /** The model format (`onnx`, `tensorflow`, ...). */
  framework: string;
  /** A Kubernetes quantity: the most memory the model takes, counted against the predictor's limit. */
  memory: string | number;
}

export interface TrainedModelSpec {
  /** The parent InferenceService, in the same namespace. */
  inferenceService: string;
  model: TrainedModelModelSpec;
}

export interface TrainedModelStatus {
  observedGeneration?: number;
  conditions?: Condition[];
  /** `<isvc url>/v1/models/<name>:predict` (V2: `/v2/models/<name>/infer`). */
  url?: string;
  address?: { url?: string };
}

export interface TrainedModel {
  apiVersion?: string;
  kind?: string;
  metadata: V1ObjectMeta;
  spec: TrainedModelSpec;
  status?: TrainedModelStatus;
}
