/**
 * Standard mode Deployment `{isvc}-predictor`: KServe's raw-deployment shape (labels,
 * `app=isvc.<name>` selector, RollingUpdate 25%/25%). Replicas are declared only when no
 * HPA manages them, so server-side apply never fights the autoscaler.
 */
import type { V1Deployment } from '@kubernetes/client-node';
import type { InferenceService } from '../../api/inference-service.js';
import { LABEL_APP } from '../../constants.js';
import type { ComponentPlan } from '../component-plan.js';
import { ownedMetadata } from '../owner.js';

export const appLabel = (plan: ComponentPlan): string => `isvc.${plan.name}`;

export function desiredDeployment(isvc: InferenceService, plan: ComponentPlan, replicas: number | undefined): V1Deployment {
  const selector = { [LABEL_APP]: appLabel(plan) };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: ownedMetadata(isvc, plan, selector),
    spec: {
      ...(replicas !== undefined ? { replicas } : {}),
      selector: { matchLabels: selector },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      template: {
        metadata: { labels: { ...plan.labels, ...selector }, annotations: plan.podAnnotations },
        spec: plan.podSpec,
      },
    },
  };
}
