/** pvc:// never reaches the storage-initializer in a correct deployment: the webhook mounts the claim. */
import { errors } from '../errors.js';
import type { StorageProvider } from '../provider.js';

export function pvcProvider(): StorageProvider {
  throw errors.notSupported(
    'pvc:// is not downloaded: the webhook mounts the PersistentVolumeClaim at /mnt/models directly (volume kserve-pvc-source, subPath <path>); ' +
      'use the mounted path (e.g. /mnt/pvc/<path>) if you run the storage-initializer yourself',
  );
}
