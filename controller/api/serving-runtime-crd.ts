/**
 * The ServingRuntime and ClusterServingRuntime CRDs (see crd.ts): one spec, namespaced or
 * cluster-scoped, with KServe's field names. ModelMesh and multi-node fields are rejected
 * with a message rather than ignored. `multiModel: true` is accepted: such a runtime serves
 * TrainedModels (reconcile/multi-model/), its server pulling them itself.
 */
import { type CrdSource, type OpenApiSchema, customResourceDefinition, schema } from './crd.js';
import { PROTOCOL_VERSIONS } from './inference-service.js';
import { CLUSTER_SERVING_RUNTIME_PLURAL, RUNTIME_GROUP, RUNTIME_VERSION, SERVING_RUNTIME_PLURAL } from './serving-runtime.js';

const { string, boolean, anyObject, stringMap, listOf } = schema;

export const SERVING_RUNTIME_SPEC_SCHEMA: OpenApiSchema = {
  type: 'object',
  required: ['containers'],
  'x-kubernetes-validations': [
    schema.refuse('workerSpec', 'workerSpec (multi-node) is not supported by kserve-ts'),
    {
      rule: '!has(self.grpcEndpoint) && !has(self.grpcDataEndpoint) && !has(self.httpDataEndpoint) && !has(self.builtInAdapter) && !has(self.storageHelper) && !has(self.replicas)',
      message: 'ModelMesh fields (grpcEndpoint, grpcDataEndpoint, httpDataEndpoint, builtInAdapter, storageHelper, replicas) are not supported by kserve-ts',
    },
  ],
  properties: {
    supportedModelFormats: listOf({
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string', minLength: 1 },
        version: string,
        autoSelect: boolean,
        priority: { type: 'integer', format: 'int32', minimum: 1 },
      },
    }),
    protocolVersions: listOf({ type: 'string', enum: PROTOCOL_VERSIONS }),
    multiModel: boolean,
    disabled: boolean,
    containers: {
      type: 'array',
      minItems: 1,
      items: { type: 'object', required: ['name'], 'x-kubernetes-preserve-unknown-fields': true, properties: { name: string } },
    },
    volumes: listOf(anyObject),
    nodeSelector: stringMap,
    affinity: anyObject,
    tolerations: listOf(anyObject),
    imagePullSecrets: listOf({ type: 'object', properties: { name: string } }),
    schedulerName: string,
    resourceClaims: listOf(anyObject),
    labels: stringMap,
    annotations: stringMap,
    // Listed so the validation rules above can name them.
    workerSpec: anyObject,
    grpcEndpoint: string,
    grpcDataEndpoint: string,
    httpDataEndpoint: string,
    replicas: { type: 'integer' },
    builtInAdapter: anyObject,
    storageHelper: anyObject,
  },
};

function runtimeCrd(kind: 'ServingRuntime' | 'ClusterServingRuntime', plural: string, scope: CrdSource['scope']) {
  return customResourceDefinition({
    comment: `${kind} ${RUNTIME_VERSION} as implemented by kserve-ts (KServe's field names). ModelMesh and
multi-node fields are rejected with a message rather than ignored.`,
    group: RUNTIME_GROUP,
    version: RUNTIME_VERSION,
    kind,
    plural,
    singular: kind.toLowerCase(),
    scope,
    printerColumns: [
      { name: 'Disabled', type: 'boolean', jsonPath: '.spec.disabled' },
      { name: 'ModelType', type: 'string', jsonPath: '.spec.supportedModelFormats[*].name' },
      { name: 'Containers', type: 'string', jsonPath: '.spec.containers[*].name' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
    spec: SERVING_RUNTIME_SPEC_SCHEMA,
  });
}

export const SERVING_RUNTIME_CRD = runtimeCrd('ServingRuntime', SERVING_RUNTIME_PLURAL, 'Namespaced');
export const CLUSTER_SERVING_RUNTIME_CRD = runtimeCrd('ClusterServingRuntime', CLUSTER_SERVING_RUNTIME_PLURAL, 'Cluster');
