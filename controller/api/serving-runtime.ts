/**
 * ServingRuntime / ClusterServingRuntime v1alpha1 (KServe's `servingruntime_types.go`):
 * the same spec, namespaced or cluster-scoped.
 */
import type { V1Affinity, V1Container, V1ObjectMeta, V1PodResourceClaim, V1Toleration, V1Volume } from '@kubernetes/client-node';
import type { ProtocolVersion } from './inference-service.js';

export const RUNTIME_GROUP = 'serving.kserve.io';
export const RUNTIME_VERSION = 'v1alpha1';
export const SERVING_RUNTIME_PLURAL = 'servingruntimes';
export const CLUSTER_SERVING_RUNTIME_PLURAL = 'clusterservingruntimes';

export interface SupportedModelFormat {
  name: string;
  version?: string;
  autoSelect?: boolean;
  /** Higher wins; only meaningful with autoSelect. */
  priority?: number;
}

export interface ServingRuntimeSpec {
  supportedModelFormats?: SupportedModelFormat[];
  protocolVersions?: ProtocolVersion[];
  multiModel?: boolean;
  disabled?: boolean;
  containers: V1Container[];
  volumes?: V1Volume[];
  nodeSelector?: Record<string, string>;
  imagePullSecrets?: { name: string }[];
  affinity?: V1Affinity;
  tolerations?: V1Toleration[];
  schedulerName?: string;
  resourceClaims?: V1PodResourceClaim[];
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** Refused by the CRD: multi-node and ModelMesh. */
  workerSpec?: unknown;
  grpcEndpoint?: unknown;
  grpcDataEndpoint?: unknown;
  httpDataEndpoint?: unknown;
  replicas?: unknown;
  builtInAdapter?: unknown;
  storageHelper?: unknown;
}

export interface ServingRuntime {
  apiVersion: string;
  kind: 'ServingRuntime' | 'ClusterServingRuntime';
  metadata: V1ObjectMeta;
  spec: ServingRuntimeSpec;
}
