/**
 * How each scheme of schemes.ts gets its provider. The Record type makes a missing loader
 * a compile error. Loaders import their provider (and its SDK) lazily, so a run pays only
 * for the schemes it uses.
 */
import type { StorageScheme } from '../schemes.js';
import type { ProviderFactory } from '../registry.js';

export const PROVIDER_LOADERS: Readonly<Record<StorageScheme, ProviderFactory>> = Object.freeze({
  s3: async (c) => new (await import('./s3.js')).S3Provider(c),
  gs: async (c) => new (await import('./gcs.js')).GcsProvider(c),
  pvc: async () => (await import('./pvc.js')).pvcProvider(),
  file: async () => new (await import('./file.js')).FileProvider(),
  http: async (c) => new (await import('./http.js')).HttpProvider(c),
  https: async (c) => new (await import('./http.js')).HttpProvider(c),
});
