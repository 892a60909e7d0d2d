/**
 * The storage URI schemes kserve-ts knows: the one table the storage-initializer's provider
 * registry (providers/index.ts, which must have a loader for every scheme and route here:
 * the type says so), its usage text and the controller's storage-URI admission check
 * (controller/webhooks/isvc/storage-uri.ts) all read.
 *
 * Pure data with no imports, on purpose: the controller imports this file, and anything it
 * imported (provider SDKs) would be pulled into the controller and its image.
 * Adding a scheme: a row here and its provider file in providers/ with a loader line in
 * providers/index.ts (and, if it reads settings, a `<name>-settings.ts` and a row in
 * providers/settings.ts).
 */
export const STORAGE_SCHEMES = Object.freeze({
  s3: { example: 's3://bucket/path' },
  gs: { example: 'gs://bucket/path' },
  // Not downloaded: the pod webhook mounts the claim itself (pvc-uri.ts); the storage-initializer explains.
  pvc: { example: 'pvc://claim[/path]', mounted: true },
  file: { example: 'file:///path' },
  http: { example: 'http://host/file' },
  https: { example: 'https://host/file' },
  hf: { example: 'hf://org/repo[:revision]' },
  hdfs: { example: 'hdfs://path' },
  webhdfs: { example: 'webhdfs://path' },
} as const);

export type StorageScheme = keyof typeof STORAGE_SCHEMES;

/**
 * https:// URIs that are not plain downloads but a store's API, recognised by host as
 * KServe's storage.py recognises them (_AZURE_BLOB_RE, _AZURE_FILE_RE). A route wins over
 * its scheme's provider; the controller admits them as https:// URIs.
 */
export const STORAGE_HOST_ROUTES = Object.freeze({
  'azure-blob': {
    scheme: 'https',
    host: /^[^.]+\.(blob\.core\.windows\.net|z[0-9]{1,2}\.blob\.storage\.azure\.net)$/i,
    example: 'https://account.blob.core.windows.net/container/path',
  },
  'azure-file': {
    scheme: 'https',
    host: /^[^.]+\.(file\.core\.windows\.net|z[0-9]{1,2}\.file\.storage\.azure\.net)$/i,
    example: 'https://account.file.core.windows.net/share/path',
  },
} as const);

export type StorageRoute = keyof typeof STORAGE_HOST_ROUTES;

/** What a provider is registered under: a scheme, or a host route. */
export type ProviderKey = StorageScheme | StorageRoute;

/** In table order (the order error messages list them in). */
export const STORAGE_SCHEME_NAMES: readonly StorageScheme[] = Object.freeze(Object.keys(STORAGE_SCHEMES) as StorageScheme[]);

/** Schemes the storage-initializer downloads (pvc:// is mounted instead), in table order. */
export const DOWNLOADED_SCHEME_NAMES: readonly StorageScheme[] = Object.freeze(STORAGE_SCHEME_NAMES.filter((s) => !('mounted' in STORAGE_SCHEMES[s])));

export function isStorageScheme(s: string): s is StorageScheme {
  return Object.hasOwn(STORAGE_SCHEMES, s);
}

/** The lower-cased scheme of `uri`, or 'file' for a string without one (a local path). */
export function schemeOf(uri: string): string {
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(uri);
  return m ? m[1]!.toLowerCase() : 'file';
}

/** The host route `uri` takes, else its scheme: the key its provider is registered under. */
export function providerKeyOf(uri: string): string {
  const scheme = schemeOf(uri);
  const host = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/([^/?#:]*)/.exec(uri)?.[1] ?? '';
  for (const [route, r] of Object.entries(STORAGE_HOST_ROUTES)) {
    if (r.scheme === scheme && r.host.test(host)) return route;
  }
  return scheme;
}
