/**
 * The predictor an InferenceService runs, decided once for everyone who needs it (the
 * InferenceService reconciler, the TrainedModel reconciler and webhook): the runtime
 * selected for its model (or its own containers), the pod plan, and whether it serves
 * TrainedModels. Pure: the caller lists the runtimes.
 *
 * Multi-model, as KServe's `IsMMSPredictor` decides it, narrowed so that no InferenceService
 * KServe would serve single-model changes: a model predictor without `storageUri` or
 * `storage` whose selected runtime says `multiModel: true`, or a custom predictor whose
 * serving container sets `MULTI_MODEL_SERVER=true` (KServe's
 * `CustomSpecMultiModelServerEnvVarKey`). Its pod gets the model-config mount
 * (multi-model/model-config-mount.ts).
 */
import type { InferenceService } from '../api/inference-service.js';
import { modelSpecOf } from '../api/model-spec.js';
import type { InferenceServiceConfig } from '../config/inferenceservice-config.js';
import { KSERVE_CONTAINER } from '../constants.js';
import { modelIdStorageUri, taskNote } from '../huggingface-tasks.js';
import { type RuntimeCandidates, selectRuntime } from '../runtime-selection.js';
import type { ComponentPlan } from './component-plan.js';
import { withModelConfig } from './multi-model/model-config-mount.js';
import { planCustomPredictor, planRuntimePredictor } from './predictor-plan.js';

export const MULTI_MODEL_SERVER_ENV = 'MULTI_MODEL_SERVER';

export type PredictorResolution =
  | {
      readonly ok: true;
      readonly plan: ComponentPlan;
      /** The selected runtime; absent for a custom predictor. */
      readonly runtime?: { readonly name: string; readonly scope: 'namespace' | 'cluster' };
      readonly multiModel: boolean;
    }
  | { readonly ok: false; readonly reason: string; readonly message: string };

export function resolvePredictor(isvc: InferenceService, config: InferenceServiceConfig, candidates: RuntimeCandidates): PredictorResolution {
  const model = modelSpecOf(isvc.spec.predictor);
  if (!model) {
    if (!isvc.spec.predictor.containers?.length) return { ok: false, reason: 'InvalidPredictorSpec', message: 'predictor needs a model, a legacy framework spec or containers' };
    const plan = planCustomPredictor(isvc, config);
    const multiModel = serving(plan).env?.some((e) => e.name === MULTI_MODEL_SERVER_ENV && e.value === 'true') === true;
    return { ok: true, plan: multiModel ? withModelConfig(plan, isvc.metadata.name!) : plan, multiModel };
  }
  const selection = selectRuntime(model, candidates);
  if (!selection.ok) {
    // KServe's message names neither; with ten legacy formats and two runtimes, say which.
    const { name, version } = model.modelFormat;
    const note = taskNote(model);
    const what = `model format '${name}'${version ? ` version '${version}'` : ''}, protocol '${model.protocolVersion ?? 'v1'}'${note ? `; ${note}` : ''}`;
    return { ok: false, reason: selection.reason, message: selection.reason === 'NoSupportingRuntime' ? `${selection.message} (${what})` : selection.message };
  }
  const modelIdUri = modelIdStorageUri(selection.runtime, model);
  const resolved = {
    ...model,
    ...(modelIdUri ? { storageUri: modelIdUri } : {}),
    runtime: selection.runtime.metadata.name!,
    protocolVersion: selection.protocolVersion,
  };
  const plan = planRuntimePredictor(isvc, resolved, selection.runtime, config);
  const multiModel = selection.runtime.spec.multiModel === true && !model.storageUri && !model.storage;
  return {
    ok: true,
    plan: multiModel ? withModelConfig(plan, isvc.metadata.name!) : plan,
    runtime: { name: selection.runtime.metadata.name!, scope: selection.scope },
    multiModel,
  };
}

/** The serving container's memory limit (KServe's `IsMemoryResourceAvailable` reads the same one). */
export function predictorMemoryLimit(plan: ComponentPlan): string | undefined {
  const limit: unknown = serving(plan).resources?.limits?.['memory'];
  return typeof limit === 'string' || typeof limit === 'number' ? String(limit) : undefined;
}

function serving(plan: ComponentPlan) {
  return plan.podSpec.containers.find((c) => c.name === KSERVE_CONTAINER) ?? plan.podSpec.containers[0]!;
}
