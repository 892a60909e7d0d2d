/**
 * The predictor's pod, as KServe's `buildPodSpec` makes it: the selected runtime's pod fields
 * with the predictor's PodSpec strategic-merged over them (`MergePodSpec`), the runtime's
 * `kserve-container` with the model's container fields strategic-merged over it
 * (`MergeRuntimeContainers`: env by name, ports by containerPort, volumeMounts by mountPath,
 * args appended), then a `transformer-container` (the runtime's and the predictor's merged),
 * the runtime's other containers and the predictor's other containers. Placeholders are
 * rendered, and the storage URI is handed to the pod webhook through annotations.
 */
import type { V1Container, V1ContainerPort, V1EnvVar, V1PodSpec } from '@kubernetes/client-node';
import type { InferenceService, ModelSpec } from '../api/inference-service.js';
import type { ServingRuntime } from '../api/serving-runtime.js';
import type { InferenceServiceConfig } from '../config/inferenceservice-config.js';
import {
  ANN_STORAGE_INITIALIZER_SOURCE_URI,
  ANN_STORAGE_SPEC,
  ANN_STORAGE_SPEC_KEY,
  ANN_STORAGE_SPEC_PARAM,
  DEFAULT_HTTP_PORT,
  KSERVE_CONTAINER,
  TRANSFORMER_CONTAINER,
  URI_SCHEME_PLACEHOLDER,
  predictorName,
} from '../constants.js';
import { componentAnnotations, componentLabels } from './component-metadata.js';
import type { ComponentPlan } from './component-plan.js';
import { componentPodSpec } from './component-pod-spec.js';
import { renderContainer } from './placeholders.js';
import { mergeContainer, mergePodSpec } from './strategic-merge.js';

/** ModelSpec fields that describe the model, not the container. */
const MODEL_ONLY_FIELDS = ['modelFormat', 'runtime', 'storageUri', 'runtimeVersion', 'protocolVersion', 'storage'] as const;

export function planRuntimePredictor(isvc: InferenceService, model: ModelSpec, runtime: ServingRuntime, config: InferenceServiceConfig): ComponentPlan {
  const predictor = isvc.spec.predictor;
  const templates = runtime.spec.containers;
  const main = templates.find((c) => c.name === KSERVE_CONTAINER) ?? templates[0]!;
  const merged = withRuntimeVersion(mergeContainer(main, containerFieldsOf(model)), main, model);
  const storageUri = model.storageUri ?? storageSpecUri(model);
  const container = withDefaults(renderContainer({ ...merged, name: KSERVE_CONTAINER }, isvc.metadata), config, storageUri);
  const own = predictor.containers ?? [];
  const runtimeTransformer = templates.find((c) => c.name === TRANSFORMER_CONTAINER);
  const ownTransformer = own.find((c) => c.name === TRANSFORMER_CONTAINER);
  const transformer = runtimeTransformer && ownTransformer ? mergeContainer(runtimeTransformer, ownTransformer) : (runtimeTransformer ?? ownTransformer);
  const containers = [
    container,
    ...(transformer ? [renderContainer(transformer, isvc.metadata)] : []),
    ...templates.filter((c) => c !== main && c.name !== TRANSFORMER_CONTAINER).map((c) => renderContainer(c, isvc.metadata)),
    ...own.filter((c) => c.name !== TRANSFORMER_CONTAINER),
  ];
  const podSpec: V1PodSpec = { ...mergePodSpec(runtimePodFields(runtime), componentPodSpec(predictor)), containers };
  const annotations = componentAnnotations(isvc, runtime.spec.annotations, predictor.annotations);
  return {
    component: 'predictor',
    name: predictorName(isvc.metadata.name!, predictor.name),
    labels: componentLabels(isvc, 'predictor', runtime.spec.labels, predictor.labels),
    annotations,
    podAnnotations: { ...annotations, ...storageAnnotations(model, storageUri) },
    podSpec,
    ports: portsOf(container),
    scaling: predictor,
  };
}

/** A predictor given as plain containers (custom predictor): no runtime involved, its PodSpec as written. */
export function planCustomPredictor(isvc: InferenceService, config: InferenceServiceConfig): ComponentPlan {
  const predictor = isvc.spec.predictor;
  const all = predictor.containers ?? [];
  // KServe's custom predictor: the container named kserve-container, else the first.
  const first = all.find((c) => c.name === KSERVE_CONTAINER) ?? all[0]!;
  const rest = all.filter((c) => c !== first);
  const storageUri = first.env?.find((e) => e.name === 'STORAGE_URI')?.value;
  const container = withDefaults(renderContainer({ ...first, name: KSERVE_CONTAINER }, isvc.metadata), config, undefined);
  const annotations = componentAnnotations(isvc, predictor.annotations);
  return {
    component: 'predictor',
    name: predictorName(isvc.metadata.name!, predictor.name),
    labels: componentLabels(isvc, 'predictor', predictor.labels),
    annotations,
    podAnnotations: {
      ...annotations,
      ...(storageUri ? { [ANN_STORAGE_INITIALIZER_SOURCE_URI]: storageUri } : {}),
    },
    podSpec: { ...componentPodSpec(predictor), containers: [container, ...rest] },
    ports: portsOf(container),
    scaling: predictor,
  };
}

/** The pod fields a ServingRuntime may set (KServe's MergePodSpec base). */
function runtimePodFields(runtime: ServingRuntime): Partial<V1PodSpec> {
  const { nodeSelector, affinity, tolerations, volumes, imagePullSecrets, schedulerName, resourceClaims } = runtime.spec;
  return Object.fromEntries(Object.entries({ nodeSelector, affinity, tolerations, volumes, imagePullSecrets, schedulerName, resourceClaims }).filter(([, v]) => v !== undefined));
}

function containerFieldsOf(model: ModelSpec): Partial<V1Container> {
  const fields: Record<string, unknown> = { ...model };
  for (const k of MODEL_ONLY_FIELDS) delete fields[k];
  return fields;
}

/** `runtimeVersion` replaces the runtime image's tag unless the ISVC names its own image. */
function withRuntimeVersion(merged: V1Container, runtime: V1Container, model: ModelSpec): V1Container {
  if (model.image || !model.runtimeVersion || !runtime.image) return merged;
  return { ...merged, image: `${runtime.image.replace(/:[^:/]+$/, '')}:${model.runtimeVersion}` };
}

function mergeEnv(base: V1EnvVar[] | undefined, override: V1EnvVar[] | undefined): V1EnvVar[] {
  const out = [...(base ?? [])];
  for (const e of override ?? []) {
    const i = out.findIndex((b) => b.name === e.name);
    if (i >= 0) out[i] = e;
    else out.push(e);
  }
  return out;
}

/** Default resources (KServe's defaulter) and the STORAGE_URI the webhook rewrites. */
function withDefaults(container: V1Container, config: InferenceServiceConfig, storageUri: string | undefined): V1Container {
  const r = config.resources;
  const resources = container.resources ?? {
    requests: { cpu: r.cpuRequest, memory: r.memoryRequest },
    limits: { cpu: r.cpuLimit, memory: r.memoryLimit },
  };
  const env = storageUri ? mergeEnv(container.env, [{ name: 'STORAGE_URI', value: storageUri }]) : container.env;
  return { ...container, resources, ...(env && env.length > 0 ? { env } : {}) };
}

function portsOf(container: V1Container): V1ContainerPort[] {
  return container.ports && container.ports.length > 0 ? container.ports : [{ containerPort: DEFAULT_HTTP_PORT, name: 'http1', protocol: 'TCP' }];
}

/**
 * `storage` spec (KServe's storage-config secret): `s3://<bucket>/<path>` when the bucket
 * is a parameter, else KServe's placeholder URI, which the pod webhook completes from the
 * secret entry.
 */
function storageSpecUri(model: ModelSpec): string | undefined {
  const s = model.storage;
  if (!s?.path) return undefined;
  const path = s.path.replace(/^\//, '');
  const bucket = s.parameters?.bucket;
  return bucket ? `s3://${bucket}/${path}` : `${URI_SCHEME_PLACEHOLDER}://${path}`;
}

function storageAnnotations(model: ModelSpec, storageUri: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (storageUri) out[ANN_STORAGE_INITIALIZER_SOURCE_URI] = storageUri;
  if (model.storage) {
    out[ANN_STORAGE_SPEC] = 'true';
    if (model.storage.parameters) out[ANN_STORAGE_SPEC_PARAM] = JSON.stringify(model.storage.parameters);
    if (model.storage.key) out[ANN_STORAGE_SPEC_KEY] = model.storage.key;
  }
  return out;
}
