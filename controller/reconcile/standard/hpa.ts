/**
 * Standard mode autoscaling (KServe's HPA reconciler): autoscaling/v2 HPA on CPU 80%
 * unless `scaleMetric`/`scaleTarget` say otherwise; min = max(minReplicas, 1),
 * max = max(maxReplicas, min), as KServe (which therefore makes a 1..1 HPA for an ISVC
 * that sets neither). No HPA when the ISVC pins the count (maxReplicas set and equal to
 * min) or the autoscaler class is `none`/`external`; then the Deployment carries it.
 */
import type { V1ObjectMeta, V2HorizontalPodAutoscaler } from '@kubernetes/client-node';
import type { InferenceService } from '../../api/inference-service.js';
import type { AutoscalerConfig } from '../../config/inferenceservice-config.js';
import { ANN_AUTOSCALER_CLASS, DEFAULT_CPU_UTILIZATION } from '../../constants.js';
import type { ComponentPlan } from '../component-plan.js';
import { ownedMetadata } from '../owner.js';

export interface ScalingDecision {
  /** The HPA to apply, or undefined when the Deployment's replicas are fixed. */
  readonly hpa: V2HorizontalPodAutoscaler | undefined;
  /** Replicas to declare on the Deployment (only when there is no HPA). */
  readonly replicas: number | undefined;
}

export function decideScaling(isvc: InferenceService, plan: ComponentPlan, autoscaler: AutoscalerConfig): ScalingDecision {
  return scalingFor(plan.scaling, isvc.metadata.annotations?.[ANN_AUTOSCALER_CLASS], autoscaler, plan.name, ownedMetadata(isvc, plan));
}

/** The scaling fields a workload carries (a component's, an InferenceGraph's). */
export interface ScalingFields {
  readonly minReplicas?: number;
  readonly maxReplicas?: number;
  readonly scaleMetric?: string;
  readonly scaleTarget?: number;
}

/** The decision for the Deployment `name` whose HPA carries `metadata` (the rules above). */
export function scalingFor(s: ScalingFields, autoscalerClass: string | undefined, autoscaler: AutoscalerConfig, name: string, metadata: V1ObjectMeta): ScalingDecision {
  const min = Math.max(s.minReplicas ?? 1, 1);
  const max = Math.max(s.maxReplicas ?? 0, min);
  const cls = autoscalerClass ?? 'hpa';
  if (cls === 'none') return { hpa: undefined, replicas: s.minReplicas ?? 1 };
  if (cls === 'external') return { hpa: undefined, replicas: undefined };
  if (s.maxReplicas !== undefined && s.maxReplicas > 0 && min === max) return { hpa: undefined, replicas: min };
  const metric = s.scaleMetric === 'memory' ? 'memory' : 'cpu';
  const target = s.scaleTarget ?? DEFAULT_CPU_UTILIZATION;
  const hpa: V2HorizontalPodAutoscaler = {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata,
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
      minReplicas: min,
      maxReplicas: max,
      metrics: [{ type: 'Resource', resource: { name: metric, target: { type: 'Utilization', averageUtilization: target } } }],
      behavior: {
        scaleUp: { stabilizationWindowSeconds: autoscaler.scaleUpStabilizationWindowSeconds },
        scaleDown: { stabilizationWindowSeconds: autoscaler.scaleDownStabilizationWindowSeconds },
      },
    },
  };
  return { hpa, replicas: undefined };
}
