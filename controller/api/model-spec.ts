/**
 * The predictor's model, whichever way it was written: `predictor.model`, or a legacy
 * framework spec (`predictor.onnx`, `predictor.tensorflow`) read as a model of that
 * format, as KServe's defaulter rewrites it. Undefined for a custom-container predictor.
 */
import type { LegacyFrameworkSpec, ModelSpec, PredictorSpec } from './inference-service.js';

export const LEGACY_FRAMEWORKS = ['onnx', 'tensorflow'] as const;

export function modelSpecOf(predictor: PredictorSpec): ModelSpec | undefined {
  if (predictor.model) return predictor.model;
  for (const format of LEGACY_FRAMEWORKS) {
    const legacy: LegacyFrameworkSpec | undefined = predictor[format];
    if (legacy) return { ...legacy, modelFormat: { name: format } };
  }
  return undefined;
}
