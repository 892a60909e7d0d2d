/**
 * The router's workload objects, as KServe's InferenceGraph controller makes them
 * (`pkg/controller/v1alpha1/inferencegraph/raw_ig.go`, `knative_reconciler.go`), every one
 * named after the graph and owned by it (deleting the graph deletes them):
 *
 * - the pod: one container from the `router` config (image, pull policy and secrets), args
 *   `--graph-json <spec>`, PROPAGATE_HEADERS from `headers.propagate`, the graph's
 *   resources or the config's, KServe's readiness probe (`/readyz` on 8080) and its
 *   restricted security context, no ServiceAccount token; the graph's affinity,
 *   tolerations, node selector, node name and ServiceAccount;
 * - Standard: a Deployment (`app: isvc.{graph}`), a Service with port 80 → 8080 named
 *   after the graph (KServe's) plus, beyond KServe, 8081 for the router's gRPC, and an HPA
 *   (cpu 80% unless scaleMetric / scaleTarget say otherwise; none when min = max);
 * - Knative: a Knative Service with KServe's autoscaling annotations and the graph's
 *   timeout.
 */
import type { V1Container, V1Deployment, V1OwnerReference, V1PodSpec, V1ResourceRequirements, V1Service } from '@kubernetes/client-node';
import { GRAPH_GROUP, GRAPH_KIND, GRAPH_VERSION, type InferenceGraph } from '../../api/inference-graph.js';
import type { AutoscalerConfig } from '../../config/inferenceservice-config.js';
import type { RouterConfig } from '../../config/router.js';
import {
  ANN_AUTOSCALER_CLASS,
  ANN_KNATIVE_AUTOSCALING_CLASS,
  ANN_KNATIVE_MAX_SCALE,
  ANN_KNATIVE_METRIC,
  ANN_KNATIVE_MIN_SCALE,
  ANN_KNATIVE_TARGET,
  DEFAULT_HTTP_PORT,
  LABEL_APP,
  SERVICE_PORT,
} from '../../constants.js';
import { KNATIVE_API_VERSION, type KnativeService } from '../knative/knative-service.js';
import { type ScalingDecision, scalingFor } from '../standard/hpa.js';

export const LABEL_GRAPH = 'serving.kserve.io/inferencegraph';
/** KServe's constants.KServeWorkloadKind. */
export const LABEL_WORKLOAD_KIND = 'serving.kserve.io/kind';
export const ROUTER_GRPC_PORT = 8081;
const KNATIVE_VISIBILITY_LABEL = 'networking.knative.dev/visibility';
/** Annotations that describe the graph object itself and must not reach its workloads. */
const NOT_PROPAGATED = ['kubectl.kubernetes.io/last-applied-configuration'];

export function graphOwner(ig: InferenceGraph): V1OwnerReference {
  return { apiVersion: `${GRAPH_GROUP}/${GRAPH_VERSION}`, kind: GRAPH_KIND, name: ig.metadata.name!, uid: ig.metadata.uid!, controller: true, blockOwnerDeletion: true };
}

export const routerAppLabel = (ig: InferenceGraph): string => `isvc.${ig.metadata.name!}`;

function graphAnnotations(ig: InferenceGraph): Record<string, string> {
  const out = { ...ig.metadata.annotations };
  for (const key of NOT_PROPAGATED) delete out[key];
  return out;
}

/** Labels of the graph's objects: its own, plus the graph label (KServe's constructForRawDeployment). */
function graphLabels(ig: InferenceGraph): Record<string, string> {
  return { ...ig.metadata.labels, [LABEL_GRAPH]: ig.metadata.name! };
}

export function graphMetadata(ig: InferenceGraph, extraLabels: Record<string, string> = {}) {
  return {
    name: ig.metadata.name!,
    namespace: ig.metadata.namespace!,
    labels: { ...graphLabels(ig), ...extraLabels },
    annotations: graphAnnotations(ig),
    ownerReferences: [graphOwner(ig)],
  };
}

function resources(ig: InferenceGraph, config: RouterConfig): V1ResourceRequirements {
  const r = ig.spec.resources;
  if (r && Object.values(r).some((v) => v !== undefined && (typeof v !== 'object' || Object.keys(v as object).length > 0))) return { limits: r.limits, requests: r.requests };
  return { limits: { cpu: config.cpuLimit, memory: config.memoryLimit }, requests: { cpu: config.cpuRequest, memory: config.memoryRequest } };
}

/** Unnamed: Knative names its container itself (KServe gives none); Standard mode adds the graph's name. */
function routerContainer(ig: InferenceGraph, config: RouterConfig, graphJson: string): Partial<V1Container> {
  return {
    image: config.image,
    ...(config.imagePullPolicy ? { imagePullPolicy: config.imagePullPolicy } : {}),
    args: ['--graph-json', graphJson],
    ...(config.propagateHeaders !== undefined ? { env: [{ name: 'PROPAGATE_HEADERS', value: config.propagateHeaders.join(',') }] } : {}),
    resources: resources(ig, config),
    readinessProbe: {
      httpGet: { path: '/readyz', port: DEFAULT_HTTP_PORT as never, scheme: 'HTTP' },
      initialDelaySeconds: 5,
      timeoutSeconds: 2,
      periodSeconds: 5,
      successThreshold: 1,
      failureThreshold: 3,
    },
    securityContext: { privileged: false, runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
  };
}

function routerPodSpec(ig: InferenceGraph, container: Partial<V1Container>, config: RouterConfig): V1PodSpec {
  const s = ig.spec;
  return {
    containers: [container as V1Container],
    automountServiceAccountToken: false,
    ...(s.affinity ? { affinity: s.affinity } : {}),
    ...(s.tolerations ? { tolerations: s.tolerations } : {}),
    ...(config.imagePullSecrets.length > 0 ? { imagePullSecrets: config.imagePullSecrets.map((name) => ({ name })) } : {}),
    ...(s.nodeSelector ? { nodeSelector: s.nodeSelector } : {}),
    ...(s.nodeName ? { nodeName: s.nodeName } : {}),
    ...(s.serviceAccountName ? { serviceAccountName: s.serviceAccountName } : {}),
  };
}

export function desiredRouterDeployment(ig: InferenceGraph, config: RouterConfig, graphJson: string, replicas: number | undefined): V1Deployment {
  const selector = { [LABEL_APP]: routerAppLabel(ig) };
  const container: V1Container = {
    ...routerContainer(ig, config, graphJson),
    name: ig.metadata.name!,
    // Not KServe's (its router declares none): the router's REST and gRPC listeners.
    ports: [
      { name: 'http', containerPort: DEFAULT_HTTP_PORT, protocol: 'TCP' },
      { name: 'grpc', containerPort: ROUTER_GRPC_PORT, protocol: 'TCP' },
    ],
  };
  const metadata = graphMetadata(ig, selector);
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata,
    spec: {
      ...(replicas !== undefined ? { replicas } : {}),
      selector: { matchLabels: selector },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      template: { metadata: { labels: metadata.labels, annotations: metadata.annotations }, spec: routerPodSpec(ig, container, config) },
    },
  };
}

export function desiredRouterService(ig: InferenceGraph, clusterIPNone: boolean): V1Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: graphMetadata(ig),
    spec: {
      selector: { [LABEL_APP]: routerAppLabel(ig) },
      ports: [
        { name: ig.metadata.name!, port: SERVICE_PORT, targetPort: DEFAULT_HTTP_PORT, protocol: 'TCP' },
        { name: 'grpc', port: ROUTER_GRPC_PORT, targetPort: ROUTER_GRPC_PORT, protocol: 'TCP', appProtocol: 'kubernetes.io/h2c' },
      ],
      ...(clusterIPNone ? { clusterIP: 'None' } : {}),
    },
  };
}

/** The HPA, or the replica count to declare when there is none (KServe's autoscaler reconciler, as for a component). */
export function routerScaling(ig: InferenceGraph, autoscaler: AutoscalerConfig): ScalingDecision {
  return scalingFor(ig.spec, ig.metadata.annotations?.[ANN_AUTOSCALER_CLASS], autoscaler, graphMetadata(ig));
}

/** KServe's createKnativeService for a graph. */
export function desiredRouterKnativeService(ig: InferenceGraph, config: RouterConfig, graphJson: string): KnativeService {
  const s = ig.spec;
  const annotations = graphAnnotations(ig);
  annotations[ANN_KNATIVE_AUTOSCALING_CLASS] ??= 'kpa.autoscaling.knative.dev';
  if (s.scaleTarget !== undefined) annotations[ANN_KNATIVE_TARGET] = String(s.scaleTarget);
  if (s.scaleMetric !== undefined) annotations[ANN_KNATIVE_METRIC] = s.scaleMetric;
  annotations[ANN_KNATIVE_MIN_SCALE] = String(s.minReplicas ?? 1);
  if (s.maxReplicas !== undefined && s.maxReplicas !== 0) annotations[ANN_KNATIVE_MAX_SCALE] = String(s.maxReplicas);
  const templateLabels: Record<string, string> = { ...graphLabels(ig), [LABEL_WORKLOAD_KIND]: 'InferenceGraph' };
  delete templateLabels[KNATIVE_VISIBILITY_LABEL];
  return {
    apiVersion: KNATIVE_API_VERSION,
    kind: 'Service',
    metadata: { name: ig.metadata.name!, namespace: ig.metadata.namespace!, labels: { ...ig.metadata.labels }, annotations: {}, ownerReferences: [graphOwner(ig)] },
    spec: {
      template: {
        metadata: { labels: templateLabels, annotations },
        spec: { ...routerPodSpec(ig, routerContainer(ig, config, graphJson), config), ...(s.timeout !== undefined ? { timeoutSeconds: s.timeout } : {}) },
      },
      traffic: [{ latestRevision: true, percent: 100 }],
    },
  };
}
