/**
 * Azure Files (`https://<account>.file.core.windows.net/<share>/<path>`), which KServe
 * downloads with the file-share SDK. Not supported here yet: no emulator that serves the
 * Files API can be installed from a registry (Azurite serves Blob, Queue and Table only),
 * so it could not be tested. The URI is refused with that reason rather than fetched as a
 * plain https download, which would silently ignore AZURE_STORAGE_ACCESS_KEY.
 */
import { StorageError } from '../errors.js';
import type { StorageProvider } from '../provider.js';

export function azureFileProvider(): StorageProvider {
  throw new StorageError('unsupported_scheme', 'Azure Files shares are not supported by kserve-ts (no Files emulator to test against); copy the model to Azure Blob Storage (https://<account>.blob.core.windows.net/<container>/<path>) or a PVC');
}
