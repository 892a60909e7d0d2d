/**
 * The credential providers in KServe's order (`CreateSecretVolumeAndEnv`): a secret that
 * holds keys of several kinds is injected as the first that matches. A new kind is one
 * provider file and one line here.
 */
import type { V1Secret } from '@kubernetes/client-node';
import type { CredentialsConfig } from '../../config/credentials.js';
import { azureServicePrincipal, azureStorageKey } from './azure.js';
import { gcsProvider } from './gcs.js';
import { hdfs } from './hdfs.js';
import { huggingFace } from './hf.js';
import { httpsProvider } from './https.js';
import type { CredentialProvider } from './provider.js';
import { s3Provider } from './s3.js';

export const CREDENTIAL_PROVIDERS: readonly CredentialProvider[] = [s3Provider, gcsProvider, azureServicePrincipal, azureStorageKey, httpsProvider, hdfs, huggingFace];

export function providerFor(secret: V1Secret, config: CredentialsConfig): CredentialProvider | undefined {
  return CREDENTIAL_PROVIDERS.find((p) => p.matches(secret, config));
}
