/**
 * Metadata of the objects a component owns: every object we create is owned by its
 * InferenceService (controller reference), so deleting the ISVC cascades through the
 * garbage collector.
 */
import type { V1ObjectMeta, V1OwnerReference } from '@kubernetes/client-node';
import { ISVC_GROUP, ISVC_KIND, ISVC_VERSION, type InferenceService } from '../api/inference-service.js';
import type { ComponentPlan } from './component-plan.js';

export function ownedMetadata(isvc: InferenceService, plan: ComponentPlan, extraLabels: Record<string, string> = {}): V1ObjectMeta {
  return {
    name: plan.name,
    namespace: isvc.metadata.namespace!,
    labels: { ...plan.labels, ...extraLabels },
    annotations: { ...plan.annotations },
    ownerReferences: [ownerReference(isvc)],
  };
}

export function ownerReference(isvc: InferenceService): V1OwnerReference {
  return {
    apiVersion: `${ISVC_GROUP}/${ISVC_VERSION}`,
    kind: ISVC_KIND,
    name: isvc.metadata.name!,
    uid: isvc.metadata.uid!,
    controller: true,
    blockOwnerDeletion: true,
  };
}
