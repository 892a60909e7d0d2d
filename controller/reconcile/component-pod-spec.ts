/**
 * The PodSpec a component carries. KServe inlines a whole PodSpec into every component next
 * to its own fields (`ComponentExtensionSpec`, the predictor's model and framework specs); the
 * pod fields are the ones the CRD lists as such (api/inference-service-crd.ts), so a field
 * added to a component there is never mistaken for a pod field here.
 */
import type { V1PodSpec } from '@kubernetes/client-node';
import type { ExplainerSpec, PredictorSpec, TransformerSpec } from '../api/inference-service.js';
import { POD_FIELDS } from '../api/inference-service-crd.js';

const POD_FIELD_NAMES: readonly string[] = Object.keys(POD_FIELDS);

/** The component's pod fields, `containers` excluded (each plan places the containers). */
export function componentPodSpec(component: PredictorSpec | TransformerSpec | ExplainerSpec): Partial<V1PodSpec> {
  const given = component as Record<string, unknown>;
  return Object.fromEntries(POD_FIELD_NAMES.filter((k) => given[k] !== undefined).map((k) => [k, given[k]]));
}
