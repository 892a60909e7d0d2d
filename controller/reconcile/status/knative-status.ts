/**
 * A component's readiness and revision bookkeeping from its Knative Service (KServe's
 * PropagateStatus): the revision that has received 100% of the traffic while ready
 * becomes the latest rolled-out revision, and the one before it the previous.
 */
import type { ComponentStatus, Condition } from '../../api/inference-service.js';
import type { KnativeService } from '../knative/knative-service.js';
import { condition } from './conditions.js';

export function readinessFromKnative(type: string, ksvc: KnativeService | undefined): Condition {
  const ready = ksvc?.status?.conditions?.find((c) => c.type === 'Ready');
  if (!ready) return condition(type, 'Unknown', 'KnativeServiceNotReady', 'Knative Service has no status yet');
  const status = ready.status === 'True' || ready.status === 'False' ? ready.status : 'Unknown';
  return condition(type, status, ready.reason, ready.message);
}

export function componentStatusFromKnative(ksvc: KnativeService | undefined, previous: ComponentStatus | undefined): ComponentStatus {
  const st = ksvc?.status;
  const out: ComponentStatus = { ...previous };
  if (!st) return out;
  if (st.url) out.url = st.url;
  if (st.address?.url) out.address = { url: st.address.url };
  if (st.latestCreatedRevisionName) out.latestCreatedRevision = st.latestCreatedRevisionName;
  if (st.latestReadyRevisionName) out.latestReadyRevision = st.latestReadyRevisionName;
  if (st.traffic) out.traffic = st.traffic;
  const latestReady = st.latestReadyRevisionName;
  const share = (st.traffic ?? []).filter((t) => t.revisionName === latestReady).reduce((sum, t) => sum + (t.percent ?? 0), 0);
  if (latestReady && share === 100 && previous?.latestRolledoutRevision !== latestReady) {
    if (previous?.latestRolledoutRevision) out.previousRolledoutRevision = previous.latestRolledoutRevision;
    out.latestRolledoutRevision = latestReady;
  }
  return out;
}
