/**
 * The InferenceGraph CRD (see crd.ts), KServe's schema: `nodes` (required) maps node names
 * to routers (`routerType` required, one of KServe's four), each with steps; the router
 * workload's pod and scaling fields beside it. The rules KServe checks in its webhook
 * (a root node, one target per step, splitter weights, unique step names) are the
 * validating webhook's (webhooks/graph/), with KServe's messages.
 */
import { type OpenApiSchema, customResourceDefinition, schema } from './crd.js';
import { GRAPH_GROUP, GRAPH_KIND, GRAPH_PLURAL, GRAPH_SCALE_METRICS, GRAPH_VERSION, ROUTER_TYPES, STEP_DEPENDENCIES } from './inference-graph.js';

const { string, boolean, anyObject, stringMap, listOf } = schema;
const int32: OpenApiSchema = { type: 'integer', format: 'int32' };
const int64: OpenApiSchema = { type: 'integer', format: 'int64' };

export const INFERENCE_STEP_SCHEMA: OpenApiSchema = {
  type: 'object',
  properties: {
    name: string,
    nodeName: string,
    serviceName: string,
    serviceUrl: string,
    data: string,
    mapPredictionsToInstances: boolean,
    weight: int64,
    condition: string,
    dependency: { type: 'string', enum: STEP_DEPENDENCIES },
  },
};

export const INFERENCE_ROUTER_SCHEMA: OpenApiSchema = {
  type: 'object',
  required: ['routerType'],
  properties: {
    routerType: { type: 'string', enum: ROUTER_TYPES },
    steps: listOf(INFERENCE_STEP_SCHEMA),
  },
};

export const INFERENCE_GRAPH_SPEC_SCHEMA: OpenApiSchema = {
  type: 'object',
  required: ['nodes'],
  properties: {
    nodes: { type: 'object', additionalProperties: INFERENCE_ROUTER_SCHEMA },
    // ResourceRequirements; the API server validates the quantities when the router's pod is made.
    resources: { type: 'object', properties: { limits: anyObject, requests: anyObject, claims: listOf(anyObject) } },
    affinity: anyObject,
    timeout: int64,
    routerTimeouts: { type: 'object', properties: { serverRead: int64, serverWrite: int64, serverIdle: int64, serviceClient: int64 } },
    minReplicas: int32,
    maxReplicas: int32,
    scaleTarget: int32,
    scaleMetric: { type: 'string', enum: GRAPH_SCALE_METRICS },
    tolerations: listOf(anyObject),
    nodeSelector: stringMap,
    nodeName: string,
    serviceAccountName: string,
  },
};

export const INFERENCE_GRAPH_CRD = customResourceDefinition({
  comment: `InferenceGraph ${GRAPH_VERSION} as implemented by kserve-ts: KServe's schema and field names, so graphs
written for KServe apply unchanged. The router runs kserve-ts's router (or any image taking
KServe's --graph-json), configured by the router key of inferenceservice-config.`,
  group: GRAPH_GROUP,
  version: GRAPH_VERSION,
  kind: GRAPH_KIND,
  plural: GRAPH_PLURAL,
  singular: GRAPH_KIND.toLowerCase(),
  shortNames: ['ig'],
  scope: 'Namespaced',
  printerColumns: [
    { name: 'URL', type: 'string', jsonPath: '.status.url' },
    { name: 'Ready', type: 'string', jsonPath: ".status.conditions[?(@.type=='Ready')].status" },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
  spec: INFERENCE_GRAPH_SPEC_SCHEMA,
});
