/**
 * The modelcar injector (KServe `InjectModelcar` → `utils.ConfigureModelcarToContainer`): an
 * `oci://REGISTRY/IMAGE:TAG` storage URI is served from the model image itself, run as a
 * sidecar, instead of being downloaded by the storage-initializer.
 *
 * Trigger: the source-URI annotation starting with `oci://`. With modelcars disabled in the
 * `storageInitializer` config the pod is refused (the storage-initializer cannot fetch an
 * image, so a pod started anyway would never become ready). When enabled, for the model
 * container (`kserve-container`, else `worker-container`) and the transformer:
 * - `MODEL_INIT_MODE=async` (KServe's hint that the model folder may appear a little later);
 * - the emptyDir `kserve-provision-location` mounted read-write at /mnt, the parent of
 *   /mnt/models, where the sidecar puts its link;
 * - `runAsUser: uidModelcar` when configured (reading another container's `/proc/<pid>/root`
 *   needs the same user, or root);
 * and once per pod:
 * - container `modelcar` (the image, appended last) running
 *   `ln -sf /proc/$$$$/root/models /mnt/models && sleep infinity`: Kubernetes turns `$$` into
 *   `$`, so the shell sees `$$`, its own pid; the link leads into the image's /models through
 *   the shared process namespace and stays valid while the sidecar sleeps;
 * - init container `modelcar-init` (the same image) that checks /models is there and not
 *   empty, which also makes the kubelet pull the image before the server starts;
 * - `shareProcessNamespace: true`.
 * Idempotent: every addition is by name, so a reinvoked webhook changes nothing.
 *
 * The server needs nothing special: --model_dir=/mnt/models is followed through the link.
 */
import type { V1Container, V1Pod, V1PodSpec } from '@kubernetes/client-node';
import type { ModelcarConfig } from '../../config/modelcar.js';
import { ANN_STORAGE_INITIALIZER_SOURCE_URI, KSERVE_CONTAINER, MODEL_MOUNT_PATH, PROVISION_VOLUME, TRANSFORMER_CONTAINER } from '../../constants.js';
import { redact } from '../../../storage-initializer/redact.js';
import { errors } from '../errors.js';
import type { PodMutationContext } from './pod-mutation.js';
import { addVolume, addVolumeMount, findContainer, mergeEnv, modelMount } from './pod-spec.js';

/** KServe `OciURIPrefix`, `ModelcarContainerName`, `ModelcarInitContainerName`, `ModelInitModeEnvVarKey`. */
export const OCI_PREFIX = 'oci://';
export const MODELCAR_CONTAINER = 'modelcar';
export const MODELCAR_INIT_CONTAINER = 'modelcar-init';
export const MODEL_INIT_MODE_ENV = 'MODEL_INIT_MODE';
const WORKER_CONTAINER = 'worker-container';

/** Where the link lives: the emptyDir is mounted at its parent so the sidecar can create it. */
const LINK_PARENT = MODEL_MOUNT_PATH.slice(0, MODEL_MOUNT_PATH.lastIndexOf('/'));
/** The modelcar convention: the image holds the model under /models. */
const IMAGE_MODEL_DIR = '/models';

/** Case-insensitive, as the InferenceService validator reads schemes, so `OCI://` never reaches the storage-initializer. */
export function isOciUri(uri: string): boolean {
  return uri.slice(0, OCI_PREFIX.length).toLowerCase() === OCI_PREFIX;
}

export function injectModelcar(pod: V1Pod, ctx: PodMutationContext): void {
  const uri = pod.metadata?.annotations?.[ANN_STORAGE_INITIALIZER_SOURCE_URI];
  if (uri === undefined || !isOciUri(uri)) return;
  const config = ctx.config.storageInitializer.modelcar;
  if (!config.enabled) throw errors.modelcarsDisabled(redact(uri));
  const image = imageOf(uri);

  const spec = (pod.spec ??= { containers: [] });
  const model = findContainer(spec.containers, KSERVE_CONTAINER) ?? findContainer(spec.containers, WORKER_CONTAINER);
  if (!model) throw errors.noModelContainer([KSERVE_CONTAINER, WORKER_CONTAINER]);
  const transformer = findContainer(spec.containers, TRANSFORMER_CONTAINER);
  for (const target of transformer ? [model, transformer] : [model]) configureTarget(spec, target, config);

  if (!findContainer(spec.containers, MODELCAR_CONTAINER)) {
    spec.containers.push(sidecar(image, config));
    (spec.initContainers ??= []).push(prefetch(image, config));
  }
  spec.shareProcessNamespace = true;
}

/**
 * The image reference, in the characters of the reference grammar only: it is written into
 * the init container's shell command, so a quote or a `;` must never get there, and user
 * info (`oci://user:token@registry/...`) is no part of an image name.
 */
const IMAGE_REFERENCE = /^[A-Za-z0-9][A-Za-z0-9._:/@+-]*$/;

function imageOf(uri: string): string {
  const image = uri.slice(OCI_PREFIX.length);
  const registry = image.split('/')[0] ?? '';
  if (!IMAGE_REFERENCE.test(image) || registry.includes('@')) throw errors.invalidOciUri(redact(uri));
  return image;
}

function configureTarget(spec: V1PodSpec, target: V1Container, config: ModelcarConfig): void {
  mergeEnv(target, [{ name: MODEL_INIT_MODE_ENV, value: 'async' }]);
  addVolume(spec, { name: PROVISION_VOLUME, emptyDir: {} });
  addVolumeMount(target, modelMount(PROVISION_VOLUME, LINK_PARENT, false));
  if (config.uid !== undefined) target.securityContext = { ...target.securityContext, runAsUser: config.uid };
}

function resources(config: ModelcarConfig): V1Container['resources'] {
  const amounts = { cpu: config.cpu, memory: config.memory };
  return { limits: { ...amounts }, requests: { ...amounts } };
}

function sidecar(image: string, config: ModelcarConfig): V1Container {
  const container: V1Container = {
    name: MODELCAR_CONTAINER,
    image,
    args: ['sh', '-c', `ln -sf /proc/$$$$/root${IMAGE_MODEL_DIR} ${MODEL_MOUNT_PATH} && sleep infinity`],
    resources: resources(config),
    terminationMessagePolicy: 'FallbackToLogsOnError',
    volumeMounts: [modelMount(PROVISION_VOLUME, LINK_PARENT, false)],
  };
  if (config.uid !== undefined) container.securityContext = { runAsUser: config.uid };
  return container;
}

function prefetch(image: string, config: ModelcarConfig): V1Container {
  const check =
    `echo 'Pre-fetching modelcar ${image}: ' && [ -d ${IMAGE_MODEL_DIR} ] && [ "$$(ls -A ${IMAGE_MODEL_DIR})" ] ` +
    `&& echo 'OK ... Prefetched and valid (${IMAGE_MODEL_DIR} exists)' ` +
    `|| (echo 'NOK ... Prefetched but modelcar is invalid (${IMAGE_MODEL_DIR} does not exist or is empty)' && exit 1)`;
  return {
    name: MODELCAR_INIT_CONTAINER,
    image,
    args: ['sh', '-c', check],
    resources: resources(config),
    terminationMessagePolicy: 'FallbackToLogsOnError',
  };
}
