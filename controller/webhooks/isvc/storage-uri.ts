/**
 * Storage URIs kserve-ts can serve: the schemes of the storage-initializer's scheme table
 * (storage-initializer/schemes.ts, pure data shared with the storage-initializer's registry,
 * so a scheme it gains is admitted here too), `oci://` (served by the pod webhook as a
 * modelcar, never downloaded) and local paths. KServe's controller lists more schemes
 * (`oci+native://`, `oci+fetch://`, ...); the ones kserve-ts lacks are rejected at admission
 * instead of failing in the storage initializer later.
 */
import { parsePvcUri } from '../../../storage-initializer/pvc-uri.js';
import { redact } from '../../../storage-initializer/redact.js';
import { STORAGE_SCHEME_NAMES } from '../../../storage-initializer/schemes.js';

/** Served by the pod webhook itself (controller/webhooks/pod/modelcar.ts), so not in the initializer's table. */
const POD_WEBHOOK_SCHEMES: readonly string[] = ['oci'];

export const SUPPORTED_STORAGE_SCHEMES: readonly string[] = Object.freeze([...STORAGE_SCHEME_NAMES, ...POD_WEBHOOK_SCHEMES]);

const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//;

/**
 * Why `uri` (found at `field`) cannot be served, or undefined when it can. The message shows
 * the URI without user info or query (`redact`): a denial is logged and shown to whoever
 * applied the object, and URIs carry tokens (`user:token@`, `?sig=`).
 */
export function storageUriProblem(field: string, raw: string): string | undefined {
  const uri = redact(raw);
  if (raw.trim() === '') return `${field} must not be empty`;
  const scheme = SCHEME.exec(raw)?.[1];
  if (scheme === undefined) return undefined; // a local path
  if (!SUPPORTED_STORAGE_SCHEMES.includes(scheme.toLowerCase())) {
    const supported = SUPPORTED_STORAGE_SCHEMES.map((s) => `${s}://`).join(', ');
    return `${field}: unsupported storage URI scheme '${scheme}://' in '${uri}' (supported: ${supported} and local paths)`;
  }
  const pvc = scheme.toLowerCase() === 'pvc' ? parsePvcUri(raw) : undefined;
  if (pvc && 'problem' in pvc) {
    return pvc.problem === 'no-claim'
      ? `${field}: '${uri}' names no claim; expected pvc://<claim-name>[/<path>]`
      : `${field}: '${uri}' has a '..' path segment; expected pvc://<claim-name>[/<path>] inside the claim`;
  }
  return undefined;
}
