/**
 * The predictor pod of a multi-model InferenceService, as KServe's agent injector leaves it
 * (`pkg/webhook/admission/pod/agent_injector.go`) minus the agent: the ConfigMap
 * `modelconfig-<isvc>-0` mounted read-only at /mnt/configs, an emptyDir at the model
 * directory (KServe's `kserve-provision-location`) where the server puts what it pulls,
 * and `--model_config_file=/mnt/configs/models.json` for the serving container, whose own
 * puller does what KServe's agent sidecar does. Nothing else changes; a single-model pod
 * never comes here.
 */
import type { V1Container, V1PodSpec } from '@kubernetes/client-node';
import { KSERVE_CONTAINER, MODEL_MOUNT_PATH, PROVISION_VOLUME } from '../../constants.js';
import type { ComponentPlan } from '../component-plan.js';
import { MODEL_CONFIG_DIR, MODEL_CONFIG_FILE, MODEL_CONFIG_VOLUME, modelConfigName } from './model-config.js';

export const MODEL_CONFIG_FLAG = '--model_config_file';

export function withModelConfig(plan: ComponentPlan, isvc: string): ComponentPlan {
  const spec = plan.podSpec;
  const volumes = [...(spec.volumes ?? []).filter((v) => v.name !== MODEL_CONFIG_VOLUME), { name: MODEL_CONFIG_VOLUME, configMap: { name: modelConfigName(isvc) } }];
  const servesModels = (c: V1Container) => c.volumeMounts?.some((m) => m.mountPath === MODEL_MOUNT_PATH) === true;
  const main = spec.containers.find((c) => c.name === KSERVE_CONTAINER) ?? spec.containers[0]!;
  const needsModelDir = !servesModels(main) && !volumes.some((v) => v.name === PROVISION_VOLUME);
  if (needsModelDir) volumes.push({ name: PROVISION_VOLUME, emptyDir: {} });
  const containers = spec.containers.map((c) => (c === main ? mountInto(c, needsModelDir) : c));
  const podSpec: V1PodSpec = { ...spec, containers, volumes };
  return { ...plan, podSpec };
}

function mountInto(c: V1Container, modelDir: boolean): V1Container {
  const mounts = [
    ...(c.volumeMounts ?? []).filter((m) => m.mountPath !== MODEL_CONFIG_DIR),
    { name: MODEL_CONFIG_VOLUME, mountPath: MODEL_CONFIG_DIR, readOnly: true },
    ...(modelDir ? [{ name: PROVISION_VOLUME, mountPath: MODEL_MOUNT_PATH }] : []),
  ];
  const args = [...(c.args ?? []).filter((a) => a !== MODEL_CONFIG_FLAG && !a.startsWith(`${MODEL_CONFIG_FLAG}=`)), `${MODEL_CONFIG_FLAG}=${MODEL_CONFIG_FILE}`];
  return { ...c, args, volumeMounts: mounts };
}
