/**
 * The TrainedModel CRD (see crd.ts), KServe's schema: `spec.inferenceService` and
 * `spec.model.{storageUri, framework, memory}`, all required as KServe's Go type makes
 * them; KServe's printer columns and short name. The rules that need the cluster (the
 * parent exists and serves many models, memory within its limit) and the immutable fields
 * are the validating webhook's (webhooks/trained-model/), with KServe's messages.
 */
import { type OpenApiSchema, customResourceDefinition, schema } from './crd.js';
import { TM_GROUP, TM_KIND, TM_PLURAL, TM_VERSION } from './trained-model.js';

const { string } = schema;

export const TRAINED_MODEL_MODEL_SCHEMA: OpenApiSchema = {
  type: 'object',
  required: ['storageUri', 'framework', 'memory'],
  properties: {
    storageUri: string,
    framework: string,
    // resource.Quantity, as KServe's schema: a string or a number of bytes.
    memory: { 'x-kubernetes-int-or-string': true },
  },
};

export const TRAINED_MODEL_SPEC_SCHEMA: OpenApiSchema = {
  type: 'object',
  required: ['inferenceService', 'model'],
  properties: {
    inferenceService: { type: 'string', minLength: 1 },
    model: TRAINED_MODEL_MODEL_SCHEMA,
  },
};

export const TRAINED_MODEL_CRD = customResourceDefinition({
  comment: `TrainedModel ${TM_VERSION} as implemented by kserve-ts: KServe's schema and field names, so
TrainedModels written for KServe apply unchanged. The controller lists them in the parent's
modelconfig-<isvc>-0 ConfigMap, which the kserve-ts server reads itself (no agent sidecar).`,
  group: TM_GROUP,
  version: TM_VERSION,
  kind: TM_KIND,
  plural: TM_PLURAL,
  singular: TM_KIND.toLowerCase(),
  shortNames: ['tm'],
  scope: 'Namespaced',
  printerColumns: [
    { name: 'URL', type: 'string', jsonPath: '.status.url' },
    { name: 'Ready', type: 'string', jsonPath: ".status.conditions[?(@.type=='Ready')].status" },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
  spec: TRAINED_MODEL_SPEC_SCHEMA,
});
