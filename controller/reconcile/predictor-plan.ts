/**
 * The predictor's pod: the selected runtime's container template merged with the
 * InferenceService's model container fields (KServe's MergeRuntimeContainers: the ISVC
 * wins field by field, env merges by name, args are appended), placeholders rendered,
 * and the storage URI handed to the pod webhook through annotations.
 */
import type { V1Container, V1ContainerPort, V1EnvVar, V1PodSpec } from '@kubernetes/client-node';
import type { InferenceService, ModelSpec, PredictorSpec } from '../api/inference-service.js';
import type { ServingRuntime } from '../api/serving-runtime.js';
import type { InferenceServiceConfig } from '../config/inferenceservice-config.js';
import {
  ANN_STORAGE_INITIALIZER_SOURCE_URI,
  ANN_STORAGE_SPEC,
  ANN_STORAGE_SPEC_KEY,
  ANN_STORAGE_SPEC_PARAM,
  DEFAULT_HTTP_PORT,
  KSERVE_CONTAINER,
  URI_SCHEME_PLACEHOLDER,
  componentName,
} from '../constants.js';
import { componentAnnotations, componentLabels } from './component-metadata.js';
import type { ComponentPlan } from './component-plan.js';
import { renderContainer } from './placeholders.js';

/** ModelSpec fields that describe the model, not the container. */
const MODEL_ONLY_FIELDS = ['modelFormat', 'runtime', 'storageUri', 'runtimeVersion', 'protocolVersion', 'storage'] as const;

export function planRuntimePredictor(
  isvc: InferenceService,
  model: ModelSpec,
  runtime: ServingRuntime,
  config: InferenceServiceConfig,
): ComponentPlan {
  const predictor = isvc.spec.predictor;
  const templates = runtime.spec.containers;
  const main = templates.find((c) => c.name === KSERVE_CONTAINER) ?? templates[0]!;
  const sidecars = templates.filter((c) => c !== main);
  const modelContainer = containerFieldsOf(model);
  const merged = mergeContainers(main, modelContainer, model.runtimeVersion);
  const storageUri = model.storageUri ?? storageSpecUri(model);
  const container = withDefaults(renderContainer({ ...merged, name: KSERVE_CONTAINER }, isvc.metadata), config, storageUri);
  const podSpec: V1PodSpec = {
    ...podFields(predictor),
    containers: [container, ...sidecars.map((c) => renderContainer(c, isvc.metadata))],
    ...(runtime.spec.volumes ? { volumes: runtime.spec.volumes } : {}),
    ...mergeNodeSelector(runtime.spec.nodeSelector, predictor.nodeSelector),
    ...mergePullSecrets(runtime.spec.imagePullSecrets, predictor.imagePullSecrets),
  };
  const annotations = componentAnnotations(isvc, runtime.spec.annotations, predictor.annotations);
  return {
    component: 'predictor',
    name: componentName(isvc.metadata.name!, 'predictor'),
    labels: componentLabels(isvc, 'predictor', runtime.spec.labels, predictor.labels),
    annotations,
    podAnnotations: { ...annotations, ...storageAnnotations(model, storageUri) },
    podSpec,
    ports: portsOf(container),
    scaling: predictor,
  };
}

/** A predictor given as plain containers (custom predictor): no runtime involved. */
export function planCustomPredictor(isvc: InferenceService, config: InferenceServiceConfig): ComponentPlan {
  const predictor = isvc.spec.predictor;
  const [first, ...rest] = predictor.containers ?? [];
  const storageUri = first?.env?.find((e) => e.name === 'STORAGE_URI')?.value;
  const container = withDefaults(renderContainer({ ...first!, name: KSERVE_CONTAINER }, isvc.metadata), config, undefined);
  const annotations = componentAnnotations(isvc, predictor.annotations);
  return {
    component: 'predictor',
    name: componentName(isvc.metadata.name!, 'predictor'),
    labels: componentLabels(isvc, 'predictor', predictor.labels),
    annotations,
    podAnnotations: {
      ...annotations,
      ...(storageUri ? { [ANN_STORAGE_INITIALIZER_SOURCE_URI]: storageUri } : {}),
    },
    podSpec: { ...podFields(predictor), containers: [container, ...rest], ...mergeNodeSelector(undefined, predictor.nodeSelector), ...mergePullSecrets(undefined, predictor.imagePullSecrets) },
    ports: portsOf(container),
    scaling: predictor,
  };
}

export function podFields(spec: PredictorSpec | { serviceAccountName?: string; tolerations?: unknown[]; affinity?: unknown }): Partial<V1PodSpec> {
  return {
    ...(spec.serviceAccountName ? { serviceAccountName: spec.serviceAccountName } : {}),
    ...(spec.tolerations ? { tolerations: spec.tolerations as V1PodSpec['tolerations'] } : {}),
    ...(spec.affinity ? { affinity: spec.affinity as V1PodSpec['affinity'] } : {}),
  };
}

function containerFieldsOf(model: ModelSpec): Partial<V1Container> {
  const fields: Record<string, unknown> = { ...model };
  for (const k of MODEL_ONLY_FIELDS) delete fields[k];
  return fields as Partial<V1Container>;
}

function mergeContainers(runtime: V1Container, isvc: Partial<V1Container>, runtimeVersion: string | undefined): V1Container {
  const merged: V1Container = { ...runtime, ...isvc, name: runtime.name };
  const args = [...(runtime.args ?? []), ...(isvc.args ?? [])];
  if (args.length > 0) merged.args = args;
  const env = mergeEnv(runtime.env, isvc.env);
  if (env.length > 0) merged.env = env;
  if (!isvc.image && runtimeVersion && runtime.image) merged.image = `${runtime.image.replace(/:[^:/]+$/, '')}:${runtimeVersion}`;
  return merged;
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

function mergeNodeSelector(a?: Record<string, string>, b?: Record<string, string>): Partial<V1PodSpec> {
  return a || b ? { nodeSelector: { ...a, ...b } } : {};
}

function mergePullSecrets(a?: { name: string }[], b?: { name: string }[]): Partial<V1PodSpec> {
  const names = [...new Set([...(a ?? []), ...(b ?? [])].map((s) => s.name))];
  return names.length > 0 ? { imagePullSecrets: names.map((name) => ({ name })) } : {};
}
