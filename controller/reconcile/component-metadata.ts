/** Labels and annotations every component object carries, merged as KServe does. */
import type { V1OwnerReference } from '@kubernetes/client-node';
import type { InferenceService } from '../api/inference-service.js';
import { ANN_STORAGE_INITIALIZER_SOURCE_URI, LABEL_COMPONENT, LABEL_ISVC } from '../constants.js';
import type { ComponentType } from './component-plan.js';
import { ownerReference } from './owner.js';

/** Annotations that describe the ISVC object itself and must not leak into workloads. */
const NOT_PROPAGATED = ['kubectl.kubernetes.io/last-applied-configuration'];

export function componentLabels(isvc: InferenceService, component: ComponentType, ...layers: (Readonly<Record<string, string>> | undefined)[]): Record<string, string> {
  return Object.assign({}, ...layers, isvc.metadata.labels, {
    [LABEL_ISVC]: isvc.metadata.name!,
    [LABEL_COMPONENT]: component,
  }) as Record<string, string>;
}

export function componentAnnotations(isvc: InferenceService, ...layers: (Readonly<Record<string, string>> | undefined)[]): Record<string, string> {
  const merged = Object.assign({}, isvc.metadata.annotations, ...layers) as Record<string, string>;
  for (const key of NOT_PROPAGATED) delete merged[key];
  // Pod hand-off annotations are the controller's to set, never the user's.
  delete merged[ANN_STORAGE_INITIALIZER_SOURCE_URI];
  return merged;
}

/**
 * Metadata of an object that routes to an ISVC's components (Ingress, HTTPRoute): in the
 * ISVC's namespace, owned by it (so GC removes it), with its propagated annotations.
 */
export function routingMetadata(
  isvc: InferenceService,
  name: string,
  labels: Record<string, string>,
): { name: string; namespace: string; labels: Record<string, string>; annotations: Record<string, string>; ownerReferences: V1OwnerReference[] } {
  return { name, namespace: isvc.metadata.namespace!, labels, annotations: componentAnnotations(isvc), ownerReferences: [ownerReference(isvc)] };
}
