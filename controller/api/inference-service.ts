/**
 * InferenceService v1beta1 as far as kserve-ts implements it. Field names follow KServe's
 * `pkg/apis/serving/v1beta1` so manifests written for KServe apply unchanged; the CRD
 * schema (inference-service-crd.ts) rejects the fields this controller does not implement.
 * These types have exactly the schema's fields (test/controller/crd-schema.test.ts): a
 * field the CRD refuses is typed `unknown`, so no code can read it as if it were served.
 */
import type { V1Container, V1DeploymentStrategy, V1ObjectMeta, V1PodSpec, V1ResourceRequirements, V2HorizontalPodAutoscalerBehavior } from '@kubernetes/client-node';

export const ISVC_GROUP = 'serving.kserve.io';
export const ISVC_VERSION = 'v1beta1';
export const ISVC_PLURAL = 'inferenceservices';
export const ISVC_KIND = 'InferenceService';

/** KServe's pattern for `predictor.name` (a DNS label part: it names `{isvc}-{name}-predictor`). */
export const PREDICTOR_NAME_FORMAT = '[a-z]([-a-z0-9]*[a-z0-9])?';

export type ProtocolVersion = 'v1' | 'v2' | 'grpc-v1' | 'grpc-v2';
export const PROTOCOL_VERSIONS: readonly ProtocolVersion[] = ['v1', 'v2', 'grpc-v1', 'grpc-v2'];

export interface ModelFormat {
  name: string;
  version?: string;
}

export interface StorageSpec {
  key?: string;
  path?: string;
  parameters?: Record<string, string>;
  serviceAccountName?: string;
}

/** `predictor.model`: the container fields plus the model's own. */
export interface ModelSpec extends Partial<V1Container> {
  modelFormat: ModelFormat;
  runtime?: string;
  storageUri?: string;
  runtimeVersion?: string;
  protocolVersion?: ProtocolVersion;
  storage?: StorageSpec;
}

export type ScaleMetric = 'cpu' | 'memory' | 'concurrency' | 'rps';

/** KServe's `MetricTargetType`. */
export type MetricTargetType = 'Utilization' | 'Value' | 'AverageValue';
export const METRIC_TARGET_TYPES: readonly MetricTargetType[] = ['Utilization', 'Value', 'AverageValue'];

/** KServe's `MetricSourceType`: Resource is an HPA metric; External and PodMetric are KEDA triggers. */
export type MetricSourceType = 'Resource' | 'External' | 'PodMetric';
export const METRIC_SOURCE_TYPES: readonly MetricSourceType[] = ['Resource', 'External', 'PodMetric'];

/** A Kubernetes quantity as written (`"1Gi"`, `100`): KServe passes the text through to KEDA. */
export type Quantity = string | number;

/** KServe's `MetricTarget`. */
export interface MetricTarget {
  type?: MetricTargetType;
  value?: Quantity;
  averageValue?: Quantity;
  averageUtilization?: number;
}

export interface ResourceMetricSource {
  name: 'cpu' | 'memory';
  target: MetricTarget;
}

export interface ExternalMetricSource {
  metric: { backend?: string; serverAddress?: string; query?: string; namespace?: string };
  authenticationRef?: { authenticationRef: { name: string }; authModes?: string };
  target: MetricTarget;
}

export interface PodMetricSource {
  metric: { backend?: string; serverAddress?: string; metricNames?: string[]; query?: string; operationOverTime?: string };
  target: MetricTarget;
}

/** KServe's `MetricsSpec`: `type` and the one field that matches it. */
export interface MetricsSpec {
  type: MetricSourceType;
  resource?: ResourceMetricSource;
  external?: ExternalMetricSource;
  podmetric?: PodMetricSource;
}

/** KServe's `AutoScalingSpec` (HPA or KEDA). */
export interface AutoScalingSpec {
  metrics?: MetricsSpec[];
  behavior?: V2HorizontalPodAutoscalerBehavior;
}

export type LoggerMode = 'all' | 'request' | 'response';
export const LOGGER_MODES: readonly LoggerMode[] = ['all', 'request', 'response'];

/**
 * KServe's `LoggerSpec`. kserve-ts honours url, mode and metadataHeaders (the server logs in
 * process); the other fields are KServe's agent's and are refused by the validator.
 */
export interface LoggerSpec {
  url?: string;
  mode?: LoggerMode;
  metadataHeaders?: string[];
  metadataAnnotations?: string[];
  storage?: { path?: string; parameters?: Record<string, string>; key?: string; serviceAccountName?: string };
  marshallerUrl?: string;
  batchSize?: number;
  batchInterval?: string;
}

/** The fields every component carries (`ComponentExtensionSpec`). */
export interface ComponentExtensionSpec {
  minReplicas?: number;
  maxReplicas?: number;
  scaleTarget?: number;
  scaleMetric?: ScaleMetric;
  /** How scaleTarget is read (Utilization, the default, or AverageValue). */
  scaleMetricType?: MetricTargetType;
  autoScaling?: AutoScalingSpec;
  /** Standard mode: the Deployment's strategy (KServe's RollingUpdate 25%/25% otherwise). */
  deploymentStrategy?: V1DeploymentStrategy;
  containerConcurrency?: number;
  /** Seconds. */
  timeout?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  logger?: LoggerSpec;
  /** Refused by the CRD (dynamic batching is the model's config.pbtxt). */
  batcher?: unknown;
}

/**
 * The pod fields a component carries: KServe inlines a whole PodSpec into every component
 * (`containers` optional there, since a model-based predictor gets its container from the
 * runtime).
 */
export type ComponentPodSpec = Partial<V1PodSpec>;

export interface PredictorSpec extends ComponentExtensionSpec, ComponentPodSpec {
  /** Knative mode only; KServe has it on every component, kserve-ts on the predictor. */
  canaryTrafficPercent?: number;
  model?: ModelSpec;
  /** KServe's legacy framework specs, rewritten into `model` by the defaulter (see model-spec.ts). */
  sklearn?: LegacyFrameworkSpec;
  xgboost?: LegacyFrameworkSpec;
  tensorflow?: LegacyFrameworkSpec;
  pytorch?: LegacyFrameworkSpec;
  triton?: LegacyFrameworkSpec;
  onnx?: LegacyFrameworkSpec;
  huggingface?: LegacyFrameworkSpec;
  pmml?: LegacyFrameworkSpec;
  lightgbm?: LegacyFrameworkSpec;
  paddle?: LegacyFrameworkSpec;
  /**
   * Standard mode: names the predictor's objects `{isvc}-{name}-predictor` instead of
   * `{isvc}-predictor`. Required on a canary; setting it to a canary's name (and removing the
   * canary) promotes that canary without new pods.
   */
  name?: string;
  /** Refused by the CRD: KServe's names for what kserve-ts does not implement. */
  storageUris?: unknown;
  storageContainerName?: unknown;
  workerSpec?: unknown;
}

export interface LegacyFrameworkSpec extends Partial<V1Container> {
  storageUri?: string;
  runtimeVersion?: string;
  protocolVersion?: ProtocolVersion;
  storage?: StorageSpec;
}

export interface TransformerSpec extends ComponentExtensionSpec, ComponentPodSpec {}

/**
 * KServe's `ExplainerSpec` with custom containers only: the built-in `art` explainer (and the
 * older `alibi`) are listed so the validator can refuse them by name.
 */
export interface ExplainerSpec extends ComponentExtensionSpec, ComponentPodSpec {
  art?: unknown;
  alibi?: unknown;
}

/**
 * KServe's `CanarySpec` (Standard mode): a predictor variant with its own Deployment and
 * Service `{isvc}-{predictor.name}-predictor`, built from the stable predictor with these
 * fields over it, at a fixed replica count, and `trafficPercent` of the requests once it is
 * available (0: deployed, no traffic).
 */
export interface CanarySpec {
  predictor: PredictorSpec & { name: string };
  trafficPercent: number;
}

export interface InferenceServiceSpec {
  predictor: PredictorSpec;
  transformer?: TransformerSpec;
  explainer?: ExplainerSpec;
  /** Standard mode canaries (KServe 0.20); Knative mode uses predictor.canaryTrafficPercent. */
  canary?: CanarySpec[];
}

export type ConditionStatus = 'True' | 'False' | 'Unknown';

export interface Condition {
  type: string;
  status: ConditionStatus;
  reason?: string;
  message?: string;
  severity?: string;
  lastTransitionTime?: string;
}

export interface ModelStatus {
  transitionStatus?: 'UpToDate' | 'InProgress' | 'BlockedByFailedLoad' | 'InvalidSpec';
  states?: { activeModelState?: string; targetModelState?: string };
  lastFailureInfo?: { reason?: string; message?: string; exitCode?: number; location?: string; time?: string };
}

export interface ComponentStatus {
  url?: string;
  address?: { url?: string };
  latestCreatedRevision?: string;
  latestReadyRevision?: string;
  latestRolledoutRevision?: string;
  previousRolledoutRevision?: string;
  traffic?: unknown[];
}

/** KServe's `CanaryStatus`: whether the canary's Deployment is available, and its share. */
export interface CanaryStatus {
  name: string;
  ready: boolean;
  trafficPercent: number;
}

export interface InferenceServiceStatus {
  observedGeneration?: number;
  conditions?: Condition[];
  url?: string;
  address?: { url?: string };
  components?: Record<string, ComponentStatus>;
  modelStatus?: ModelStatus;
  canaryStatuses?: CanaryStatus[];
  deploymentMode?: string;
  servingRuntimeName?: string;
  clusterServingRuntimeName?: string;
}

export interface InferenceService {
  apiVersion: string;
  kind: string;
  metadata: V1ObjectMeta;
  spec: InferenceServiceSpec;
  status?: InferenceServiceStatus;
}

export type { V1ResourceRequirements };
