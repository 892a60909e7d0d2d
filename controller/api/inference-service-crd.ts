/**
 * The InferenceService CRD: the one description of its fields (see crd.ts). Field names are
 * KServe's, so manifests written for KServe apply unchanged. Fields KServe has and kserve-ts
 * does not implement are listed and refused by a validation rule whose message says so (not
 * silently pruned); any other unknown field is refused by strict field validation (kubectl's
 * default) and pruned otherwise.
 *
 * Adding a component field: a property in COMPONENT_EXTENSION below (or in one component),
 * the field in the TypeScript type (api/inference-service.ts; the test says which one is
 * missing), `npm run crds`. The admission shape and the pod-field split follow from here.
 */
import { KSERVE_CONTAINER } from '../constants.js';
import { type OpenApiSchema, type ValidationRule, customResourceDefinition, schema } from './crd.js';
import { ISVC_GROUP, ISVC_KIND, ISVC_PLURAL, ISVC_VERSION, METRIC_SOURCE_TYPES, METRIC_TARGET_TYPES, PREDICTOR_NAME_FORMAT, PROTOCOL_VERSIONS } from './inference-service.js';
import { LEGACY_FRAMEWORK_FIELDS } from './model-spec.js';

const { string, boolean, anyObject, stringMap, listOf, refuse } = schema;
const int32 = (minimum?: number): OpenApiSchema => ({ type: 'integer', format: 'int32', ...(minimum === undefined ? {} : { minimum }) });
const int64 = (minimum?: number): OpenApiSchema => ({ type: 'integer', format: 'int64', ...(minimum === undefined ? {} : { minimum }) });
const anyObjects = listOf(anyObject);
/** A named item whose other fields the API server validates when the Deployment is applied. */
const namedItem = (): OpenApiSchema => ({ type: 'object', required: ['name'], 'x-kubernetes-preserve-unknown-fields': true, properties: { name: string } });

const protocolVersion: OpenApiSchema = { type: 'string', enum: PROTOCOL_VERSIONS };

const storage: OpenApiSchema = {
  type: 'object',
  properties: { key: string, path: string, serviceAccountName: string, parameters: stringMap },
};

/** `predictor.model`: a container (kept as written) plus the model's own fields. */
export const MODEL_SCHEMA: OpenApiSchema = {
  type: 'object',
  required: ['modelFormat'],
  'x-kubernetes-preserve-unknown-fields': true,
  properties: {
    modelFormat: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1 }, version: string } },
    runtime: string,
    storageUri: string,
    runtimeVersion: string,
    protocolVersion,
    storage,
  },
};

/** KServe's legacy framework specs: a container plus the model fields; the defaulting webhook rewrites each into `model` with that format. */
export const LEGACY_FRAMEWORK_SCHEMA: OpenApiSchema = {
  type: 'object',
  'x-kubernetes-preserve-unknown-fields': true,
  properties: { storageUri: string, runtimeVersion: string, protocolVersion, storage },
};

/** A container (or init container) of a component: its other fields are the Kubernetes Container type's. */
export const CONTAINER_SCHEMA: OpenApiSchema = namedItem();

const containers: OpenApiSchema = { type: 'array', maxItems: 64, items: CONTAINER_SCHEMA };

/**
 * The PodSpec KServe inlines into every component, `containers` excepted (each component
 * says how many it needs). Pod and container contents are validated by the API server when
 * the Deployment is applied.
 */
export const POD_FIELDS: Readonly<Record<string, OpenApiSchema>> = {
  activeDeadlineSeconds: int64(1),
  affinity: anyObject,
  automountServiceAccountToken: boolean,
  dnsConfig: anyObject,
  dnsPolicy: string,
  enableServiceLinks: boolean,
  ephemeralContainers: anyObjects,
  hostAliases: anyObjects,
  hostIPC: boolean,
  hostNetwork: boolean,
  hostPID: boolean,
  hostUsers: boolean,
  hostname: string,
  hostnameOverride: string,
  imagePullSecrets: listOf({ type: 'object', properties: { name: string } }),
  initContainers: listOf(CONTAINER_SCHEMA),
  nodeName: string,
  nodeSelector: stringMap,
  os: anyObject,
  overhead: anyObject,
  preemptionPolicy: string,
  priority: int32(),
  priorityClassName: string,
  readinessGates: anyObjects,
  resourceClaims: anyObjects,
  resources: anyObject,
  restartPolicy: string,
  runtimeClassName: string,
  schedulerName: string,
  schedulingGates: anyObjects,
  securityContext: anyObject,
  serviceAccount: string,
  serviceAccountName: string,
  setHostnameAsFQDN: boolean,
  shareProcessNamespace: boolean,
  subdomain: string,
  terminationGracePeriodSeconds: int64(0),
  tolerations: anyObjects,
  topologySpreadConstraints: anyObjects,
  volumes: listOf(namedItem()),
};

/** A Kubernetes quantity as written: KServe hands the text to KEDA unchanged. */
const quantity: OpenApiSchema = { 'x-kubernetes-int-or-string': true };
const metricTargetType: OpenApiSchema = { type: 'string', enum: METRIC_TARGET_TYPES };
const metricTarget: OpenApiSchema = {
  type: 'object',
  properties: { type: metricTargetType, value: quantity, averageValue: quantity, averageUtilization: int32() },
};
const objectOf = (required: readonly string[], properties: Record<string, OpenApiSchema>): OpenApiSchema => ({ type: 'object', required, properties });

/**
 * KServe's `AutoScalingSpec`: HPA v2 metrics in KServe's shape (Resource for the HPA;
 * External and PodMetric become KEDA triggers) and the HPA's `behavior`, which the API
 * server validates when the HPA (or KEDA's) is applied.
 */
const AUTO_SCALING: OpenApiSchema = {
  type: 'object',
  properties: {
    metrics: listOf(
      objectOf(['type'], {
        type: { type: 'string', enum: METRIC_SOURCE_TYPES },
        resource: objectOf(['name', 'target'], { name: { type: 'string', enum: ['cpu', 'memory'] }, target: metricTarget }),
        external: objectOf(['metric', 'target'], {
          metric: { type: 'object', properties: { backend: { type: 'string', enum: ['prometheus', 'graphite'] }, serverAddress: string, query: string, namespace: string } },
          authenticationRef: objectOf(['authenticationRef'], { authenticationRef: objectOf(['name'], { name: string }), authModes: string }),
          target: metricTarget,
        }),
        podmetric: objectOf(['metric', 'target'], {
          metric: {
            type: 'object',
            properties: { backend: { type: 'string', enum: ['opentelemetry'] }, serverAddress: string, metricNames: listOf(string), query: string, operationOverTime: string },
          },
          target: metricTarget,
        }),
      }),
    ),
    behavior: anyObject,
  },
};

/** `appsv1.DeploymentStrategy`: Standard mode's Deployment takes it as written. */
const DEPLOYMENT_STRATEGY: OpenApiSchema = {
  type: 'object',
  properties: {
    type: { type: 'string', enum: ['Recreate', 'RollingUpdate'] },
    rollingUpdate: { type: 'object', properties: { maxSurge: quantity, maxUnavailable: quantity } },
  },
};

/** KServe's `ComponentExtensionSpec` fields that kserve-ts implements on every component. */
const COMPONENT_EXTENSION: Readonly<Record<string, OpenApiSchema>> = {
  minReplicas: int32(0),
  maxReplicas: int32(0),
  scaleTarget: int32(1),
  scaleMetric: { type: 'string', enum: ['cpu', 'memory', 'concurrency', 'rps'] },
  scaleMetricType: metricTargetType,
  autoScaling: AUTO_SCALING,
  deploymentStrategy: DEPLOYMENT_STRATEGY,
  containerConcurrency: int64(0),
  timeout: int64(1),
  labels: stringMap,
  annotations: stringMap,
};

/**
 * KServe's `LoggerSpec`. The server logs in process (--logger_* arguments); what only
 * KServe's agent sidecar does is refused here and by the validator.
 */
const LOGGER: OpenApiSchema = {
  type: 'object',
  'x-kubernetes-validations': [
    refuse('storage', 'logger.storage (request logs written to storage) is not supported by kserve-ts: its server sends CloudEvents to logger.url'),
    refuse('metadataAnnotations', 'logger.metadataAnnotations is not supported by kserve-ts: use logger.metadataHeaders'),
    refuse('marshallerUrl', 'logger.marshallerUrl is not supported by kserve-ts: events are sent as JSON CloudEvents'),
    {
      rule: '!has(self.batchSize) && !has(self.batchInterval)',
      message: 'logger.batchSize and logger.batchInterval are not supported by kserve-ts: each event is sent on its own',
    },
  ],
  properties: {
    url: string,
    mode: { type: 'string', enum: ['all', 'request', 'response'] },
    metadataHeaders: { type: 'array', maxItems: 64, items: { type: 'string', minLength: 1 } },
    metadataAnnotations: listOf(string),
    storage: anyObject,
    marshallerUrl: string,
    batchSize: { type: 'integer' },
    batchInterval: { 'x-kubernetes-int-or-string': true },
  },
};

/** The fields every component ends with: the logger, and KServe's batcher (listed so it is refused by name). */
const COMPONENT_TAIL: Readonly<Record<string, OpenApiSchema>> = { logger: LOGGER, batcher: anyObject };

function refusedBatcher(component: string, hint = ''): ValidationRule[] {
  return [refuse('batcher', `${component}.batcher is not supported by kserve-ts${hint}`)];
}

/**
 * KServe's GetImplementations: each framework spec and model count one; the containers count
 * one when one is named kserve-container, or when nothing else is set (so model + a
 * transformer-container sidecar is one). The message is KServe's.
 */
function exactlyOneImplementation(): ValidationRule {
  const specs = `[${[...LEGACY_FRAMEWORK_FIELDS, 'model'].map((f) => `has(self.${f})`).join(', ')}].filter(x, x).size()`;
  return {
    rule:
      `${specs} + (has(self.containers) && self.containers.exists(c, c.name == '${KSERVE_CONTAINER}') ? 1 : 0) == 1` +
      ` || (${specs} == 0 && has(self.containers) && size(self.containers) > 0)`,
    message:
      'exactly one of [Name, SKLearn, XGBoost, Tensorflow, PyTorch, Triton, ONNX, HuggingFace, PMML, LightGBM, Paddle, Model, StorageUris, StorageContainerName, WorkerSpec, PodSpec] must be specified in PredictorSpec',
  };
}

export const PREDICTOR_SCHEMA: OpenApiSchema = {
  type: 'object',
  'x-kubernetes-validations': [
    refuse('storageUris', 'predictor.storageUris is not supported by kserve-ts; use predictor.model.storageUri'),
    refuse('workerSpec', 'predictor.workerSpec (multi-node) is not supported by kserve-ts'),
    ...refusedBatcher('predictor', "; configure dynamic batching in the model's config.pbtxt"),
    refuse('storageContainerName', 'predictor.storageContainerName is not supported by kserve-ts (no ClusterStorageContainer selection)'),
    exactlyOneImplementation(),
  ],
  properties: {
    // KServe's pattern: the name goes into `{isvc}-{name}-predictor`, a DNS label.
    name: { type: 'string', pattern: `^${PREDICTOR_NAME_FORMAT}$` },
    model: MODEL_SCHEMA,
    ...Object.fromEntries(LEGACY_FRAMEWORK_FIELDS.map((f) => [f, LEGACY_FRAMEWORK_SCHEMA])),
    containers,
    ...POD_FIELDS,
    ...COMPONENT_EXTENSION,
    canaryTrafficPercent: { type: 'integer', format: 'int64', minimum: 0, maximum: 100 },
    // Listed so the validation rules above can name them.
    storageUris: anyObjects,
    storageContainerName: string,
    workerSpec: anyObject,
    ...COMPONENT_TAIL,
  },
};

export const TRANSFORMER_SCHEMA: OpenApiSchema = {
  type: 'object',
  required: ['containers'],
  'x-kubernetes-validations': refusedBatcher('transformer'),
  properties: { containers, ...POD_FIELDS, ...COMPONENT_EXTENSION, ...COMPONENT_TAIL },
};

/**
 * KServe's ExplainerSpec with custom containers. The built-in explainers are listed so they
 * are refused by name: ART (still in KServe), and alibi (which KServe removed).
 */
export const EXPLAINER_SCHEMA: OpenApiSchema = {
  type: 'object',
  'x-kubernetes-validations': [
    {
      rule: '!has(self.art) && !has(self.alibi)',
      message: 'built-in explainers (explainer.art, explainer.alibi) are not supported by kserve-ts: give explainer.containers running your explainer',
    },
    { rule: 'has(self.art) || has(self.alibi) || (has(self.containers) && size(self.containers) > 0)', message: 'spec.explainer.containers must name at least one container' },
    ...refusedBatcher('explainer'),
  ],
  properties: { containers, ...POD_FIELDS, ...COMPONENT_EXTENSION, ...COMPONENT_TAIL, art: anyObject, alibi: anyObject },
};

/**
 * KServe's `CanarySpec`: the predictor fields that differ from the stable one's, and the
 * share of traffic (KServe's markers: 0..100). The other rules (name required and unique,
 * the sum at most 100, Standard mode only) are the validating webhook's, with KServe's words.
 */
const CANARY_SCHEMA: OpenApiSchema = objectOf(['predictor', 'trafficPercent'], {
  predictor: PREDICTOR_SCHEMA,
  trafficPercent: { type: 'integer', format: 'int32', minimum: 0, maximum: 100 },
});

export const INFERENCE_SERVICE_SPEC_SCHEMA: OpenApiSchema = {
  type: 'object',
  required: ['predictor'],
  properties: {
    predictor: PREDICTOR_SCHEMA,
    transformer: TRANSFORMER_SCHEMA,
    explainer: EXPLAINER_SCHEMA,
    // Bounded so the API server can bound the cost of each canary's validation rules.
    canary: { type: 'array', maxItems: 16, items: CANARY_SCHEMA },
  },
};

/** The components of an InferenceService, in the order their objects are made. */
export const COMPONENT_SCHEMAS = { predictor: PREDICTOR_SCHEMA, transformer: TRANSFORMER_SCHEMA, explainer: EXPLAINER_SCHEMA } as const;

export const INFERENCE_SERVICE_CRD = customResourceDefinition({
  comment: `InferenceService ${ISVC_VERSION} as implemented by kserve-ts. Field names are KServe's, so
manifests written for KServe apply unchanged. Fields KServe has and kserve-ts does not
implement are listed and rejected by a validation rule with a message saying so (not
silently pruned); any other unknown field is rejected by strict field validation
(kubectl's default) and pruned otherwise.`,
  group: ISVC_GROUP,
  version: ISVC_VERSION,
  kind: ISVC_KIND,
  plural: ISVC_PLURAL,
  singular: 'inferenceservice',
  shortNames: ['isvc'],
  scope: 'Namespaced',
  printerColumns: [
    { name: 'URL', type: 'string', jsonPath: '.status.url' },
    { name: 'Ready', type: 'string', jsonPath: ".status.conditions[?(@.type=='Ready')].status" },
    { name: 'Mode', type: 'string', jsonPath: '.status.deploymentMode' },
    { name: 'Runtime', type: 'string', priority: 1, jsonPath: '.status.servingRuntimeName' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
  spec: INFERENCE_SERVICE_SPEC_SCHEMA,
});
