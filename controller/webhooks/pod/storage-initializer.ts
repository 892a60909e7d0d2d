/**
 * The storage-initializer injector, KServe's legacy single-URI path
 * (`InjectStorageInitializer` → `CommonStorageInitialization`).
 *
 * Trigger: the pod annotation `internal.serving.kserve.io/storage-initializer-sourceuri`,
 * which the controller sets from `storageUri`. Nothing happens when the pod already has an
 * init container `storage-initializer` (reinvocation, or a pod that brings its own).
 *
 * - `pvc://<claim>[/<path>]`: the claim is mounted at /mnt/models (subPath `<path>`) in the
 *   model container and the transformer; nothing is copied, so no init container.
 * - any other URI: init container `storage-initializer` runs `<uri> /mnt/models` into an
 *   emptyDir `kserve-provision-location`, mounted read-write there and read-only in the
 *   model container and the transformer (unless `storage.kserve.io/readonly: "false"`); it
 *   gets the storage credentials and the CA bundle, and the node-local cache when the config
 *   names one (model-cache.ts).
 *
 * The model container is `kserve-container`, else `worker-container`; the transformer is
 * `transformer-container` when present. A `STORAGE_URI` variable of the model container is
 * rewritten to /mnt/models.
 *
 * `oci://` URIs are left to the modelcar injector (modelcar.ts), as KServe leaves them to
 * `InjectModelcar`.
 *
 * Differences from KServe, on purpose: no ClusterStorageContainer merge, no local-model
 * PVC and no HF_* variables (the kserve-ts initializer downloads none of
 * these); the PVC volume keeps the claim writable as KServe does, the mounts carry the
 * read-only flag.
 */
import type { V1Container, V1Pod, V1PodSpec } from '@kubernetes/client-node';
import { PVC_URI_PREFIX, parsePvcUri } from '../../../storage-initializer/pvc-uri.js';
import type { StorageInitializerConfig } from '../../config/storage-initializer.js';
import {
  ANN_STORAGE_INITIALIZER_SOURCE_URI,
  ANN_STORAGE_READONLY,
  ANN_STORAGE_SPEC,
  ANN_STORAGE_SPEC_KEY,
  ANN_STORAGE_SPEC_PARAM,
  KSERVE_CONTAINER,
  MODEL_MOUNT_PATH,
  PROVISION_VOLUME,
  PVC_SOURCE_VOLUME,
  STORAGE_INITIALIZER_CONTAINER,
  TRANSFORMER_CONTAINER,
} from '../../constants.js';
import { injectServiceAccountCredentials } from '../credentials/service-account.js';
import { injectStorageSpecCredentials } from '../credentials/storage-spec.js';
import { errors } from '../errors.js';
import { injectCaBundle } from './ca-bundle.js';
import { STORAGE_INITIALIZER_CACHE_FLAGS, mountModelCache } from './model-cache.js';
import { isOciUri } from './modelcar.js';
import type { PodMutationContext } from './pod-mutation.js';
import { addVolume, addVolumeMount, findContainer, modelMount } from './pod-spec.js';

export const WORKER_CONTAINER = 'worker-container';
export const STORAGE_URI_ENV = 'STORAGE_URI';

export async function injectStorageInitializer(pod: V1Pod, ctx: PodMutationContext): Promise<void> {
  const annotations = pod.metadata?.annotations ?? {};
  const uri = annotations[ANN_STORAGE_INITIALIZER_SOURCE_URI];
  if (uri === undefined || uri === '' || isOciUri(uri)) return;
  const spec = (pod.spec ??= { containers: [] });
  if (findContainer(spec.initContainers, STORAGE_INITIALIZER_CONTAINER)) return;

  const model = findContainer(spec.containers, KSERVE_CONTAINER) ?? findContainer(spec.containers, WORKER_CONTAINER);
  if (!model) throw errors.noModelContainer([KSERVE_CONTAINER, WORKER_CONTAINER]);
  const transformer = findContainer(spec.containers, TRANSFORMER_CONTAINER);
  const servers = transformer ? [model, transformer] : [model];
  const readOnly = annotations[ANN_STORAGE_READONLY] !== 'false';

  if (uri.startsWith(PVC_URI_PREFIX)) {
    const pvc = parsePvcUri(uri);
    if ('problem' in pvc) throw errors.invalidPvcUri(uri);
    const { claim, path } = pvc;
    for (const c of servers) addVolumeMount(c, modelMount(PVC_SOURCE_VOLUME, MODEL_MOUNT_PATH, readOnly, path));
    addVolume(spec, { name: PVC_SOURCE_VOLUME, persistentVolumeClaim: { claimName: claim } });
    rewriteStorageUriEnv(model);
    return;
  }

  const init = initContainer(ctx.config.storageInitializer, uri);
  (spec.initContainers ??= []).push(init);
  const cache = ctx.config.storageInitializer.modelCache;
  if (cache !== undefined) init.args = [...mountModelCache(spec, init, cache, STORAGE_INITIALIZER_CACHE_FLAGS), ...(init.args ?? [])];
  for (const c of servers) addVolumeMount(c, modelMount(PROVISION_VOLUME, MODEL_MOUNT_PATH, readOnly));
  addVolumeMount(init, modelMount(PROVISION_VOLUME, MODEL_MOUNT_PATH, false));
  addVolume(spec, { name: PROVISION_VOLUME, emptyDir: {} });
  rewriteStorageUriEnv(model);

  await injectCredentials(spec, init, annotations, ctx);
  injectCaBundle(spec, init, ctx.config.storageInitializer, ctx.namespace, ctx.controllerNamespace);
}

function initContainer(config: StorageInitializerConfig, uri: string): V1Container {
  return {
    name: STORAGE_INITIALIZER_CONTAINER,
    image: config.image,
    args: [uri, MODEL_MOUNT_PATH],
    terminationMessagePolicy: 'FallbackToLogsOnError',
    resources: {
      limits: { cpu: config.cpuLimit, memory: config.memoryLimit },
      requests: { cpu: config.cpuRequest, memory: config.memoryRequest },
    },
  };
}

function rewriteStorageUriEnv(container: V1Container): void {
  for (const e of container.env ?? []) if (e.name === STORAGE_URI_ENV && e.value) e.value = MODEL_MOUNT_PATH;
}

async function injectCredentials(spec: V1PodSpec, init: V1Container, annotations: Record<string, string>, ctx: PodMutationContext): Promise<void> {
  const common = { source: ctx.credentials, config: ctx.config.credentials, namespace: ctx.namespace, podAnnotations: annotations, container: init };
  if (annotations[ANN_STORAGE_SPEC] === 'true') {
    await injectStorageSpecCredentials({
      ...common,
      storageKey: annotations[ANN_STORAGE_SPEC_KEY] ?? '',
      parameters: storageSpecParameters(annotations[ANN_STORAGE_SPEC_PARAM]),
    });
  } else {
    await injectServiceAccountCredentials({ ...common, spec, debug: ctx.debug });
  }
}

function storageSpecParameters(raw: string | undefined): Record<string, string> {
  if (raw === undefined || raw === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    throw errors.invalidAnnotationJson(ANN_STORAGE_SPEC_PARAM, (err as Error).message);
  }
  if (value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value) || Object.values(value).some((v) => typeof v !== 'string')) {
    throw errors.invalidAnnotationJson(ANN_STORAGE_SPEC_PARAM, 'found a value that is not a string');
  }
  return value as Record<string, string>;
}
