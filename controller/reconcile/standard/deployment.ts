/**
 * Standard mode Deployment `{isvc}-predictor`: KServe's raw-deployment shape (labels,
 * `app=isvc.<name>` selector, RollingUpdate 25%/25% unless the component's
 * `deploymentStrategy` says otherwise). Replicas are declared only when no autoscaler
 * manages them, so server-side apply never fights the HPA or KEDA.
 */
import type { V1Deployment, V1DeploymentStrategy } from '@kubernetes/client-node';
import type { InferenceService } from '../../api/inference-service.js';
import { LABEL_APP } from '../../constants.js';
import type { ComponentPlan } from '../component-plan.js';
import { ownedMetadata } from '../owner.js';
import { withPrometheusScrape } from '../prometheus-scrape.js';

/** KServe's default (`constants.go`): at most a quarter of the pods surge or go while a rollout runs. */
const DEFAULT_STRATEGY: V1DeploymentStrategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } };

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
      strategy: plan.scaling.deploymentStrategy ?? DEFAULT_STRATEGY,
      template: {
        metadata: { labels: { ...plan.labels, ...selector }, annotations: withPrometheusScrape(isvc.metadata.annotations, plan) },
        spec: plan.podSpec,
      },
    },
  };
}
