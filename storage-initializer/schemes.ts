/**
 * The storage URI schemes kserve-ts knows: the one table the storage-initializer's provider
 * registry (providers/index.ts, which must have a loader for every scheme here: the type
 * says so), its usage text and the controller's storage-URI admission check
 * (controller/webhooks/isvc/storage-uri.ts) all read.
 *
 * Pure data with no imports, on purpose: the controller imports this file, and anything it
 * imported (provider SDKs) would be pulled into the controller and its image.
 * Adding a scheme: a row here and its provider file in providers/ with a loader line in
 * providers/index.ts.
 */
export const STORAGE_SCHEMES = Object.freeze({
  s3: { example: 's3://bucket/path' },
  gs: { example: 'gs://bucket/path' },
  // Not downloaded: the pod webhook mounts the claim itself; the storage-initializer explains.
  pvc: { example: 'pvc://claim[/path]' },
  file: { example: 'file:///path' },
  http: { example: 'http://host/file' },
  https: { example: 'https://host/file' },
} as const);

export type StorageScheme = keyof typeof STORAGE_SCHEMES;

/** In table order (the order error messages list them in). */
export const STORAGE_SCHEME_NAMES: readonly StorageScheme[] = Object.freeze(Object.keys(STORAGE_SCHEMES) as StorageScheme[]);

export function isStorageScheme(s: string): s is StorageScheme {
  return Object.hasOwn(STORAGE_SCHEMES, s);
}

/** The lower-cased scheme of `uri`, or 'file' for a string without one (a local path). */
export function schemeOf(uri: string): string {
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(uri);
  return m ? m[1]!.toLowerCase() : 'file';
}
