/** Labels and annotations every component object carries, merged as KServe does. */
import type { InferenceService } from '../api/inference-service.js';
import { ANN_STORAGE_INITIALIZER_SOURCE_URI, LABEL_COMPONENT, LABEL_ISVC } from '../constants.js';
import type { ComponentType } from './component-plan.js';

/** Annotations that describe the ISVC object itself and must not leak into workloads. */
const NOT_PROPAGATED = ['kubectl.kubernetes.io/last-applied-configuration'];

export function componentLabels(
  isvc: InferenceService,
  component: ComponentType,
  ...layers: (Readonly<Record<string, string>> | undefined)[]
): Record<string, string> {
  return Object.assign({}, ...layers, isvc.metadata.labels, {
    [LABEL_ISVC]: isvc.metadata.name!,
    [LABEL_COMPONENT]: component,
  }) as Record<string, string>;
}

export function componentAnnotations(
  isvc: InferenceService,
  ...layers: (Readonly<Record<string, string>> | undefined)[]
): Record<string, string> {
  const merged = Object.assign({}, isvc.metadata.annotations, ...layers) as Record<string, string>;
  for (const key of NOT_PROPAGATED) delete merged[key];
  // Pod hand-off annotations are the controller's to set, never the user's.
  delete merged[ANN_STORAGE_INITIALIZER_SOURCE_URI];
  return merged;
}
