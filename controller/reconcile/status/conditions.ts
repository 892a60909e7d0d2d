/**
 * Conditions as Knative's "living condition set", which KServe's status uses: top-level
 * `Ready` is True only when every dependent condition is True, False when any is False,
 * Unknown otherwise. A condition's lastTransitionTime changes only when its status does.
 */
import type { Condition, ConditionStatus } from '../../api/inference-service.js';

export const READY = 'Ready';
export const PREDICTOR_READY = 'PredictorReady';
export const TRANSFORMER_READY = 'TransformerReady';
export const EXPLAINER_READY = 'ExplainerReady';
export const INGRESS_READY = 'IngressReady';

export function condition(type: string, status: ConditionStatus, reason?: string, message?: string): Condition {
  return { type, status, ...(reason ? { reason } : {}), ...(message ? { message } : {}) };
}

/** A condition's reason and message as one line, for another condition's message. */
export function conditionText(c: Condition): string {
  return [c.reason, c.message].filter(Boolean).join(': ') || c.status;
}

/** Merges `next` over `previous` by type, keeping transition times of unchanged statuses. */
export function mergeConditions(previous: readonly Condition[] | undefined, next: readonly Condition[], now: string): Condition[] {
  return next
    .map((c) => {
      const old = previous?.find((p) => p.type === c.type);
      const lastTransitionTime = old && old.status === c.status && old.lastTransitionTime ? old.lastTransitionTime : now;
      return { ...c, lastTransitionTime };
    })
    .sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
}

export function aggregateReady(dependents: readonly Condition[]): Condition {
  const failed = dependents.find((c) => c.status === 'False');
  if (failed) return condition(READY, 'False', failed.reason, failed.message);
  const unknown = dependents.find((c) => c.status !== 'True');
  if (unknown) return condition(READY, 'Unknown', unknown.reason, unknown.message);
  return condition(READY, 'True');
}
