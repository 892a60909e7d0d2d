/**
 * The PodSpec a component carries. KServe inlines a whole PodSpec into every component next
 * to its own fields (`ComponentExtensionSpec`, the predictor's model and framework specs), so
 * the pod fields are what is left once those are taken away; the CRD admits only known
 * PodSpec fields besides them, so nothing else can be left.
 */
import type { V1PodSpec } from '@kubernetes/client-node';
import type { ExplainerSpec, PredictorSpec, TransformerSpec } from '../api/inference-service.js';
import { LEGACY_FRAMEWORK_FIELDS } from '../api/model-spec.js';

/** KServe's component fields that are not pod fields. */
const COMPONENT_FIELDS: readonly string[] = [
  'name',
  'model',
  ...LEGACY_FRAMEWORK_FIELDS,
  'storageUris',
  'storageContainerName',
  'workerSpec',
  'minReplicas',
  'maxReplicas',
  'scaleTarget',
  'scaleMetric',
  'scaleMetricType',
  'containerConcurrency',
  'timeout',
  'canaryTrafficPercent',
  'logger',
  'batcher',
  'labels',
  'annotations',
  'deploymentStrategy',
  'autoScaling',
  'art',
  'alibi',
];

/** The component's pod fields, `containers` excluded (each plan places the containers). */
export function componentPodSpec(component: PredictorSpec | TransformerSpec | ExplainerSpec): Partial<V1PodSpec> {
  const out: Record<string, unknown> = { ...component };
  for (const k of COMPONENT_FIELDS) delete out[k];
  delete out['containers'];
  return out as Partial<V1PodSpec>;
}
