/**
 * Small edits on a pod spec that the mutators share. Each is idempotent by name, like
 * KServe's `AddModelMount` / `AppendVolumeIfNotExists`, so a reinvoked webhook or a pod
 * that already carries a volume does not get duplicates.
 */
import type { V1Container, V1EnvVar, V1PodSpec, V1Volume, V1VolumeMount } from '@kubernetes/client-node';

export function findContainer(containers: V1Container[] | undefined, name: string): V1Container | undefined {
  return containers?.find((c) => c.name === name);
}

export function addVolume(spec: V1PodSpec, volume: V1Volume): void {
  spec.volumes ??= [];
  if (!spec.volumes.some((v) => v.name === volume.name)) spec.volumes.push(volume);
}

/** Adds the mount unless the container already mounts a volume of that name. */
export function addVolumeMount(container: V1Container, mount: V1VolumeMount): void {
  container.volumeMounts ??= [];
  if (!container.volumeMounts.some((m) => m.name === mount.name)) container.volumeMounts.push(mount);
}

/** `readOnly: false` is left out, as Go's `omitempty` does, so golden pods read the same. */
export function modelMount(volume: string, mountPath: string, readOnly: boolean, subPath?: string): V1VolumeMount {
  const mount: V1VolumeMount = { name: volume, mountPath };
  if (subPath) mount.subPath = subPath;
  if (readOnly) mount.readOnly = true;
  return mount;
}

/** Appends variables whose name the container does not have yet. */
export function addEnvIfAbsent(container: V1Container, vars: readonly V1EnvVar[]): void {
  container.env ??= [];
  for (const v of vars) if (!container.env.some((e) => e.name === v.name)) container.env.push(v);
}

/** Replaces variables of the same name in place, appends the others. */
export function mergeEnv(container: V1Container, vars: readonly V1EnvVar[]): void {
  container.env ??= [];
  for (const v of vars) {
    const i = container.env.findIndex((e) => e.name === v.name);
    if (i >= 0) container.env[i] = v;
    else container.env.push(v);
  }
}

export function envValue(container: V1Container, name: string): string | undefined {
  return container.env?.find((e) => e.name === name)?.value;
}
