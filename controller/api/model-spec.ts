/**
 * The predictor's model, whichever way it was written: `predictor.model`, or one of KServe's
 * legacy framework specs (`predictor.sklearn`, `predictor.onnx`, ...) read as a model of that
 * format, as KServe's defaulter (`setPredictorModelDefaults`) rewrites it. Undefined for a
 * custom-container predictor.
 */
import type { LegacyFrameworkSpec, ModelSpec, PredictorSpec, ProtocolVersion } from './inference-service.js';

export interface LegacyFramework {
  /** The model format KServe maps the spec to. */
  readonly format: string;
  /** The protocol KServe's defaulter sets when the spec names none. */
  readonly defaultProtocol?: ProtocolVersion;
}

/**
 * Field → format, in KServe's PredictorSpec field order (the order its defaulter's switch
 * tries them). KServe defaults triton, onnx and huggingface to protocol v2.
 */
export const LEGACY_FRAMEWORKS: Readonly<Record<LegacyFrameworkField, LegacyFramework>> = {
  sklearn: { format: 'sklearn' },
  xgboost: { format: 'xgboost' },
  tensorflow: { format: 'tensorflow' },
  pytorch: { format: 'pytorch' },
  triton: { format: 'triton', defaultProtocol: 'v2' },
  onnx: { format: 'onnx', defaultProtocol: 'v2' },
  huggingface: { format: 'huggingface', defaultProtocol: 'v2' },
  pmml: { format: 'pmml' },
  lightgbm: { format: 'lightgbm' },
  paddle: { format: 'paddle' },
};

export type LegacyFrameworkField = 'sklearn' | 'xgboost' | 'tensorflow' | 'pytorch' | 'triton' | 'onnx' | 'huggingface' | 'pmml' | 'lightgbm' | 'paddle';

export const LEGACY_FRAMEWORK_FIELDS = Object.keys(LEGACY_FRAMEWORKS) as LegacyFrameworkField[];

/** The legacy specs present on `predictor`, in KServe's order. */
export function legacyFrameworksOf(predictor: PredictorSpec): LegacyFrameworkField[] {
  return LEGACY_FRAMEWORK_FIELDS.filter((f) => predictor[f] !== undefined && predictor[f] !== null);
}

/** A legacy spec as the model KServe's defaulter makes of it. */
export function modelFromLegacy(field: LegacyFrameworkField, legacy: LegacyFrameworkSpec): ModelSpec {
  const { format, defaultProtocol } = LEGACY_FRAMEWORKS[field];
  const protocolVersion = legacy.protocolVersion ?? defaultProtocol;
  return { modelFormat: { name: format }, ...legacy, ...(protocolVersion ? { protocolVersion } : {}) };
}

export function modelSpecOf(predictor: PredictorSpec): ModelSpec | undefined {
  if (predictor.model) return predictor.model;
  const [first] = legacyFrameworksOf(predictor);
  return first ? modelFromLegacy(first, predictor[first]!) : undefined;
}
