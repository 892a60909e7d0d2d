/**
 * `spec.canary` and `predictor.name`, as KServe's `validateCanarySpecs` checks them, with its
 * messages. KServe stops at the first problem; here every one is reported. Beyond KServe:
 * each `{isvc}-{name}-predictor` must fit a Kubernetes name, and `predictor.name` is refused
 * in Knative mode (kserve-ts names Knative Services `{isvc}-predictor` only); and kserve-ts's
 * A/B pin annotation (`serving.kserve.io/canary-header`, reconcile/ingress/http-route.ts).
 */
import type { CanarySpec, InferenceService, PredictorSpec } from '../../api/inference-service.js';
import { ANN_CANARY_HEADER, type DeploymentMode, predictorName } from '../../constants.js';
import { storageUriProblem } from './storage-uri.js';

const DNS_LABEL_MAX = 63;
/** Gateway API's HTTPHeaderName: an RFC 7230 token of at most 256 characters. */
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+\-.^_`|~]{1,256}$/;
/**
 * Pinned predictors an ISVC may name: an HTTPRoute holds at most 16 rules, and the top-level
 * route's worst case (a gRPC and a REST rule, a path-template rule, each pinned, and the
 * explainer's) is 3 × (pins + 1) + 1.
 */
const MAX_PINS = 4;

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
  validatePinHeader(isvc, checks.mode, problems);
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

/**
 * The pin header: a header name, Standard mode only (the pin is an HTTPRoute rule), and few
 * enough named predictors for the routes' rule limit. Kept without canaries, so promotion
 * (which removes the canary entry) needs no second edit.
 */
function validatePinHeader(isvc: InferenceService, mode: DeploymentMode, problems: string[]): void {
  const header = isvc.metadata?.annotations?.[ANN_CANARY_HEADER];
  if (header === undefined) return;
  if (!HEADER_NAME.test(header)) {
    problems.push(`annotation ${ANN_CANARY_HEADER}: '${header}' is not an HTTP header name (1 to 256 of letters, digits and !#$%&'*+-.^_\`|~)`);
  }
  if (mode !== 'Standard') {
    problems.push(`annotation ${ANN_CANARY_HEADER} is only supported in Standard deployment mode (the pin is a Gateway API HTTPRoute rule)`);
    return;
  }
  const pins = (isvc.spec.predictor.name !== undefined ? 1 : 0) + (isvc.spec.canary ?? []).length;
  if (pins > MAX_PINS) {
    problems.push(
      `annotation ${ANN_CANARY_HEADER}: at most ${MAX_PINS} named predictors (the stable predictor's name and the canaries) can be pinned, got ${pins}: an HTTPRoute holds at most 16 rules`,
    );
  }
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
