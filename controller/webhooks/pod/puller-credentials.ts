/**
 * Storage credentials for the model puller of a multi-model pod. The serving container of
 * such a pod downloads its TrainedModels itself (`--model_config_file`, server/puller/), so it
 * gets from the pod's ServiceAccount what the storage-initializer would get, as KServe's agent
 * injector gives them to its puller sidecar (`pkg/webhook/admission/pod/agent_injector.go`,
 * CreateSecretVolumeAndEnv on the agent container). Single-model pods are not touched.
 * Idempotent: variables are merged by name and volumes added once (pod-spec.ts).
 */
import type { V1Container, V1PodSpec } from '@kubernetes/client-node';
import { KSERVE_CONTAINER } from '../../constants.js';
import { MODEL_CONFIG_FLAG } from '../../reconcile/multi-model/model-config-mount.js';
import { injectServiceAccountCredentials } from '../credentials/service-account.js';
import type { PodMutator } from './pod-mutation.js';

/** The serving container of a multi-model pod: the one the controller gave `--model_config_file`. */
export function pullerContainer(spec: V1PodSpec): V1Container | undefined {
  return spec.containers.find((c) => c.name === KSERVE_CONTAINER && (c.args ?? []).some((a) => a === MODEL_CONFIG_FLAG || a.startsWith(`${MODEL_CONFIG_FLAG}=`)));
}

export const injectPullerCredentials: PodMutator = async (pod, ctx) => {
  const spec = pod.spec;
  const server = spec === undefined ? undefined : pullerContainer(spec);
  if (spec === undefined || server === undefined) return;
  await injectServiceAccountCredentials({
    source: ctx.credentials,
    config: ctx.config.credentials,
    namespace: ctx.namespace,
    podAnnotations: pod.metadata?.annotations ?? {},
    container: server,
    spec,
    debug: ctx.debug,
  });
};
