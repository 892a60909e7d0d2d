/** Label, annotation and object names shared with KServe (`pkg/constants/constants.go`). */

export const LABEL_ISVC = 'serving.kserve.io/inferenceservice';
export const LABEL_COMPONENT = 'component';
export const LABEL_APP = 'app';

export const ANN_DEPLOYMENT_MODE = 'serving.kserve.io/deploymentMode';
export const ANN_AUTOSCALER_CLASS = 'serving.kserve.io/autoscalerClass';
/** KServe's force stop: "true" deletes the workloads (reconcile/stop.ts). */
export const ANN_STOP = 'serving.kserve.io/stop';
/** KServe's metrics aggregation switch: "true" puts Prometheus scrape annotations on the pods. */
export const ANN_ENABLE_PROMETHEUS_SCRAPING = 'serving.kserve.io/enable-prometheus-scraping';
/**
 * kserve-ts's A/B pin (not KServe's): the name of a request header whose value names a ready
 * canary (or the named stable predictor); such a request reaches that predictor whatever the
 * weights (reconcile/ingress/http-route.ts).
 */
export const ANN_CANARY_HEADER = 'serving.kserve.io/canary-header';
export const ANN_MODEL_FORMAT = 'modelFormat';
export const ANN_STORAGE_READONLY = 'storage.kserve.io/readonly';

/** Controller → pod webhook: the storage URI the init container downloads. */
export const ANN_STORAGE_INITIALIZER_SOURCE_URI = 'internal.serving.kserve.io/storage-initializer-sourceuri';
export const ANN_STORAGE_SPEC = 'internal.serving.kserve.io/storage-spec';
export const ANN_STORAGE_SPEC_PARAM = 'internal.serving.kserve.io/storage-spec-param';
export const ANN_STORAGE_SPEC_KEY = 'internal.serving.kserve.io/storage-spec-key';

export const ANN_KNATIVE_AUTOSCALING_CLASS = 'autoscaling.knative.dev/class';
export const ANN_KNATIVE_METRIC = 'autoscaling.knative.dev/metric';
export const ANN_KNATIVE_TARGET = 'autoscaling.knative.dev/target';
export const ANN_KNATIVE_MIN_SCALE = 'autoscaling.knative.dev/min-scale';
export const ANN_KNATIVE_MAX_SCALE = 'autoscaling.knative.dev/max-scale';

export const KSERVE_CONTAINER = 'kserve-container';
export const TRANSFORMER_CONTAINER = 'transformer-container';
export const STORAGE_INITIALIZER_CONTAINER = 'storage-initializer';
export const MODEL_MOUNT_PATH = '/mnt/models';
export const PROVISION_VOLUME = 'kserve-provision-location';
export const PVC_SOURCE_VOLUME = 'kserve-pvc-source';

export const DEFAULT_HTTP_PORT = 8080;
export const SERVICE_PORT = 80;
export const DEFAULT_CPU_UTILIZATION = 80;

/** A storage spec URI whose bucket and scheme come from the storage-config secret (KServe's placeholder). */
export const URI_SCHEME_PLACEHOLDER = '<scheme-placeholder>';

export const CONFIGMAP_NAME = 'inferenceservice-config';
export const FIELD_MANAGER = 'kserve-ts-controller';

export type DeploymentMode = 'Standard' | 'Knative' | 'ModelMesh';

/**
 * Component object names: `{isvc}-predictor`. Also the name of the predictor's HTTPRoute and
 * host whatever `predictor.name` says, so promoting a canary changes no URL (as KServe).
 */
export function componentName(isvc: string, component: 'predictor' | 'transformer' | 'explainer'): string {
  return `${isvc}-${component}`;
}

/** KServe's `PredictorServiceName`: the predictor's Deployment and Service, `{isvc}-{name}-predictor` when it is named. */
export function predictorName(isvc: string, name: string | undefined): string {
  return name ? `${isvc}-${name}-predictor` : componentName(isvc, 'predictor');
}
