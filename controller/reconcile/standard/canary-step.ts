/**
 * Standard mode canaries, applied before the stable predictor (KServe's order, so the stable
 * floor is lowered only for canaries already ready): each canary's Service, Deployment and
 * autoscaler `{isvc}-{name}-predictor`, and what KServe reports of them
 * (`status.canaryStatuses`, the `CanaryPredictorReady` condition). A canary is ready when
 * its Deployment has an available replica, as KServe decides it.
 */
import type { V1Deployment } from '@kubernetes/client-node';
import type { CanaryStatus, Condition, InferenceService } from '../../api/inference-service.js';
import { apiErrorMessage, apiStatus } from '../../kube/api-errors.js';
import type { ComponentPlan } from '../component-plan.js';
import type { PredictorResolution } from '../predictor-resolution.js';
import { condition } from '../status/conditions.js';
import { canaryInferenceService } from './canary.js';

/** KServe's condition; informational (not one of the conditions top-level Ready waits for). */
export const CANARY_PREDICTOR_READY = 'CanaryPredictorReady';

export interface CanaryStepDeps {
  /** The predictor the canary's InferenceService resolves to (runtime selection and pod plan). */
  readonly resolve: (isvc: InferenceService) => PredictorResolution;
  /** Applies a component's Service, Deployment and autoscaler; returns the applied Deployment. */
  readonly apply: (isvc: InferenceService, plan: ComponentPlan) => Promise<V1Deployment>;
}

export interface CanaryOutcome {
  readonly statuses: CanaryStatus[];
  /** Absent without canaries (the condition is then removed, as KServe clears it). */
  readonly condition?: Condition;
}

export async function reconcileCanaries(isvc: InferenceService, deps: CanaryStepDeps): Promise<CanaryOutcome> {
  const canaries = isvc.spec.canary ?? [];
  if (canaries.length === 0) return { statuses: [] };
  const statuses: CanaryStatus[] = [];
  const problems: string[] = [];
  for (const canary of canaries) {
    const name = canary.predictor.name;
    const problem = await applyCanary(canaryInferenceService(isvc, canary), deps);
    if (typeof problem === 'string') problems.push(`canary '${name}': ${problem}`);
    const ready = typeof problem !== 'string' && (problem.status?.availableReplicas ?? 0) > 0;
    statuses.push({ name, ready, trafficPercent: canary.trafficPercent });
  }
  const waiting = statuses.filter((s) => !s.ready).map((s) => s.name);
  const ready =
    waiting.length === 0
      ? condition(CANARY_PREDICTOR_READY, 'True', 'AllCanariesReady')
      : condition(CANARY_PREDICTOR_READY, 'False', 'CanariesNotReady', [...problems, `not ready: ${waiting.join(', ')}`].join('; '));
  return { statuses, condition: ready };
}

/** The applied Deployment, or why there is none (a spec the canary cannot run). */
async function applyCanary(isvc: InferenceService, deps: CanaryStepDeps): Promise<V1Deployment | string> {
  const resolution = deps.resolve(isvc);
  if (!resolution.ok) return `${resolution.reason}: ${resolution.message}`;
  // KServe's validator refuses a multi-model stable predictor with canaries; one whose runtime makes it multi-model is caught here.
  if (resolution.multiModel) return 'multi-model serving is not supported with canary';
  try {
    return await deps.apply(isvc, resolution.plan);
  } catch (err) {
    // 422: the fields the canary adds do not make a valid workload; reported, not retried.
    if (apiStatus(err) !== 422) throw err;
    return `the API server refused the canary's workload: ${apiErrorMessage(err)}`;
  }
}
