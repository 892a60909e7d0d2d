/**
 * InferenceGraph v1alpha1 (KServe's `pkg/apis/serving/v1alpha1/inference_graph.go`): a
 * graph of router nodes (Sequence, Switch, Ensemble, Splitter) whose steps call
 * InferenceServices (`serviceName`), URLs (`serviceUrl`) or other nodes (`nodeName`), run
 * by one router workload. Field names are KServe's, so graphs written for KServe apply
 * unchanged. These types have exactly the CRD schema's fields
 * (inference-graph-crd.ts, checked by test/controller/crd-schema.test.ts).
 */
import type { V1ObjectMeta, V1ResourceRequirements } from '@kubernetes/client-node';
import type { Condition, ScaleMetric } from './inference-service.js';

export const GRAPH_GROUP = 'serving.kserve.io';
export const GRAPH_VERSION = 'v1alpha1';
export const GRAPH_PLURAL = 'inferencegraphs';
export const GRAPH_KIND = 'InferenceGraph';

export const ROUTER_TYPES = ['Sequence', 'Splitter', 'Ensemble', 'Switch'] as const;
export type RouterType = (typeof ROUTER_TYPES)[number];
export const STEP_DEPENDENCIES = ['Soft', 'Hard'] as const;
export type StepDependency = (typeof STEP_DEPENDENCIES)[number];
export const GRAPH_SCALE_METRICS: readonly ScaleMetric[] = ['cpu', 'memory', 'concurrency', 'rps'];

/** The node every request enters (KServe's GraphRootNodeName). */
export const ROOT_NODE = 'root';

export interface InferenceStep {
  /** Unique within its node: the key of its answer in an ensemble. */
  name?: string;
  nodeName?: string;
  /** An InferenceService of the graph's namespace; the controller resolves its URL. */
  serviceName?: string;
  serviceUrl?: string;
  /** `$request` or `$response`. */
  data?: string;
  mapPredictionsToInstances?: boolean;
  /** Splitter: the share of traffic, out of 100 for the node. */
  weight?: number;
  /** A gjson path: the step is taken when it exists. */
  condition?: string;
  dependency?: StepDependency;
}

export interface InferenceRouter {
  routerType: RouterType;
  steps?: InferenceStep[];
}

export interface RouterTimeouts {
  serverRead?: number;
  serverWrite?: number;
  serverIdle?: number;
  serviceClient?: number;
}

export interface InferenceGraphSpec {
  nodes: Record<string, InferenceRouter>;
  resources?: V1ResourceRequirements;
  affinity?: Record<string, unknown>;
  /** Seconds (Knative: the revision's timeoutSeconds). */
  timeout?: number;
  routerTimeouts?: RouterTimeouts;
  minReplicas?: number;
  maxReplicas?: number;
  scaleTarget?: number;
  scaleMetric?: ScaleMetric;
  tolerations?: Record<string, unknown>[];
  nodeSelector?: Record<string, string>;
  nodeName?: string;
  serviceAccountName?: string;
}

export interface InferenceGraphStatus {
  observedGeneration?: number;
  conditions?: Condition[];
  url?: string;
  /** Not KServe's: the router's in-cluster URL. */
  address?: { url?: string };
  deploymentMode?: string;
}

export interface InferenceGraph {
  apiVersion?: string;
  kind?: string;
  metadata: V1ObjectMeta;
  spec: InferenceGraphSpec;
  status?: InferenceGraphStatus;
}
