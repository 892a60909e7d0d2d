/** pvc:// never reaches the storage-initializer in a correct deployment: the webhook mounts the claim. */
import { StorageError } from '../errors.js';
import type { StorageProvider } from '../provider.js';

export function pvcProvider(): StorageProvider {
  throw new StorageError(
    'unsupported_scheme',
    'pvc:// is not downloaded: the webhook mounts the PersistentVolumeClaim at /mnt/models directly (volume kserve-pvc-source, subPath <path>); ' +
      'use the mounted path (e.g. /mnt/pvc/<path>) if you run the storage-initializer yourself',
  );
}
