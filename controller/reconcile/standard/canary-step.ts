/**
 * Standard mode canaries, applied before the stable predictor (KServe's order, so the stable
 * floor is lowered only for canaries already ready): each canary's Service, Deployment and
 * autoscaler `{isvc}-{name}-predictor`, and what KServe reports of them
 * (`status.canaryStatuses`, the `CanaryPredictorReady` condition). A canary is ready when
 * its Deployment has an available replica, as KServe decides it. Beyond KServe, the
 * condition says why a canary is not ready when its pods do (unschedulable, image pull, crash
 * loop), as the stable predictor's condition does.
 */
import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import type { CanaryStatus, Condition, InferenceService } from '../../api/inference-service.js';
import { apiErrorMessage, apiStatus } from '../../kube/api-errors.js';
import type { ComponentPlan } from '../component-plan.js';
import type { PredictorResolution } from '../predictor-resolution.js';
import { condition, conditionText } from '../status/conditions.js';
import { readinessFromDeployment } from '../status/deployment-status.js';
import { explainFromPods } from '../status/pod-failure.js';
import { canaryInferenceService } from './canary.js';

/** KServe's condition; informational (not one of the conditions top-level Ready waits for). */
export const CANARY_PREDICTOR_READY = 'CanaryPredictorReady';

export interface CanaryStepDeps {
  /** The predictor the canary's InferenceService resolves to (runtime selection and pod plan). */
  readonly resolve: (isvc: InferenceService) => PredictorResolution;
  /** Applies a component's Service, Deployment and autoscaler; returns the applied Deployment. */
  readonly apply: (isvc: InferenceService, plan: ComponentPlan) => Promise<V1Deployment>;
  /** The pods of the canary's Deployment (from the controller's cache). */
  readonly pods: (plan: ComponentPlan) => readonly V1Pod[];
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
    const applied = await applyCanary(canaryInferenceService(isvc, canary), deps);
    const ready = typeof applied !== 'string' && (applied.deployment.status?.availableReplicas ?? 0) > 0;
    if (!ready) problems.push(`${name}: ${typeof applied === 'string' ? applied : notReadyReason(applied, deps)}`);
    statuses.push({ name, ready, trafficPercent: canary.trafficPercent });
  }
  const ready =
    problems.length === 0
      ? condition(CANARY_PREDICTOR_READY, 'True', 'AllCanariesReady')
      : condition(CANARY_PREDICTOR_READY, 'False', 'CanariesNotReady', `not ready: ${problems.join('; ')}`);
  return { statuses, condition: ready };
}

interface Applied {
  readonly deployment: V1Deployment;
  readonly plan: ComponentPlan;
}

function notReadyReason(applied: Applied, deps: CanaryStepDeps): string {
  return conditionText(explainFromPods(readinessFromDeployment(CANARY_PREDICTOR_READY, applied.deployment), deps.pods(applied.plan)));
}

/** The applied Deployment, or why there is none (a spec the canary cannot run). */
async function applyCanary(isvc: InferenceService, deps: CanaryStepDeps): Promise<Applied | string> {
  const resolution = deps.resolve(isvc);
  if (!resolution.ok) return `${resolution.reason}: ${resolution.message}`;
  // KServe's validator refuses a multi-model stable predictor with canaries; one whose runtime makes it multi-model is caught here.
  if (resolution.multiModel) return 'multi-model serving is not supported with canary';
  try {
    return { deployment: await deps.apply(isvc, resolution.plan), plan: resolution.plan };
  } catch (err) {
    // 422: the fields the canary adds do not make a valid workload; reported, not retried.
    if (apiStatus(err) !== 422) throw err;
    return `the API server refused the canary's workload: ${apiErrorMessage(err)}`;
  }
}
