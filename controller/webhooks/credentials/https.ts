/**
 * HTTP(S) headers for one host: a secret with `https-host` and `headers` becomes the
 * variable `<host>-headers` holding the headers JSON (KServe `pkg/credentials/https`), which
 * the storage initializer sends to that host.
 */
import type { V1EnvVar, V1Secret } from '@kubernetes/client-node';
import { mergeEnv } from '../pod/pod-spec.js';
import { secretHasKey, secretText } from './credential-source.js';
import type { CredentialProvider } from './provider.js';

export const HTTPS_HOST_KEY = 'https-host';
export const HTTPS_HEADERS_KEY = 'headers';

export function httpsHeaderEnvs(secret: V1Secret): V1EnvVar[] {
  const host = secretText(secret, HTTPS_HOST_KEY);
  const headers = secretText(secret, HTTPS_HEADERS_KEY);
  return host === undefined || headers === undefined ? [] : [{ name: `${host}-headers`, value: headers }];
}

export const httpsProvider: CredentialProvider = {
  name: 'https',
  matches: (secret) => secretHasKey(secret, HTTPS_HOST_KEY),
  inject(secret, { container }) {
    mergeEnv(container, httpsHeaderEnvs(secret));
  },
};
