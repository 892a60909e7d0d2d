/**
 * What the Azure Blob and Azure Files providers share: the URI shape
 * (`https://<account>.<service host>/<container or share>/<path>[?SAS]`), the mapping of
 * Azure SDK errors onto the catalogue, and the Entra ID credential built from KServe's
 * variables (a service principal or AKS workload identity). Both SDKs take the same
 * `TokenCredential`, so one sign-in serves either store.
 */
import type { TokenCredential } from '@azure/core-auth';
import type { Config } from '../config.js';
import type { AzureConfig } from './azure-settings.js';
import { StorageError, errors, networkError, statusError } from '../errors.js';

export interface AzureUri {
  account: string;
  /** The blob container or the file share. */
  container: string;
  /** Decoded, without leading or trailing '/'. */
  path: string;
  /** The query (a SAS), with its '?', or ''. */
  query: string;
  host: string;
}

export function parseAzureUri(uri: string, expected: string): AzureUri {
  const m = /^https:\/\/([^/?#]+)\/([^/?#]+)\/?([^?#]*)(\?[^#]*)?$/i.exec(uri);
  if (!m) throw errors.malformedUri(uri, expected);
  const host = m[1]!;
  return { host, account: host.split('.')[0]!, container: decodeURIComponent(m[2]!), path: decodeURIComponent(m[3] ?? '').replace(/\/+$/, ''), query: m[4] ?? '' };
}

/**
 * The URL of the container or share `u` names: on `endpoint` (an override such as
 * STORAGE_AZURE_BLOB_ENDPOINT) when given, else on the URI's own host, with its SAS.
 */
export function azureContainerUrl(endpoint: string | undefined, u: AzureUri): string {
  return `${endpoint ?? `https://${u.host}`}/${encodeURIComponent(u.container)}${u.query}`;
}

/** Pipeline options for either SDK: no SDK retries (the engine retries every request and cut body), keep-alive. */
export function azurePipelineOptions(config: Config): { retryOptions: { maxTries: number; tryTimeoutInMs: number }; keepAliveOptions: { enable: boolean } } {
  return { retryOptions: { maxTries: 1, tryTimeoutInMs: config.readTimeoutMs }, keepAliveOptions: { enable: true } };
}

/** Error codes (x-ms-error-code) of a credential the service refused. */
const DENIED = new Set([
  'AuthenticationFailed',
  'AuthorizationFailure',
  'AuthorizationPermissionMismatch',
  'NoAuthenticationInformation',
  'PublicAccessNotPermitted',
  'InsufficientAccountPermissions',
  'InvalidAuthenticationInfo',
  'AuthorizationResourceTypeMismatch',
]);

/** An Azure SDK or @azure/identity error as a StorageError. Never includes request headers. */
export function azureError(err: unknown, what: string): StorageError {
  if (err instanceof StorageError) return err;
  const e = err as { name?: string; statusCode?: number; code?: string; message?: string };
  const detail = e.code ?? '';
  if (e.name === 'AuthenticationRequiredError' || e.name === 'CredentialUnavailableError' || e.name === 'AuthenticationError') {
    return errors.accessDenied(`${what}: service principal sign-in failed (${(e.message ?? '').split('\n')[0]})`, err);
  }
  if (DENIED.has(detail)) return errors.accessDenied(`${what}: ${detail}`, err);
  if (typeof e.statusCode === 'number' && e.statusCode > 0) return statusError(e.statusCode, what, detail);
  return networkError(err, what);
}

/**
 * The Entra ID credential for KServe's service principal (AZ_CLIENT_ID/AZ_CLIENT_SECRET/
 * AZ_TENANT_ID) or workload identity (AZURE_FEDERATED_TOKEN_FILE instead of the secret);
 * undefined when neither is configured. @azure/identity is loaded only when one is.
 */
export async function azureTokenCredential(a: AzureConfig): Promise<TokenCredential | undefined> {
  if (a.credentialProblem) throw errors.misconfigured(a.credentialProblem);
  if (!a.servicePrincipal && !a.workloadIdentity) return undefined;
  const { ClientSecretCredential, WorkloadIdentityCredential } = await import('@azure/identity');
  // A configured authority (sovereign cloud, Azure Stack, a private Entra ID endpoint) is used
  // as given: instance discovery would ask the public cloud's login host about it.
  const authority = a.authorityHost ? { authorityHost: a.authorityHost, disableInstanceDiscovery: true } : {};
  const sp = a.servicePrincipal;
  const wi = a.workloadIdentity;
  return sp
    ? new ClientSecretCredential(sp.tenantId, sp.clientId, sp.clientSecret, authority)
    : new WorkloadIdentityCredential({ tenantId: wi!.tenantId, clientId: wi!.clientId, tokenFilePath: wi!.tokenFile, ...authority });
}
