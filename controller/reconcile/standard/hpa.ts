/**
 * Standard mode autoscaling, one entry per `serving.kserve.io/autoscalerClass` (KServe's
 * autoscaler reconciler): `hpa` (the default) makes an autoscaling/v2 HPA, `keda` a KEDA
 * ScaledObject, `external` leaves the replica count to someone else, `none` fixes it at
 * minReplicas on the Deployment.
 *
 * The HPA as KServe's `createHPA`: min = max(minReplicas, 1), max = max(maxReplicas, min)
 * (so an ISVC that sets neither gets a 1..1 HPA), metrics from hpa-metrics.ts. Beyond
 * KServe, whose HPA carries an empty behavior: the behavior is the component's
 * `autoScaling.behavior` over the inferenceservice-config stabilization windows. No HPA when
 * the ISVC pins the count (maxReplicas set and equal to min); then the Deployment carries it.
 */
import type { V1ObjectMeta, V2HorizontalPodAutoscaler, V2HorizontalPodAutoscalerBehavior } from '@kubernetes/client-node';
import type { InferenceService } from '../../api/inference-service.js';
import type { AutoscalerConfig } from '../../config/inferenceservice-config.js';
import { ANN_AUTOSCALER_CLASS } from '../../constants.js';
import type { ComponentPlan } from '../component-plan.js';
import { ownedMetadata } from '../owner.js';
import { hpaMetrics } from './hpa-metrics.js';
import { type ScaledObject, type ScaledObjectFields, desiredScaledObject } from './scaled-object.js';

export interface ScalingDecision {
  /** The HPA to apply; undefined: the component's HPA, if any, goes. */
  readonly hpa?: V2HorizontalPodAutoscaler;
  /** The ScaledObject to apply (class `keda`); undefined: the component's, if any, goes. */
  readonly scaledObject?: ScaledObject;
  /** Replicas to declare on the Deployment (only when no autoscaler manages them). */
  readonly replicas: number | undefined;
}

/** The scaling fields a workload carries (a component's, an InferenceGraph's). */
export type ScalingFields = ScaledObjectFields;

type Decide = (s: ScalingFields, autoscaler: AutoscalerConfig, metadata: V1ObjectMeta) => ScalingDecision;

const AUTOSCALERS: Readonly<Record<string, Decide>> = {
  hpa: hpaDecision,
  keda: (s, autoscaler, metadata) => ({ scaledObject: desiredScaledObject(s, autoscaler, metadata), replicas: undefined }),
  external: () => ({ replicas: undefined }),
  none: (s) => ({ replicas: s.minReplicas ?? 1 }),
};

/** The autoscaler classes Standard mode serves (KServe's `AutoscalerAllowedClassList`). */
export const AUTOSCALER_CLASSES: readonly string[] = Object.keys(AUTOSCALERS);
export const DEFAULT_AUTOSCALER_CLASS = 'hpa';

export function decideScaling(isvc: InferenceService, plan: ComponentPlan, autoscaler: AutoscalerConfig): ScalingDecision {
  return scalingFor(plan.scaling, isvc.metadata.annotations?.[ANN_AUTOSCALER_CLASS], autoscaler, ownedMetadata(isvc, plan));
}

/** The decision for the Deployment named `metadata.name`, whose autoscaler carries `metadata`. */
export function scalingFor(s: ScalingFields, autoscalerClass: string | undefined, autoscaler: AutoscalerConfig, metadata: V1ObjectMeta): ScalingDecision {
  // An unknown class is refused by the validator; one written before it was is read as the default.
  const decide = AUTOSCALERS[autoscalerClass ?? DEFAULT_AUTOSCALER_CLASS] ?? hpaDecision;
  return decide(s, autoscaler, metadata);
}

function hpaDecision(s: ScalingFields, autoscaler: AutoscalerConfig, metadata: V1ObjectMeta): ScalingDecision {
  const min = Math.max(s.minReplicas ?? 1, 1);
  const max = Math.max(s.maxReplicas ?? 0, min);
  if (s.maxReplicas !== undefined && s.maxReplicas > 0 && min === max) return { replicas: min };
  const hpa: V2HorizontalPodAutoscaler = {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata,
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: metadata.name! },
      minReplicas: min,
      maxReplicas: max,
      metrics: hpaMetrics(s),
      behavior: hpaBehavior(s.autoScaling?.behavior, autoscaler),
    },
  };
  return { hpa, replicas: undefined };
}

/** The component's behavior, each direction's stabilization window defaulted from the config. */
export function hpaBehavior(behavior: V2HorizontalPodAutoscalerBehavior | undefined, autoscaler: AutoscalerConfig): V2HorizontalPodAutoscalerBehavior {
  return {
    scaleUp: { stabilizationWindowSeconds: autoscaler.scaleUpStabilizationWindowSeconds, ...behavior?.scaleUp },
    scaleDown: { stabilizationWindowSeconds: autoscaler.scaleDownStabilizationWindowSeconds, ...behavior?.scaleDown },
  };
}
