/**
 * `spec.canary` and `predictor.name`, as KServe's `validateCanarySpecs` checks them, with its
 * messages. KServe stops at the first problem; here every one is reported. Beyond KServe:
 * each `{isvc}-{name}-predictor` must fit a Kubernetes name, and `predictor.name` is refused
 * in Knative mode (kserve-ts names Knative Services `{isvc}-predictor` only).
 */
import type { CanarySpec, InferenceService, PredictorSpec } from '../../api/inference-service.js';
import { type DeploymentMode, predictorName } from '../../constants.js';
import { storageUriProblem } from './storage-uri.js';

const DNS_LABEL_MAX = 63;

/** The checks of one canary that KServe words as "canary %q must not set <field> (canary uses fixed replicas)". */
const AUTOSCALING_FIELDS = ['maxReplicas', 'scaleTarget', 'scaleMetric', 'autoScaling'] as const;

/** What the canary checks take from the validator: the mode, and its exactly-one-implementation check. */
export interface CanaryChecks {
  readonly mode: DeploymentMode;
  readonly implementationProblem: (p: PredictorSpec) => string | undefined;
}

export function validateCanaries(isvc: InferenceService, checks: CanaryChecks, problems: string[]): void {
  const stable = isvc.spec.predictor;
  const name = isvc.metadata?.name ?? '';
  if (stable.name !== undefined) {
    if (checks.mode === 'Knative') problems.push('spec.predictor.name is only supported in Standard mode by kserve-ts');
    else fitsName(name, stable.name, 'spec.predictor.name', problems);
  }
  const canaries = isvc.spec.canary;
  if (!canaries || canaries.length === 0) return;
  if (checks.mode !== 'Standard') {
    problems.push('canary is only supported in Standard deployment mode');
    return;
  }
  if (!stable.model && !customStorageUri(stable)) {
    problems.push('canary requires a stable predictor with a model (multi-model serving is not supported with canary)');
  }
  const seen = new Set<string>();
  let total = 0;
  canaries.forEach((canary, i) => {
    const n = canary.predictor?.name;
    if (!n) {
      problems.push(`canary[${i}] predictor.name is required`);
      return;
    }
    if (seen.has(n)) problems.push(`canary predictor.name "${n}" is duplicated`);
    seen.add(n);
    if (n === stable.name) problems.push(`canary predictor.name "${n}" conflicts with stable predictor name`);
    const p = canary.trafficPercent;
    // A review posted without the CRD's schema in front may lack it or carry another type: say what came.
    if (!Number.isInteger(p) || p < 0 || p > 100) problems.push(`canary "${n}" trafficPercent must be between 0 and 100, got ${p === undefined ? 'none' : JSON.stringify(p)}`);
    else total += p;
    const implementation = checks.implementationProblem(canary.predictor);
    if (implementation) problems.push(`canary "${n}" predictor: ${implementation}`);
    canaryFieldProblems(canary, stable, problems);
    const uri = canary.predictor.model?.storageUri;
    const uriProblem = uri === undefined ? undefined : storageUriProblem(`spec.canary[${i}].predictor.model.storageUri`, uri);
    if (uriProblem) problems.push(uriProblem);
    fitsName(name, n, `spec.canary[${i}].predictor.name`, problems);
  });
  if (total > 100) problems.push(`sum of canary trafficPercent values (${total}) must be <= 100`);
}

function canaryFieldProblems(canary: CanarySpec, stable: PredictorSpec, problems: string[]): void {
  const p = canary.predictor;
  const n = p.name;
  if (p.workerSpec !== undefined) problems.push(`canary "${n}" must not set workerSpec (multi-node is not yet supported for canary)`);
  for (const field of AUTOSCALING_FIELDS) {
    // KServe reads maxReplicas 0 as unset.
    const set = field === 'maxReplicas' ? (p.maxReplicas ?? 0) > 0 : p[field] !== undefined;
    if (set) problems.push(`canary "${n}" must not set ${field} (canary uses fixed replicas)`);
  }
  const stableMin = stable.minReplicas ?? 1;
  if (p.minReplicas !== undefined && p.minReplicas > stableMin) {
    problems.push(`canary "${n}" minReplicas (${p.minReplicas}) must not exceed stable predictor minReplicas (${stableMin})`);
  }
}

/** KServe's custom predictor has a storage URI when its serving container sets STORAGE_URI. */
function customStorageUri(p: PredictorSpec): string | undefined {
  return p.containers?.flatMap((c) => c.env ?? []).find((e) => e.name === 'STORAGE_URI')?.value;
}

function fitsName(isvc: string, name: string, field: string, problems: string[]): void {
  const full = predictorName(isvc, name);
  if (full.length > DNS_LABEL_MAX) {
    problems.push(`${field} '${name}' is too long: '${full}' (${full.length} characters) must fit the ${DNS_LABEL_MAX}-character limit of Kubernetes names`);
  }
}
