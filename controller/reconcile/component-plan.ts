/**
 * What one component (predictor, transformer or explainer) should run, independent of the
 * deployment mode: object name, labels, annotations, pod template and scaling fields.
 * Standard mode turns it into Deployment + Service + HPA, Knative mode into a Knative
 * Service.
 */
import type { V1ContainerPort, V1PodSpec } from '@kubernetes/client-node';
import type { ComponentExtensionSpec, PredictorSpec } from '../api/inference-service.js';

export type ComponentType = 'predictor' | 'transformer' | 'explainer';

export interface ComponentPlan {
  readonly component: ComponentType;
  /** `{isvc}-predictor` etc.: the name of every object of this component. */
  readonly name: string;
  /** Labels of the workload objects and pods (selector label excluded). */
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  /** Pod template annotations (storage-initializer hand-off to the webhook). */
  readonly podAnnotations: Readonly<Record<string, string>>;
  readonly podSpec: V1PodSpec;
  /** Ports of the serving container; the first is the HTTP port. */
  readonly ports: readonly V1ContainerPort[];
  /** The component's scaling fields; only a predictor has a canary share. */
  readonly scaling: ComponentExtensionSpec & Pick<PredictorSpec, 'canaryTrafficPercent'>;
}
