/**
 * InferenceService defaulting (KServe `inference_service_defaults.go`, `DefaultInferenceService`):
 *
 * - the deploymentMode annotation's legacy names become the current ones
 *   (RawDeployment → Standard, Serverless → Knative); with no annotation, the configured
 *   default is written only when it is Standard (or ModelMesh), as KServe does, so a Knative
 *   default keeps following the ConfigMap;
 * - KServe's legacy framework specs (`predictor.sklearn`, `.xgboost`, `.tensorflow`,
 *   `.pytorch`, `.triton`, `.onnx`, `.huggingface`, `.pmml`, `.lightgbm`, `.paddle`) become
 *   `predictor.model` with that format (triton, onnx and huggingface also get protocol v2
 *   when unset, as KServe's defaulter does; the table is api/model-spec.ts); when `model` or
 *   a second legacy spec is also set nothing is moved, and validation rejects the spec with
 *   KServe's "exactly one of" message instead of KServe's silent first-wins overwrite;
 * - triton and vLLM models default to protocol v2;
 * - the annotation `modelFormat` records the format unless already set.
 */
import type { InferenceService } from '../../api/inference-service.js';
import { legacyFrameworksOf, modelFromLegacy } from '../../api/model-spec.js';
import { ANN_DEPLOYMENT_MODE, ANN_MODEL_FORMAT, type DeploymentMode } from '../../constants.js';

const LEGACY_NAMES: Readonly<Record<string, DeploymentMode>> = { RawDeployment: 'Standard', Serverless: 'Knative' };
const WRITTEN_DEFAULTS: readonly DeploymentMode[] = ['Standard', 'ModelMesh'];
const V2_DEFAULT_FORMATS: readonly string[] = ['triton', 'vLLM'];

export function defaultInferenceService(isvc: InferenceService, defaultDeploymentMode: DeploymentMode): void {
  const mode = isvc.metadata?.annotations?.[ANN_DEPLOYMENT_MODE];
  if (mode !== undefined) {
    const current = LEGACY_NAMES[mode];
    if (current) annotationsOf(isvc)[ANN_DEPLOYMENT_MODE] = current;
  } else if (WRITTEN_DEFAULTS.includes(defaultDeploymentMode)) {
    annotationsOf(isvc)[ANN_DEPLOYMENT_MODE] = defaultDeploymentMode;
  }
  if (isvc.metadata?.annotations?.[ANN_DEPLOYMENT_MODE] !== 'ModelMesh') defaultPredictorModel(isvc);
}

function annotationsOf(isvc: InferenceService): Record<string, string> {
  isvc.metadata ??= {};
  return (isvc.metadata.annotations ??= {});
}

function defaultPredictorModel(isvc: InferenceService): void {
  const predictor = isvc.spec?.predictor;
  if (!predictor) return;
  const legacy = legacyFrameworksOf(predictor);
  const field = legacy[0];
  if (!predictor.model && field !== undefined && legacy.length === 1) {
    predictor.model = modelFromLegacy(field, predictor[field]!);
    delete predictor[field];
  }
  const model = predictor.model;
  if (!model?.modelFormat) return;
  if (model.protocolVersion === undefined && V2_DEFAULT_FORMATS.includes(model.modelFormat.name)) model.protocolVersion = 'v2';
  if (model.modelFormat.name && isvc.metadata?.annotations?.[ANN_MODEL_FORMAT] === undefined) {
    annotationsOf(isvc)[ANN_MODEL_FORMAT] = model.modelFormat.name;
  }
}
