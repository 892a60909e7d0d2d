/**
 * Kubernetes strategic merge patch, as far as KServe uses it to merge a ServingRuntime's
 * container and pod fields with the InferenceService's (`MergeContainerWithPatch`,
 * `MergePodSpec` over `corev1.Container` / `corev1.PodSpec`):
 *
 * - objects merge key by key, recursively; a `null` in the overlay deletes the key;
 * - lists of objects with a patch merge key (from the Kubernetes API types: env by `name`,
 *   ports by `containerPort`, volumeMounts by `mountPath`, volumes by `name`, ...) merge
 *   element by element on that key, base order first, new elements appended;
 * - every other list (args, command, tolerations, envFrom, ...) is replaced by the overlay's.
 *
 * Pure; inputs are not modified.
 */
import type { V1Container, V1EnvVar, V1PodSpec } from '@kubernetes/client-node';

/** Patch merge keys of the list fields, keyed by the field's path from the merged type. */
type MergeKeys = Readonly<Record<string, string>>;

const CONTAINER_KEYS: MergeKeys = {
  env: 'name',
  ports: 'containerPort',
  volumeMounts: 'mountPath',
  volumeDevices: 'devicePath',
  resizePolicy: 'resourceName',
  'resources.claims': 'name',
};

const POD_SPEC_KEYS: MergeKeys = {
  volumes: 'name',
  initContainers: 'name',
  containers: 'name',
  ephemeralContainers: 'name',
  imagePullSecrets: 'name',
  hostAliases: 'ip',
  resourceClaims: 'name',
  schedulingGates: 'name',
  topologySpreadConstraints: 'topologyKey',
  ...prefixed('initContainers', CONTAINER_KEYS),
  ...prefixed('containers', CONTAINER_KEYS),
};

function prefixed(prefix: string, keys: MergeKeys): MergeKeys {
  return Object.fromEntries(Object.entries(keys).map(([k, v]) => [`${prefix}.${k}`, v]));
}

type Json = unknown;

function isObject(v: Json): v is Record<string, Json> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function merge(base: Json, overlay: Json, path: string, keys: MergeKeys): Json {
  if (overlay === undefined) return base;
  if (isObject(base) && isObject(overlay)) {
    const out: Record<string, Json> = { ...base };
    for (const [k, v] of Object.entries(overlay)) {
      if (v === null) delete out[k];
      else out[k] = merge(base[k], v, path ? `${path}.${k}` : k, keys);
    }
    return out;
  }
  const key = keys[path];
  if (key !== undefined && Array.isArray(base) && Array.isArray(overlay)) return mergeList(base, overlay, key, path, keys);
  return overlay;
}

function mergeList(base: Json[], overlay: Json[], key: string, path: string, keys: MergeKeys): Json[] {
  const out = [...base];
  for (const item of overlay) {
    const id = isObject(item) ? item[key] : undefined;
    const i = id === undefined ? -1 : out.findIndex((b) => isObject(b) && b[key] === id);
    // Elements of a merged list merge with the same keys below them (`containers.env`).
    if (i >= 0) out[i] = merge(out[i], item, path, keys);
    else out.push(item);
  }
  return out;
}

/**
 * The runtime container with the InferenceService's fields merged over it (KServe's
 * `MergeRuntimeContainers`): strategic merge, env entries whose `value`/`valueFrom` now
 * both exist keep the overlay's choice, the runtime's name is kept, and args are the
 * runtime's followed by the InferenceService's.
 */
export function mergeContainer(runtime: V1Container, isvc: Partial<V1Container>): V1Container {
  const merged = merge(runtime, isvc, '', CONTAINER_KEYS) as V1Container;
  if (merged.env) merged.env = merged.env.map((e) => reconcileEnv(e, isvc.env));
  merged.name = runtime.name;
  const args = [...(runtime.args ?? []), ...(isvc.args ?? [])];
  if (args.length > 0) merged.args = args;
  else delete merged.args;
  return merged;
}

function reconcileEnv(e: V1EnvVar, overlay: readonly V1EnvVar[] | undefined): V1EnvVar {
  if (e.value === undefined || e.value === '' || e.valueFrom === undefined) return e;
  const o = overlay?.find((x) => x.name === e.name);
  if (!o) return e;
  const { value, valueFrom, ...rest } = e;
  if (o.valueFrom !== undefined) return { ...rest, valueFrom };
  if (o.value !== undefined && o.value !== '') return { ...rest, value };
  return e;
}

/** The runtime's pod fields with the component's merged over them (KServe's `MergePodSpec`). */
export function mergePodSpec(runtime: Partial<V1PodSpec>, component: Partial<V1PodSpec>): Partial<V1PodSpec> {
  return merge(runtime, component, '', POD_SPEC_KEYS) as Partial<V1PodSpec>;
}
