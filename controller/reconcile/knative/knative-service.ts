/**
 * Knative mode: one `serving.knative.dev/v1` Service per component (KServe's ksvc
 * reconciler): autoscaling annotations on the revision template, timeout and
 * concurrency, and the canary split between the latest revision and the last one that
 * was fully rolled out.
 */
import type { KubernetesObject, V1PodSpec } from '@kubernetes/client-node';
import type { ComponentStatus, InferenceService } from '../../api/inference-service.js';
import { ANN_AUTOSCALER_CLASS, ANN_KNATIVE_AUTOSCALING_CLASS, ANN_KNATIVE_MAX_SCALE, ANN_KNATIVE_METRIC, ANN_KNATIVE_MIN_SCALE, ANN_KNATIVE_TARGET } from '../../constants.js';
import type { ComponentPlan } from '../component-plan.js';
import { ownedMetadata } from '../owner.js';
import { withPrometheusScrape } from '../prometheus-scrape.js';

export const KNATIVE_API_VERSION = 'serving.knative.dev/v1';
export const KNATIVE_SERVICES = { group: 'serving.knative.dev', version: 'v1', plural: 'services' } as const;
export const ANN_TAG_ROUTING = 'serving.kserve.io/enable-tag-routing';

export interface KnativeTrafficTarget {
  latestRevision?: boolean;
  revisionName?: string;
  percent?: number;
  tag?: string;
  url?: string;
}

export interface KnativeService extends KubernetesObject {
  spec: {
    template: { metadata: { labels: Record<string, string>; annotations: Record<string, string> }; spec: V1PodSpec & { containerConcurrency?: number; timeoutSeconds?: number } };
    traffic: KnativeTrafficTarget[];
  };
  status?: {
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
    url?: string;
    address?: { url?: string };
    latestReadyRevisionName?: string;
    latestCreatedRevisionName?: string;
    traffic?: KnativeTrafficTarget[];
    observedGeneration?: number;
  };
}

export function desiredKnativeService(isvc: InferenceService, plan: ComponentPlan, previous: ComponentStatus | undefined): KnativeService {
  const s = plan.scaling;
  const autoscaling: Record<string, string> = {
    [ANN_KNATIVE_AUTOSCALING_CLASS]: isvc.metadata.annotations?.[ANN_AUTOSCALER_CLASS] === 'hpa' ? 'hpa.autoscaling.knative.dev' : 'kpa.autoscaling.knative.dev',
    [ANN_KNATIVE_MIN_SCALE]: String(s.minReplicas ?? 1),
  };
  if (s.maxReplicas !== undefined && s.maxReplicas !== 0) autoscaling[ANN_KNATIVE_MAX_SCALE] = String(s.maxReplicas);
  if (s.scaleMetric) autoscaling[ANN_KNATIVE_METRIC] = s.scaleMetric;
  if (s.scaleTarget !== undefined) autoscaling[ANN_KNATIVE_TARGET] = String(s.scaleTarget);
  return {
    apiVersion: KNATIVE_API_VERSION,
    kind: 'Service',
    metadata: ownedMetadata(isvc, plan),
    spec: {
      template: {
        metadata: { labels: plan.labels, annotations: { ...withPrometheusScrape(isvc.metadata.annotations, plan), ...autoscaling } },
        spec: {
          ...plan.podSpec,
          ...(s.containerConcurrency !== undefined ? { containerConcurrency: s.containerConcurrency } : {}),
          ...(s.timeout !== undefined ? { timeoutSeconds: s.timeout } : {}),
        },
      },
      traffic: trafficSplit(isvc, s.canaryTrafficPercent, previous?.latestRolledoutRevision),
    },
  };
}

/** KServe's rule: split only once a previous revision has been fully rolled out. */
export function trafficSplit(isvc: InferenceService, canaryPercent: number | undefined, rolledOut: string | undefined): KnativeTrafficTarget[] {
  const tags = isvc.metadata.annotations?.[ANN_TAG_ROUTING] === 'true';
  if (canaryPercent === undefined || !rolledOut) return [{ latestRevision: true, percent: 100 }];
  const latest: KnativeTrafficTarget = { latestRevision: true, percent: canaryPercent, ...(tags ? { tag: 'latest' } : {}) };
  if (canaryPercent === 100) return [latest];
  return [latest, { latestRevision: false, revisionName: rolledOut, percent: 100 - canaryPercent, tag: 'prev' }];
}
