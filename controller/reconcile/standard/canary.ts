/**
 * Standard mode canaries as KServe 0.20 makes them (`reconcileCanaryDeployments` and
 * `applyCanaryWeights`), the pure part: each canary's predictor is the stable one with the
 * canary's fields over it, at a fixed replica count; the stable predictor's floor drops by
 * the replicas of the canaries that are ready; and only ready canaries get a share of the
 * routes, the stable predictor the rest.
 */
import type { CanarySpec, CanaryStatus, InferenceService, PredictorSpec } from '../../api/inference-service.js';
import { predictorName } from '../../constants.js';

/** A weighted backend of the predictor's routes: a Service, its share in percent, and the predictor's name when it has one (what a pin header names). */
export interface WeightedBackend {
  readonly service: string;
  readonly weight: number;
  readonly name?: string;
}

/**
 * KServe's `canaryReplicaCount`: the canary's own minReplicas, else its share of the stable
 * predictor's (ceil(stable × percent / 100), the stable's minReplicas defaulting to 1).
 */
export function canaryReplicas(isvc: InferenceService, canary: CanarySpec): number {
  if (canary.predictor.minReplicas !== undefined) return canary.predictor.minReplicas;
  const stable = isvc.spec.predictor.minReplicas ?? 1;
  return Math.ceil((stable * canary.trafficPercent) / 100);
}

/**
 * KServe's `buildCanaryPredictor`: the stable predictor with the canary's fields merged over it
 * (objects field by field, lists and values replaced: mergo's WithOverride), its autoscaling
 * fields dropped and its replica count fixed.
 */
export function canaryPredictor(stable: PredictorSpec, canary: CanarySpec, replicas: number): PredictorSpec {
  const merged = mergeOver(stable, canary.predictor) as PredictorSpec;
  delete merged.maxReplicas;
  delete merged.scaleTarget;
  delete merged.scaleMetric;
  delete merged.autoScaling;
  return { ...merged, minReplicas: replicas };
}

/** The InferenceService as the canary's objects see it: the same, with the canary's predictor. */
export function canaryInferenceService(isvc: InferenceService, canary: CanarySpec): InferenceService {
  return { ...isvc, spec: { ...isvc.spec, predictor: canaryPredictor(isvc.spec.predictor, canary, canaryReplicas(isvc, canary)) } };
}

/**
 * KServe's `adjustStableMinReplicasForCanaries`: the stable predictor's minReplicas less the
 * replicas of the ready canaries (at least 1), so capacity moves to a canary only once it can
 * serve. Undefined when nothing changes.
 */
export function stableMinReplicas(isvc: InferenceService, statuses: readonly CanaryStatus[]): number | undefined {
  const min = isvc.spec.predictor.minReplicas;
  if (min === undefined) return undefined;
  const ready = readyNames(statuses);
  const moved = (isvc.spec.canary ?? []).filter((c) => ready.has(c.predictor.name)).reduce((sum, c) => sum + canaryReplicas(isvc, c), 0);
  return moved > 0 ? Math.max(min - moved, 1) : undefined;
}

/**
 * KServe's `applyCanaryWeights`: the stable predictor's Service with 100 less the ready
 * canaries' shares, then each ready canary's Service with its share. Empty without canaries
 * (the routes keep their single backend).
 */
export function canaryWeights(isvc: InferenceService, statuses: readonly CanaryStatus[]): WeightedBackend[] {
  const canaries = isvc.spec.canary ?? [];
  if (canaries.length === 0) return [];
  const ready = readyNames(statuses);
  const name = isvc.metadata.name!;
  const served = canaries.filter((c) => ready.has(c.predictor.name));
  const stable = 100 - served.reduce((sum, c) => sum + c.trafficPercent, 0);
  const stableName = isvc.spec.predictor.name;
  return [
    { service: predictorName(name, stableName), weight: stable, ...(stableName ? { name: stableName } : {}) },
    ...served.map((c) => ({ service: predictorName(name, c.predictor.name), weight: c.trafficPercent, name: c.predictor.name })),
  ];
}

function readyNames(statuses: readonly CanaryStatus[]): Set<string> {
  return new Set(statuses.filter((s) => s.ready).map((s) => s.name));
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function mergeOver(base: unknown, over: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(over)) return over === undefined ? structuredClone(base) : structuredClone(over);
  const out: Record<string, unknown> = structuredClone(base);
  for (const [k, v] of Object.entries(over)) if (v !== undefined && v !== null) out[k] = mergeOver(out[k], v);
  return out;
}
