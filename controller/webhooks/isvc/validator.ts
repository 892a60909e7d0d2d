/**
 * InferenceService validation (KServe `inference_service_validation.go` and `component.go`),
 * narrowed to what kserve-ts serves. Every problem is reported, not only the first, each
 * naming its field. Runs after the defaulter, so legacy specs have become `model` and legacy
 * mode names are normalized.
 *
 * Differences from KServe, on purpose: storage URI schemes are checked here (KServe checks
 * them in the controller); ModelMesh, and canaryTrafficPercent in Standard mode, are
 * rejected (kserve-ts has neither; Standard mode's canaries are spec.canary, canary-validation.ts); in Knative mode `serving.kserve.io/autoscalerClass: hpa`
 * selects Knative's HPA class (as the reconciler does) besides KServe's
 * `autoscaling.knative.dev/class`; the name must leave room for the component suffix;
 * deploymentMode is also immutable against the old annotation before the controller has
 * recorded the mode in status. The scaling rules, and how they differ, are in
 * autoscaling-validation.ts.
 */
import { type ComponentExtensionSpec, type InferenceService, LOGGER_MODES, type LoggerSpec, type PredictorSpec } from '../../api/inference-service.js';
import { LEGACY_FRAMEWORK_FIELDS, legacyFrameworksOf } from '../../api/model-spec.js';
import { ANN_AUTOSCALER_CLASS, ANN_DEPLOYMENT_MODE, type DeploymentMode, KSERVE_CONTAINER } from '../../constants.js';
import { normalizeDeploymentMode, resolveDeploymentMode } from '../../deployment-mode.js';
import { unknownTaskProblem } from '../../huggingface-tasks.js';
import { AUTOSCALER_CLASSES } from '../../reconcile/standard/hpa.js';
import { redact } from '../../../storage-initializer/redact.js';
import { SUPPORTED_STORAGE_SPEC_TYPES } from '../credentials/storage-spec.js';
import { type ComponentContext, validateAutoscaling } from './autoscaling-validation.js';
import { validateCanaries } from './canary-validation.js';
import { storageUriProblem } from './storage-uri.js';

/**
 * KServe's message for a component with zero or several implementations (`ExactlyOneErrorFor`
 * lists PredictorSpec's Go field names by reflection, which is where this list comes from).
 * The CRD's validation rule carries the same text.
 */
export const EXACTLY_ONE_PREDICTOR =
  'exactly one of [Name, SKLearn, XGBoost, Tensorflow, PyTorch, Triton, ONNX, HuggingFace, PMML, LightGBM, Paddle, Model, StorageUris, StorageContainerName, WorkerSpec, PodSpec] must be specified in PredictorSpec';

export const ISVC_NAME_FORMAT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const ISVC_NAME = new RegExp(`^${ISVC_NAME_FORMAT}$`);
const DNS_LABEL_MAX = 63;
/** Knative names the first revision `{ksvc}-00001`. */
const KNATIVE_REVISION_SUFFIX = '-00001';

const SUPPORTED_MODES: readonly DeploymentMode[] = ['Standard', 'Knative'];

/** All problems with `isvc` (empty when valid). `old` is the stored object on UPDATE. */
export function validateInferenceService(isvc: InferenceService, defaultDeploymentMode: DeploymentMode, old?: InferenceService): string[] {
  const problems: string[] = [];
  const annotations = isvc.metadata?.annotations ?? {};
  const mode = resolveDeploymentMode({ ...isvc, metadata: isvc.metadata ?? {} }, defaultDeploymentMode);

  validateMode(annotations[ANN_DEPLOYMENT_MODE], problems);
  if (old) validateModeUnchanged(isvc, old, problems);
  validateName(isvc, mode, problems);

  const autoscalerClass = annotations[ANN_AUTOSCALER_CLASS];
  if (autoscalerClass !== undefined && !AUTOSCALER_CLASSES.includes(autoscalerClass)) {
    problems.push(`annotation ${ANN_AUTOSCALER_CLASS}: '${autoscalerClass}' is not a supported autoscaler class (supported: ${AUTOSCALER_CLASSES.join(', ')})`);
  }

  const predictor = isvc.spec?.predictor;
  if (!predictor) {
    problems.push('spec.predictor is required');
    return problems;
  }
  validatePredictor(predictor, problems);
  validateComponent(predictor, { field: 'spec.predictor', mode, annotations, problems });
  if (predictor.canaryTrafficPercent !== undefined) {
    const p = predictor.canaryTrafficPercent;
    if (!Number.isInteger(p) || p < 0 || p > 100) problems.push(`spec.predictor.canaryTrafficPercent must be an integer from 0 to 100, got ${p}`);
    else if (mode !== 'Knative') problems.push(`spec.predictor.canaryTrafficPercent is only supported in Knative mode (this InferenceService is ${mode})`);
  }
  validateCanaries(isvc, { mode, implementationProblem }, problems);

  const transformer = isvc.spec.transformer;
  if (transformer) {
    if (!transformer.containers || transformer.containers.length === 0) problems.push('spec.transformer.containers must name at least one container');
    validateComponent(transformer, { field: 'spec.transformer', mode, annotations, problems });
  }

  const explainer = isvc.spec.explainer;
  if (explainer) {
    const builtIns = BUILT_IN_EXPLAINERS.filter((k) => explainer[k] !== undefined);
    if (builtIns.length > 0) problems.push(builtInExplainerMessage(builtIns));
    else if (!explainer.containers || explainer.containers.length === 0) problems.push('spec.explainer.containers must name at least one container');
    validateComponent(explainer, { field: 'spec.explainer', mode, annotations, problems });
  }
  return problems;
}

/** KServe's built-in explainers: ART (still in KServe) and alibi (removed from KServe). kserve-ts runs custom explainer containers only. */
const BUILT_IN_EXPLAINERS = ['art', 'alibi'] as const;

function builtInExplainerMessage(found: readonly string[]): string {
  return `spec.explainer.${found.join(', spec.explainer.')}: built-in explainers are not supported by kserve-ts; give spec.explainer.containers running your explainer, which is told --predictor_host`;
}

/**
 * What kserve-ts's in-process logger cannot do of KServe's agent's LoggerSpec: each is
 * refused by name rather than silently ignored.
 */
const UNSUPPORTED_LOGGER_FIELDS: readonly (readonly [keyof LoggerSpec, string])[] = [
  ['storage', 'request logs written to storage are not supported by kserve-ts: its server sends CloudEvents to logger.url'],
  ['metadataAnnotations', 'not supported by kserve-ts: use logger.metadataHeaders'],
  ['marshallerUrl', 'not supported by kserve-ts: events are sent as JSON CloudEvents'],
  ['batchSize', 'not supported by kserve-ts: each event is sent on its own'],
  ['batchInterval', 'not supported by kserve-ts: each event is sent on its own'],
];

function validateLogger(field: string, logger: LoggerSpec, problems: string[]): void {
  for (const [key, why] of UNSUPPORTED_LOGGER_FIELDS) {
    if (logger[key] !== undefined) problems.push(`${field}.logger.${key}: ${why}`);
  }
  if (logger.mode !== undefined && !LOGGER_MODES.includes(logger.mode)) {
    problems.push(`${field}.logger.mode '${String(logger.mode)}' is not a logger mode (use ${LOGGER_MODES.join(', ')})`);
  }
  if (logger.url !== undefined && !/^https?:\/\/[^/\s]/i.test(logger.url)) {
    problems.push(`${field}.logger.url '${redact(logger.url)}' must be an http:// or https:// URL`);
  }
  for (const h of logger.metadataHeaders ?? []) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(h)) problems.push(`${field}.logger.metadataHeaders: '${h}' is not an HTTP header name`);
  }
}

function validateMode(value: string | undefined, problems: string[]): void {
  if (value === undefined) return;
  const mode = normalizeDeploymentMode(value);
  if (mode === 'ModelMesh') problems.push(`annotation ${ANN_DEPLOYMENT_MODE}: ModelMesh is not supported by kserve-ts (use Standard or Knative)`);
  else if (!mode) problems.push(`annotation ${ANN_DEPLOYMENT_MODE}: '${value}' is not a deployment mode (use ${SUPPORTED_MODES.join(' or ')})`);
}

function validateModeUnchanged(isvc: InferenceService, old: InferenceService, problems: string[]): void {
  const recorded = normalizeDeploymentMode(old.status?.deploymentMode);
  const raw = isvc.metadata?.annotations?.[ANN_DEPLOYMENT_MODE];
  const requested = normalizeDeploymentMode(raw);
  if (recorded) {
    // The recorded mode wins over a missing annotation, so only a different one is a change.
    if (raw !== undefined && requested !== recorded) {
      problems.push(`annotation ${ANN_DEPLOYMENT_MODE}: the deployment mode cannot be changed from '${recorded}' to '${raw}'; delete and recreate the InferenceService`);
    }
    return;
  }
  const previous = normalizeDeploymentMode(old.metadata?.annotations?.[ANN_DEPLOYMENT_MODE]);
  if (previous && requested !== previous) {
    problems.push(
      `annotation ${ANN_DEPLOYMENT_MODE}: the deployment mode cannot be changed from '${previous}' to '${raw ?? '(removed)'}'; delete and recreate the InferenceService`,
    );
  }
}

function validateName(isvc: InferenceService, mode: DeploymentMode, problems: string[]): void {
  const name = isvc.metadata?.name ?? '';
  if (!ISVC_NAME.test(name)) {
    problems.push(
      `metadata.name '${name}' is invalid: an InferenceService name must consist of lower case alphanumeric characters or '-', start with a letter and end with a letter or digit (e.g. 'my-name' or 'abc-123', regex '${ISVC_NAME_FORMAT}')`,
    );
    return;
  }
  const suffixes = ['-predictor', ...(isvc.spec?.transformer ? ['-transformer'] : []), ...(isvc.spec?.explainer ? ['-explainer'] : [])].map((s) =>
    mode === 'Knative' ? s + KNATIVE_REVISION_SUFFIX : s,
  );
  const longest = suffixes.reduce((a, b) => (b.length > a.length ? b : a));
  const max = DNS_LABEL_MAX - longest.length;
  if (name.length > max) {
    problems.push(
      `metadata.name '${name}' is too long (${name.length} characters): at most ${max}, so that '<name>${longest}' fits the ${DNS_LABEL_MAX}-character limit of Kubernetes names`,
    );
  }
}

function implementationProblem(predictor: PredictorSpec): string | undefined {
  const found = implementations(predictor);
  return found.length === 1 ? undefined : `${EXACTLY_ONE_PREDICTOR} (found ${found.length}${found.length > 0 ? `: ${found.join(', ')}` : ''})`;
}

function validatePredictor(predictor: PredictorSpec, problems: string[]): void {
  pushIf(problems, implementationProblem(predictor));
  const model = predictor.model;
  if (model) {
    if (!model.modelFormat?.name) problems.push('spec.predictor.model.modelFormat.name is required');
    pushIf(problems, unknownTaskProblem(model, 'spec.predictor.model'));
    if (model.storageUri !== undefined) pushIf(problems, storageUriProblem('spec.predictor.model.storageUri', model.storageUri));
    if (model.storage) {
      if (model.storageUri !== undefined && !model.storageUri.startsWith('s3://')) {
        problems.push(`spec.predictor.model.storageUri '${redact(model.storageUri)}' must be an s3:// URI when spec.predictor.model.storage is set`);
      }
      const type = model.storage.parameters?.['type'];
      if (type !== undefined && !SUPPORTED_STORAGE_SPEC_TYPES.includes(type)) {
        problems.push(`spec.predictor.model.storage.parameters.type '${type}' is not supported (supported: ${SUPPORTED_STORAGE_SPEC_TYPES.join(', ')})`);
      }
    }
  }
  for (const legacy of LEGACY_FRAMEWORK_FIELDS) {
    const uri = predictor[legacy]?.storageUri;
    if (uri !== undefined) pushIf(problems, storageUriProblem(`spec.predictor.${legacy}.storageUri`, uri));
  }
  const storageUriEnv = predictor.containers?.find((c) => c.name === KSERVE_CONTAINER)?.env?.find((e) => e.name === 'STORAGE_URI')?.value;
  if (storageUriEnv) pushIf(problems, storageUriProblem(`spec.predictor.containers[${KSERVE_CONTAINER}].env[STORAGE_URI]`, storageUriEnv));
}

/**
 * KServe's count (`GetImplementations`): each framework spec and `model`, plus a custom
 * predictor when a container is named `kserve-container` or, with nothing else set, when
 * there is any container (so `model` + a `transformer-container` is one implementation).
 * Returns the fields found, for the message.
 */
function implementations(p: PredictorSpec): string[] {
  const found: string[] = legacyFrameworksOf(p).map((f) => `predictor.${f}`);
  if (p.model !== undefined && p.model !== null) found.push('predictor.model');
  const containers = Array.isArray(p.containers) ? p.containers : [];
  if (containers.some((c) => c?.name === KSERVE_CONTAINER)) found.push(`predictor.containers[${KSERVE_CONTAINER}]`);
  else if (found.length === 0 && containers.length > 0) found.push('predictor.containers');
  return found;
}

function validateComponent(c: ComponentExtensionSpec, ctx: ComponentContext): void {
  const { field, problems } = ctx;
  if (c.logger) validateLogger(field, c.logger, problems);
  const min = c.minReplicas;
  const max = c.maxReplicas;
  if (min !== undefined && min < 0) problems.push(`${field}.minReplicas cannot be less than 0, got ${min}`);
  if (max !== undefined && max < 0) problems.push(`${field}.maxReplicas cannot be less than 0, got ${max}`);
  // maxReplicas 0 means "no limit".
  if (min !== undefined && max !== undefined && max > 0 && min > max) {
    problems.push(`${field}.minReplicas (${min}) cannot be greater than maxReplicas (${max})`);
  }
  if (c.containerConcurrency !== undefined && c.containerConcurrency < 0) {
    problems.push(`${field}.containerConcurrency cannot be less than 0, got ${c.containerConcurrency}`);
  }
  validateAutoscaling(c, ctx);
}

function pushIf(problems: string[], problem: string | undefined): void {
  if (problem) problems.push(problem);
}
