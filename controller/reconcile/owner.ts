/** Owner references: every object we create is owned by its InferenceService, so deleting it cascades (garbage collector). */
import type { V1OwnerReference } from '@kubernetes/client-node';
import { ISVC_GROUP, ISVC_KIND, ISVC_VERSION, type InferenceService } from '../api/inference-service.js';

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
