/**
 * Azure Blob / Files credentials (KServe `pkg/credentials/azure`): a service principal
 * (`AZ_CLIENT_ID`, `AZ_CLIENT_SECRET`, `AZ_TENANT_ID`, `AZ_SUBSCRIPTION_ID`, or KServe's
 * legacy `AZURE_*` spellings of the same keys in the secret), else a storage account key
 * (`AZURE_STORAGE_ACCESS_KEY`). The variables keep KServe's names whichever spelling the
 * secret uses, as the storage-initializer reads those. Unlike KServe, a key the secret lacks
 * (the subscription id usually) gets no variable, so the pod is not left unstartable by a
 * secretKeyRef to nothing.
 */
import type { V1EnvVar, V1Secret } from '@kubernetes/client-node';
import { mergeEnv } from '../pod/pod-spec.js';
import { secretHasKey } from './credential-source.js';
import { type CredentialProvider, secretRef } from './provider.js';

export const AZURE_SP_KEYS: readonly (readonly [env: string, legacy: string])[] = [
  ['AZ_SUBSCRIPTION_ID', 'AZURE_SUBSCRIPTION_ID'],
  ['AZ_TENANT_ID', 'AZURE_TENANT_ID'],
  ['AZ_CLIENT_ID', 'AZURE_CLIENT_ID'],
  ['AZ_CLIENT_SECRET', 'AZURE_CLIENT_SECRET'],
];
export const AZURE_STORAGE_ACCESS_KEY = 'AZURE_STORAGE_ACCESS_KEY';

export const azureServicePrincipal: CredentialProvider = {
  name: 'azure',
  matches: (secret) => secretHasKey(secret, 'AZ_CLIENT_SECRET') || secretHasKey(secret, 'AZURE_CLIENT_SECRET'),
  inject(secret, { container }) {
    const envs: V1EnvVar[] = [];
    for (const [env, legacy] of AZURE_SP_KEYS) {
      // KServe: the legacy key wins when the secret has it.
      const key = secretHasKey(secret, legacy) ? legacy : env;
      if (secretHasKey(secret, key)) envs.push(secretRef(secret, env, key));
    }
    mergeEnv(container, envs);
  },
};

export const azureStorageKey: CredentialProvider = {
  name: 'azure-storage-key',
  matches: (secret: V1Secret) => secretHasKey(secret, AZURE_STORAGE_ACCESS_KEY),
  inject(secret, { container }) {
    mergeEnv(container, [secretRef(secret, AZURE_STORAGE_ACCESS_KEY)]);
  },
};
