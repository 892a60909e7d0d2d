/**
 * Azure's settings, shared by Blob Storage and Azure Files: KServe's variable names
 * (storage.py), and STORAGE_* endpoint overrides for emulators and private endpoints.
 */
import type { Env } from '../env.js';
import type { ProviderSettings } from '../provider.js';
import { uriSecrets } from '../redact.js';

export interface AzureConfig {
  /**
   * STORAGE_AZURE_BLOB_ENDPOINT: replaces `https://<account>.blob.core.windows.net` (e.g.
   * Azurite's `http://127.0.0.1:10000/devstoreaccount1`); the URI keeps naming the account.
   */
  blobEndpoint: string | undefined;
  /**
   * STORAGE_AZURE_FILE_ENDPOINT: replaces `https://<account>.file.core.windows.net` for Azure
   * Files (a private endpoint, a stand-in); the URI keeps naming the account.
   */
  fileEndpoint: string | undefined;
  /** AZURE_STORAGE_ACCESS_KEY: the account's shared key. */
  accountKey: string | undefined;
  /** AZ_TENANT_ID/AZ_CLIENT_ID/AZ_CLIENT_SECRET (or the AZURE_* names): a service principal. */
  servicePrincipal: { tenantId: string; clientId: string; clientSecret: string } | undefined;
  /**
   * AKS workload identity: AZURE_CLIENT_ID + AZURE_TENANT_ID + AZURE_FEDERATED_TOKEN_FILE (as
   * its webhook injects them, no secret), which KServe's DefaultAzureCredential also takes.
   */
  workloadIdentity: { tenantId: string; clientId: string; tokenFile: string } | undefined;
  /**
   * Why the Azure credentials cannot be used (a client id without tenant or secret), reported
   * by the Azure provider only: an Azure variable left in the pod must not fail an s3:// run.
   */
  credentialProblem: string | undefined;
  /** AZURE_AUTHORITY_HOST: the Entra ID (AAD) authority, for sovereign clouds. */
  authorityHost: string | undefined;
}

function read(env: Env): AzureConfig {
  const tenantId = env['AZ_TENANT_ID'] || env['AZURE_TENANT_ID'] || '';
  const clientId = env['AZ_CLIENT_ID'] || env['AZURE_CLIENT_ID'] || '';
  const clientSecret = env['AZ_CLIENT_SECRET'] || env['AZURE_CLIENT_SECRET'] || '';
  const tokenFile = env['AZURE_FEDERATED_TOKEN_FILE'] || '';
  let servicePrincipal: AzureConfig['servicePrincipal'];
  let workloadIdentity: AzureConfig['workloadIdentity'];
  let credentialProblem: string | undefined;
  // KServe hands a client id to DefaultAzureCredential; of that chain, a secret and a
  // federated token are what a storage-initializer container can have. Anything else is
  // said, not guessed.
  if (clientId && tenantId && clientSecret) servicePrincipal = { tenantId, clientId, clientSecret };
  else if (clientId && tenantId && tokenFile) workloadIdentity = { tenantId, clientId, tokenFile };
  else if (clientId) {
    credentialProblem = `AZ_CLIENT_ID is set but ${!tenantId ? 'AZ_TENANT_ID' : 'AZ_CLIENT_SECRET (or AZURE_FEDERATED_TOKEN_FILE)'} is not: a service principal needs all three`;
  }
  return {
    blobEndpoint: env['STORAGE_AZURE_BLOB_ENDPOINT']?.replace(/\/+$/, '') || undefined,
    fileEndpoint: env['STORAGE_AZURE_FILE_ENDPOINT']?.replace(/\/+$/, '') || undefined,
    accountKey: env['AZURE_STORAGE_ACCESS_KEY'] || undefined,
    servicePrincipal,
    workloadIdentity,
    credentialProblem,
    authorityHost: env['AZURE_AUTHORITY_HOST'] || undefined,
  };
}

export const AZURE_SETTINGS: ProviderSettings<AzureConfig> = {
  read,
  secrets: (c) => [c.accountKey, c.servicePrincipal?.clientSecret, ...uriSecrets(c.blobEndpoint), ...uriSecrets(c.fileEndpoint)],
};
