/**
 * Applies a workload's scaling decision after its Deployment (KServe's order): the chosen
 * autoscaler is applied and the other kind removed, so switching the autoscaler class (or
 * pinning the replica count) leaves no stale HPA or ScaledObject behind. Shared by the
 * InferenceService components and the InferenceGraph router.
 */
import type { CustomObjectsApi, KubernetesObjectApi } from '@kubernetes/client-node';
import { isNotFound } from '../../kube/api-errors.js';
import { applyCustomObject, applyObject, deleteCustomIfExists, deleteIfExists } from '../../kube/apply.js';
import type { ScalingDecision } from './hpa.js';
import { SCALED_OBJECTS } from './scaled-object.js';

export interface AutoscalerClients {
  readonly objects: KubernetesObjectApi;
  readonly custom: CustomObjectsApi;
}

/** What the cluster made of the decision: `kedaMissing` when a ScaledObject was asked for and KEDA's CRD is not served. */
export interface AutoscalerOutcome {
  readonly kedaMissing: boolean;
}

/** The reason of the Ready condition that says so (terminal: retrying cannot install KEDA). */
export const KEDA_NOT_INSTALLED = 'KEDANotInstalled';
export const KEDA_MISSING =
  'serving.kserve.io/autoscalerClass is keda, but the KEDA ScaledObject CRD (scaledobjects.keda.sh) is not installed: install KEDA or choose another autoscaler class (hpa, external, none)';

export async function applyAutoscaler(clients: AutoscalerClients, decision: ScalingDecision, name: string, namespace: string): Promise<AutoscalerOutcome> {
  if (decision.hpa) await applyObject(clients.objects, decision.hpa);
  else await deleteIfExists(clients.objects, { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name, namespace } });
  if (decision.scaledObject) {
    try {
      await applyCustomObject(clients.custom, SCALED_OBJECTS, decision.scaledObject);
    } catch (err) {
      if (isNotFound(err)) return { kedaMissing: true };
      throw err;
    }
  } else {
    await deleteCustomIfExists(clients.custom, SCALED_OBJECTS, name, namespace);
  }
  return { kedaMissing: false };
}
