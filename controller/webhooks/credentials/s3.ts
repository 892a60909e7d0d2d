/**
 * S3 settings for the storage initializer, from a Secret's or a ServiceAccount's
 * `serving.kserve.io/s3-*` annotations, the Secret's data and the `credentials.s3` config,
 * in that order of precedence (KServe `pkg/credentials/s3/utils.go`). A variable is set only
 * when the winning value is non-empty.
 */
import type { V1EnvVar, V1Secret } from '@kubernetes/client-node';
import type { S3CredentialsConfig } from '../../config/credentials.js';
import { mergeEnv } from '../pod/pod-spec.js';
import { secretHasKey, secretText } from './credential-source.js';
import type { CredentialProvider } from './provider.js';

const ANN = 'serving.kserve.io/';
export const S3_ANNOTATIONS = {
  endpoint: `${ANN}s3-endpoint`,
  region: `${ANN}s3-region`,
  verifySSL: `${ANN}s3-verifyssl`,
  useHttps: `${ANN}s3-usehttps`,
  useVirtualBucket: `${ANN}s3-usevirtualbucket`,
  useAccelerate: `${ANN}s3-useaccelerate`,
  useAnonymousCredential: `${ANN}s3-useanoncredential`,
  caBundleConfigMap: `${ANN}s3-cabundle-configmap`,
  caBundle: `${ANN}s3-cabundle`,
} as const;

export const S3_ENV = {
  accessKeyId: 'AWS_ACCESS_KEY_ID',
  secretAccessKey: 'AWS_SECRET_ACCESS_KEY',
  endpoint: 'S3_ENDPOINT',
  endpointUrl: 'AWS_ENDPOINT_URL',
  useHttps: 'S3_USE_HTTPS',
  verifySSL: 'S3_VERIFY_SSL',
  anonymousCredential: 'awsAnonymousCredential',
  region: 'AWS_DEFAULT_REGION',
  useVirtualBucket: 'S3_USER_VIRTUAL_BUCKET',
  useAccelerate: 'S3_USE_ACCELERATE',
  caBundle: 'AWS_CA_BUNDLE',
  caBundleConfigMap: 'AWS_CA_BUNDLE_CONFIGMAP',
} as const;

type Lookup = (annotation: string, dataKey: string, configured: string) => string;

function lookupIn(annotations: Record<string, string> | undefined, secret: V1Secret | undefined): Lookup {
  return (annotation, dataKey, configured) => {
    if (annotations && Object.prototype.hasOwnProperty.call(annotations, annotation)) return annotations[annotation] as string;
    const fromData = secret ? secretText(secret, dataKey) : undefined;
    return fromData ?? configured;
  };
}

/**
 * `https://host` → S3_USE_HTTPS=1, `http://host` → 0 (the scheme wins over any setting);
 * a bare host takes S3_USE_HTTPS from the settings and gets `http://` only when that is "0".
 */
export function s3Endpoint(configured: string, useHttpsSetting: () => string): { useHttps: string; endpoint: string; url: string } {
  const endpoint = configured.trim();
  const lower = endpoint.toLowerCase();
  if (lower.startsWith('https://')) return { useHttps: '1', endpoint: endpoint.slice(8), url: endpoint };
  if (lower.startsWith('http://')) return { useHttps: '0', endpoint: endpoint.slice(7), url: endpoint };
  const useHttps = useHttpsSetting();
  return { useHttps, endpoint, url: `${useHttps === '0' ? 'http' : 'https'}://${endpoint}` };
}

/** The S3_* / AWS_* settings (no keys) from annotations, optional secret data and config. */
export function s3SettingEnvs(annotations: Record<string, string> | undefined, secret: V1Secret | undefined, config: S3CredentialsConfig): V1EnvVar[] {
  const get = lookupIn(annotations, secret);
  const envs: V1EnvVar[] = [];
  const set = (name: string, value: string): void => {
    if (value !== '') envs.push({ name, value });
  };
  const endpoint = get(S3_ANNOTATIONS.endpoint, S3_ENV.endpoint, config.endpoint);
  if (endpoint !== '') {
    const e = s3Endpoint(endpoint, () => get(S3_ANNOTATIONS.useHttps, S3_ENV.useHttps, config.useHttps));
    set(S3_ENV.useHttps, e.useHttps);
    envs.push({ name: S3_ENV.endpoint, value: e.endpoint }, { name: S3_ENV.endpointUrl, value: e.url });
  }
  set(S3_ENV.verifySSL, get(S3_ANNOTATIONS.verifySSL, S3_ENV.verifySSL, config.verifySSL));
  set(S3_ENV.anonymousCredential, get(S3_ANNOTATIONS.useAnonymousCredential, S3_ENV.anonymousCredential, config.useAnonymousCredential));
  set(S3_ENV.region, get(S3_ANNOTATIONS.region, S3_ENV.region, config.region));
  set(S3_ENV.useVirtualBucket, get(S3_ANNOTATIONS.useVirtualBucket, S3_ENV.useVirtualBucket, config.useVirtualBucket));
  set(S3_ENV.useAccelerate, get(S3_ANNOTATIONS.useAccelerate, S3_ENV.useAccelerate, config.useAccelerate));
  set(S3_ENV.caBundle, get(S3_ANNOTATIONS.caBundle, S3_ENV.caBundle, config.caBundle));
  set(S3_ENV.caBundleConfigMap, get(S3_ANNOTATIONS.caBundleConfigMap, S3_ENV.caBundleConfigMap, config.caBundleConfigMap));
  return envs;
}

/** Access keys as secretKeyRefs (never copied into the pod) plus the settings. */
export function s3SecretEnvs(secret: V1Secret, config: S3CredentialsConfig): V1EnvVar[] {
  const ref = (name: string, key: string): V1EnvVar => ({ name, valueFrom: { secretKeyRef: { name: secret.metadata?.name as string, key } } });
  return [ref(S3_ENV.accessKeyId, config.accessKeyIdName), ref(S3_ENV.secretAccessKey, config.secretAccessKeyName), ...s3SettingEnvs(secret.metadata?.annotations, secret, config)];
}

export const s3Provider: CredentialProvider = {
  name: 's3',
  matches: (secret, config) => secretHasKey(secret, config.s3.secretAccessKeyName),
  // Replaces settings an IRSA ServiceAccount gave: the secret's annotations are more specific.
  inject(secret, { config, container }) {
    mergeEnv(container, s3SecretEnvs(secret, config.s3));
  },
};
