/**
 * A component's readiness from its Deployment, as KServe's PropagateRawStatus: Available
 * True → ready; a ReplicaFailure → False with its reason; otherwise not ready yet
 * (Unknown while progressing, False once progress has failed).
 */
import type { V1Deployment } from '@kubernetes/client-node';
import type { Condition } from '../../api/inference-service.js';
import { condition } from './conditions.js';

export function readinessFromDeployment(type: string, deployment: V1Deployment | undefined): Condition {
  if (!deployment?.status) return condition(type, 'Unknown', 'DeploymentNotReady', 'Deployment has no status yet');
  const conds = deployment.status.conditions ?? [];
  const get = (t: string) => conds.find((c) => c.type === t);
  const replicaFailure = get('ReplicaFailure');
  if (replicaFailure?.status === 'True') return condition(type, 'False', replicaFailure.reason ?? 'ReplicaFailure', replicaFailure.message);
  const available = get('Available');
  const upToDate =
    (deployment.status.observedGeneration ?? 0) >= (deployment.metadata?.generation ?? 0) && (deployment.status.updatedReplicas ?? 0) >= (deployment.spec?.replicas ?? 1);
  if (available?.status === 'True' && upToDate) return condition(type, 'True');
  const progressing = get('Progressing');
  if (progressing?.status === 'False') return condition(type, 'False', progressing.reason ?? 'ProgressDeadlineExceeded', progressing.message);
  return condition(type, 'Unknown', available?.reason ?? 'DeploymentNotReady', available?.message ?? 'Deployment is not yet available');
}
