/**
 * The KEDA ScaledObject for `serving.kserve.io/autoscalerClass: keda` (KServe's
 * `reconcilers/keda` createKedaScaledObject): the component's Deployment scaled between
 * minReplicas (0 scales to zero) and max(maxReplicas, min), one trigger per
 * `autoScaling.metrics` entry, and the HPA behavior's stabilization windows (the
 * component's, else the inferenceservice-config `autoscaler` ones). KEDA makes and owns
 * the HPA itself, so the component gets none of ours.
 */
import type { V1ObjectMeta, V2HorizontalPodAutoscalerBehavior } from '@kubernetes/client-node';
import type { ExternalMetricSource, MetricsSpec, PodMetricSource, Quantity, ResourceMetricSource } from '../../api/inference-service.js';
import type { AutoscalerConfig } from '../../config/inferenceservice-config.js';
import { DEFAULT_CPU_UTILIZATION } from '../../constants.js';
import type { CustomResource } from '../../kube/apply.js';
import type { MetricFields } from './hpa-metrics.js';

export const SCALED_OBJECTS: CustomResource = { group: 'keda.sh', version: 'v1alpha1', plural: 'scaledobjects' };

/** KServe's default `opentelemetryCollector.metricScalerEndpoint`: KEDA's OpenTelemetry add-on scaler. */
export const DEFAULT_METRIC_SCALER_ENDPOINT = 'keda-otel-scaler.keda.svc:4318';

export interface ScaleTrigger {
  type: string;
  metadata: Record<string, string>;
  metricType?: string;
  authenticationRef?: { name: string };
}

export interface ScaledObject {
  apiVersion: 'keda.sh/v1alpha1';
  kind: 'ScaledObject';
  metadata: V1ObjectMeta;
  spec: {
    scaleTargetRef: { name: string };
    triggers: ScaleTrigger[];
    minReplicaCount: number;
    maxReplicaCount: number;
    advanced?: { horizontalPodAutoscalerConfig: { behavior: V2HorizontalPodAutoscalerBehavior } };
  };
}

export interface ScaledObjectFields extends MetricFields {
  readonly minReplicas?: number;
  readonly maxReplicas?: number;
}

export function desiredScaledObject(s: ScaledObjectFields, autoscaler: AutoscalerConfig, metadata: V1ObjectMeta): ScaledObject {
  const name = metadata.name!;
  const min = s.minReplicas ?? 1;
  const behavior = s.autoScaling?.behavior;
  const scaleUp = behavior?.scaleUp?.stabilizationWindowSeconds ?? autoscaler.scaleUpStabilizationWindowSeconds;
  const scaleDown = behavior?.scaleDown?.stabilizationWindowSeconds ?? autoscaler.scaleDownStabilizationWindowSeconds;
  return {
    apiVersion: 'keda.sh/v1alpha1',
    kind: 'ScaledObject',
    metadata,
    spec: {
      scaleTargetRef: { name },
      triggers: (s.autoScaling?.metrics ?? []).map((m) => trigger(m, metadata)),
      minReplicaCount: min,
      maxReplicaCount: Math.max(s.maxReplicas ?? 0, min),
      advanced: {
        horizontalPodAutoscalerConfig: {
          behavior: { scaleDown: { stabilizationWindowSeconds: scaleDown }, scaleUp: { stabilizationWindowSeconds: scaleUp } },
        },
      },
    },
  };
}

/** One trigger per metric source type (KServe's getKedaMetrics). */
const TRIGGERS: { readonly [K in MetricsSpec['type']]: (m: MetricsSpec, metadata: V1ObjectMeta) => ScaleTrigger } = {
  Resource: (m) => resourceTrigger(m.resource!),
  External: (m) => externalTrigger(m.external!),
  PodMetric: (m, metadata) => podMetricTrigger(m.podmetric!, metadata),
};

function trigger(m: MetricsSpec, metadata: V1ObjectMeta): ScaleTrigger {
  return TRIGGERS[m.type](m, metadata);
}

/** The text of a quantity as written, "0" when absent (KServe's getOriginalStringMQ). */
const text = (q: Quantity | undefined): string => (q === undefined ? '0' : String(q));

function resourceTrigger(r: ResourceMetricSource): ScaleTrigger {
  const type = r.target.type ?? 'Utilization';
  const utilization = r.target.averageUtilization ?? (r.name === 'cpu' ? DEFAULT_CPU_UTILIZATION : undefined);
  const value = type === 'Utilization' ? (utilization === undefined ? '0' : String(utilization)) : text(type === 'AverageValue' ? r.target.averageValue : r.target.value);
  return { type: r.name, metadata: { value }, metricType: type };
}

function externalTrigger(e: ExternalMetricSource): ScaleTrigger {
  const backend = e.metric.backend ?? 'prometheus';
  const metadata: Record<string, string> = { serverAddress: e.metric.serverAddress ?? '', query: e.metric.query ?? '', threshold: text(e.target.value) };
  if (backend === 'prometheus' && e.metric.namespace) metadata['namespace'] = e.metric.namespace;
  const auth = e.authenticationRef;
  if (auth?.authModes) metadata['authModes'] = auth.authModes;
  return { type: backend, metadata, ...(auth?.authenticationRef.name ? { authenticationRef: { name: auth.authenticationRef.name } } : {}) };
}

/**
 * KEDA's OpenTelemetry add-on scaler, with the query narrowed to this Deployment's series
 * (KServe: `sum(<query>{namespace="…", deployment="…"})`).
 */
function podMetricTrigger(p: PodMetricSource, metadata: V1ObjectMeta): ScaleTrigger {
  const out: Record<string, string> = {
    metricQuery: `sum(${p.metric.query ?? ''}{namespace="${metadata.namespace!}", deployment="${metadata.name!}"})`,
    targetValue: text(p.target.value),
    scalerAddress: p.metric.serverAddress || DEFAULT_METRIC_SCALER_ENDPOINT,
  };
  if (p.metric.operationOverTime) out['operationOverTime'] = p.metric.operationOverTime;
  return { type: 'external', metadata: out };
}
