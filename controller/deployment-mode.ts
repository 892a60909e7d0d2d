/**
 * Deployment-mode resolution exactly as KServe's `GetDeploymentMode`
 * (`pkg/controller/v1beta1/inferenceservice/utils/utils.go`): the mode recorded in status
 * wins (it is immutable once recorded), then the annotation, then the ConfigMap default.
 */
import type { InferenceService } from './api/inference-service.js';
import { ANN_DEPLOYMENT_MODE, type DeploymentMode } from './constants.js';

const NAMES: ReadonlyMap<string, DeploymentMode> = new Map([
  ['Standard', 'Standard'],
  ['RawDeployment', 'Standard'],
  ['Knative', 'Knative'],
  ['Serverless', 'Knative'],
  ['ModelMesh', 'ModelMesh'],
]);

/** Legacy names (`RawDeployment`, `Serverless`) map to the current ones; unknown → undefined. */
export function normalizeDeploymentMode(value: string | undefined): DeploymentMode | undefined {
  return value === undefined ? undefined : NAMES.get(value);
}

/** `isvc`: an InferenceService, or any object carrying the same status field and annotation (an InferenceGraph). */
export function resolveDeploymentMode(isvc: Pick<InferenceService, 'metadata'> & { status?: { deploymentMode?: string } }, configDefault: DeploymentMode): DeploymentMode {
  const recorded = normalizeDeploymentMode(isvc.status?.deploymentMode);
  if (recorded) return recorded;
  const annotated = normalizeDeploymentMode(isvc.metadata.annotations?.[ANN_DEPLOYMENT_MODE]);
  if (annotated) return annotated;
  return configDefault;
}
