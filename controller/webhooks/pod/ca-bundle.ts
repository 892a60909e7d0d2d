/**
 * Extra CA certificates for the storage initializer (KServe `storage_initializer_injector.go`
 * CA bundle section): when `storageInitializer.caBundleConfigMapName` is configured, or the
 * S3 credentials named a configmap (`AWS_CA_BUNDLE_CONFIGMAP`), that configmap is mounted
 * read-only and the initializer is told where (`CA_BUNDLE_CONFIGMAP_NAME`,
 * `CA_BUNDLE_VOLUME_MOUNT_POINT`; it reads `cabundle.crt` there).
 *
 * Outside the controller's namespace the configured name becomes `global-ca-bundle`, the
 * copy the controller keeps in each user namespace.
 */
import type { V1Container, V1PodSpec } from '@kubernetes/client-node';
import { posix } from 'node:path';
import type { StorageInitializerConfig } from '../../config/storage-initializer.js';
import { S3_ENV } from '../credentials/s3.js';
import { addEnvIfAbsent, addVolume, addVolumeMount, envValue } from './pod-spec.js';

export const CA_BUNDLE_VOLUME = 'cabundle-cert';
export const GLOBAL_CA_BUNDLE_CONFIGMAP = 'global-ca-bundle';
export const DEFAULT_CA_BUNDLE_MOUNT_PATH = '/etc/ssl/custom-certs';
export const CA_BUNDLE_CONFIGMAP_NAME_ENV = 'CA_BUNDLE_CONFIGMAP_NAME';
export const CA_BUNDLE_VOLUME_MOUNT_POINT_ENV = 'CA_BUNDLE_VOLUME_MOUNT_POINT';

export function injectCaBundle(spec: V1PodSpec, initContainer: V1Container, config: StorageInitializerConfig, namespace: string, controllerNamespace: string): void {
  const fromCredentials = envValue(initContainer, S3_ENV.caBundleConfigMap);
  if (!config.caBundleConfigMapName && fromCredentials === undefined) return;

  let configMap = namespace === controllerNamespace ? config.caBundleConfigMapName : GLOBAL_CA_BUNDLE_CONFIGMAP;
  let mountPath = config.caBundleVolumeMountPath || DEFAULT_CA_BUNDLE_MOUNT_PATH;
  if (fromCredentials !== undefined) configMap = fromCredentials;
  const caFile = envValue(initContainer, S3_ENV.caBundle);
  if (caFile !== undefined) mountPath = posix.dirname(caFile);

  addEnvIfAbsent(initContainer, [
    { name: CA_BUNDLE_CONFIGMAP_NAME_ENV, value: configMap },
    { name: CA_BUNDLE_VOLUME_MOUNT_POINT_ENV, value: mountPath },
  ]);
  addVolume(spec, { name: CA_BUNDLE_VOLUME, configMap: { name: configMap } });
  addVolumeMount(initContainer, { name: CA_BUNDLE_VOLUME, mountPath, readOnly: true });
}
