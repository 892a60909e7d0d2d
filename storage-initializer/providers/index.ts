/**
 * How each scheme and host route of schemes.ts gets its provider. The Record type makes a missing loader
 * a compile error. Loaders import their provider (and its SDK) lazily, so a run pays only
 * for the schemes it uses. The cloud SDKs are optional peer dependencies of kserve-ts: a
 * missing one fails the run naming the package to install (cli/optional-package.ts).
 */
import { importFeature } from '../../cli/optional-package.js';
import type { Config } from '../config.js';
import type { StorageProvider } from '../provider.js';
import type { ProviderKey } from '../schemes.js';

/** Factories load their SDK lazily, so a run pays only for the schemes it uses. */
export type ProviderFactory = (config: Config) => Promise<StorageProvider>;

export const PROVIDER_LOADERS: Readonly<Record<ProviderKey, ProviderFactory>> = Object.freeze({
  s3: (c) => importFeature('s3:// downloads', async () => new (await import('./s3.js')).S3Provider(c)),
  gs: (c) => importFeature('gs:// downloads', async () => new (await import('./gcs.js')).GcsProvider(c)),
  pvc: async () => (await import('./pvc.js')).pvcProvider(),
  file: async () => new (await import('./file.js')).FileProvider(),
  http: async (c) => new (await import('./http.js')).HttpProvider(c),
  https: async (c) => new (await import('./http.js')).HttpProvider(c),
  hf: async (c) => new (await import('./hf.js')).HfProvider(c),
  hdfs: async (c) => new (await import('./webhdfs.js')).WebHdfsProvider(c),
  webhdfs: async (c) => new (await import('./webhdfs.js')).WebHdfsProvider(c),
  // The factory runs inside importFeature too: it imports @azure/identity when a credential is configured.
  'azure-blob': (c) => importFeature('Azure Blob downloads', async () => (await import('./azure-blob.js')).azureBlobProvider(c)),
  'azure-file': (c) => importFeature('Azure Files downloads', async () => (await import('./azure-file.js')).azureFileProvider(c)),
});
