/**
 * `pvc://<claim>[/<path>]`, KServe's ParsePvcURI: the claim the pod webhook mounts at
 * /mnt/models and the subPath inside it. The one statement of the rules, read by the
 * controller's admission check (webhooks/isvc/storage-uri.ts) and its pod mutator
 * (webhooks/pod/storage-initializer.ts). Imports nothing, as schemes.ts: the controller
 * imports it.
 */

export const PVC_URI_PREFIX = 'pvc://';

export type PvcUri =
  | { readonly claim: string; readonly path: string }
  /** `no-claim`: `pvc://`, `pvc:///x`, `pvc://./x`; `dot-dot`: a '..' segment would leave the claim (`pvc://c/../../etc`). */
  | { readonly problem: 'no-claim' | 'dot-dot' };

/** The claim and subPath of a pvc:// URI (its scheme in any case), or what is wrong with it. */
export function parsePvcUri(uri: string): PvcUri {
  const [claim = '', ...rest] = uri.slice(PVC_URI_PREFIX.length).split('/');
  if (claim === '') return { problem: 'no-claim' };
  if (claim === '..' || rest.some((p) => p === '..')) return { problem: 'dot-dot' };
  if (claim === '.') return { problem: 'no-claim' };
  return { claim, path: rest.join('/') };
}
