/** The types test/controller/crd-schema.test.ts compares with their CRD schemas, exported from one module. */
export type { V1Container } from '@kubernetes/client-node';
export type {
  AutoScalingSpec,
  ExplainerSpec,
  ExternalMetricSource,
  InferenceServiceSpec,
  LegacyFrameworkSpec,
  LoggerSpec,
  MetricTarget,
  MetricsSpec,
  ModelFormat,
  ModelSpec,
  PodMetricSource,
  PredictorSpec,
  ResourceMetricSource,
  StorageSpec,
  TransformerSpec,
} from '../../controller/api/inference-service.js';
export type { ServingRuntimeSpec, SupportedModelFormat } from '../../controller/api/serving-runtime.js';
export type { InferenceGraphSpec, InferenceRouter, InferenceStep, RouterTimeouts } from '../../controller/api/inference-graph.js';
export type { TrainedModelModelSpec, TrainedModelSpec } from '../../controller/api/trained-model.js';
