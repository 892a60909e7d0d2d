/** GCS: the service-account key file mounted from the secret (KServe `pkg/credentials/gcs`). */
import type { V1EnvVar, V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import { addVolume, addVolumeMount, mergeEnv } from '../pod/pod-spec.js';
import { secretHasKey } from './credential-source.js';
import type { CredentialProvider } from './provider.js';

export const GCS_VOLUME = 'user-gcp-sa';
export const GCS_MOUNT_PATH = '/var/secrets/';
export const GCS_ENV = 'GOOGLE_APPLICATION_CREDENTIALS';

export function gcsCredentials(secretName: string, fileName: string): { volume: V1Volume; mount: V1VolumeMount; env: V1EnvVar } {
  return {
    volume: { name: GCS_VOLUME, secret: { secretName } },
    mount: { name: GCS_VOLUME, mountPath: GCS_MOUNT_PATH, readOnly: true },
    env: { name: GCS_ENV, value: `${GCS_MOUNT_PATH}${fileName}` },
  };
}

export const gcsProvider: CredentialProvider = {
  name: 'gcs',
  matches: (secret, config) => secretHasKey(secret, config.gcsCredentialFileName),
  inject(secret, { config, container, spec }) {
    const gcs = gcsCredentials(secret.metadata?.name ?? '', config.gcsCredentialFileName);
    addVolume(spec, gcs.volume);
    addVolumeMount(container, gcs.mount);
    mergeEnv(container, [gcs.env]);
  },
};
