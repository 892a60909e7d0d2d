/**
 * HDFS / WebHDFS (KServe `pkg/credentials/hdfs`): a secret with `HDFS_NAMENODE` is mounted
 * whole, read-only, at `/var/secrets/kserve-hdfscreds` (volume `hdfs-secrets`) and
 * `HDFS_SECRET_DIR` names that folder; the storage-initializer reads one file per key
 * (HDFS_NAMENODE, USER_PROXY, HDFS_ROOTPATH, TLS_*, KERBEROS_*), as KServe's does.
 */
import { addVolume, addVolumeMount, mergeEnv } from '../pod/pod-spec.js';
import { secretHasKey } from './credential-source.js';
import type { CredentialProvider } from './provider.js';

export const HDFS_NAMENODE = 'HDFS_NAMENODE';
export const HDFS_VOLUME = 'hdfs-secrets';
export const HDFS_MOUNT_PATH = '/var/secrets/kserve-hdfscreds';
export const HDFS_SECRET_DIR_ENV = 'HDFS_SECRET_DIR';

export const hdfs: CredentialProvider = {
  name: 'hdfs',
  matches: (secret) => secretHasKey(secret, HDFS_NAMENODE),
  inject(secret, { container, spec }) {
    addVolume(spec, { name: HDFS_VOLUME, secret: { secretName: secret.metadata?.name ?? '' } });
    addVolumeMount(container, { name: HDFS_VOLUME, mountPath: HDFS_MOUNT_PATH, readOnly: true });
    mergeEnv(container, [{ name: HDFS_SECRET_DIR_ENV, value: HDFS_MOUNT_PATH }]);
  },
};
