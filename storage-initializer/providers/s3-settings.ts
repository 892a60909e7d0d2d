/**
 * S3's settings: KServe's variable names (storage.py, the webhook's S3 credential builder),
 * and the s3 entry of the storage-config secret mapped onto them as KServe maps it.
 */
import path from 'node:path';
import { type Env, type StorageConfigObject, bool, readCa } from '../env.js';
import { errors } from '../errors.js';
import type { ProviderSettings } from '../provider.js';
import { uriSecrets } from '../redact.js';

export interface S3Config {
  /** Custom endpoint (MinIO, Ceph, moto...): path-style addressing unless virtualBucket. */
  endpoint: string | undefined;
  region: string;
  accessKeyId: string | undefined;
  secretAccessKey: string | undefined;
  sessionToken: string | undefined;
  anonymous: boolean;
  virtualBucket: boolean;
  verifySsl: boolean;
  /** PEM text of AWS_CA_BUNDLE (or the CA bundle configmap). */
  ca: string | undefined;
  /** S3_USE_ACCELERATE: the s3-accelerate endpoint (AWS only; refused with a custom endpoint). */
  accelerate: boolean;
  /**
   * IRSA / web identity: AWS_ROLE_ARN + AWS_WEB_IDENTITY_TOKEN_FILE (as EKS injects them),
   * exchanged at STS (AWS_ENDPOINT_URL_STS for a private or emulated STS).
   */
  webIdentity: { roleArn: string; tokenFile: string; sessionName: string; stsEndpoint: string | undefined } | undefined;
}

export const DEFAULT_REGION = 'us-east-1';

/** The s3 entry of STORAGE_CONFIG as the AWS variables it stands for; its values win over the plain ones. */
function storageConfigEnv(cfg: StorageConfigObject): Record<string, string> {
  const out: Record<string, string> = {};
  if (cfg['type'] !== 's3') return out;
  const map: Record<string, string> = {
    endpoint_url: 'AWS_ENDPOINT_URL',
    access_key_id: 'AWS_ACCESS_KEY_ID',
    secret_access_key: 'AWS_SECRET_ACCESS_KEY',
    region: 'AWS_DEFAULT_REGION',
    ca_bundle: 'AWS_CA_BUNDLE',
    verify_ssl: 'S3_VERIFY_SSL',
    anonymous: 'awsAnonymousCredential',
  };
  for (const [k, envName] of Object.entries(map)) {
    const v = cfg[k];
    if (v !== undefined && v !== null && v !== '') out[envName] = typeof v === 'string' ? v : JSON.stringify(v);
  }
  return out;
}

function s3Endpoint(env: Env): string | undefined {
  if (env['AWS_ENDPOINT_URL']) return env['AWS_ENDPOINT_URL'];
  const ep = env['S3_ENDPOINT'];
  if (!ep) return undefined;
  if (/^https?:\/\//i.test(ep)) return ep;
  // The webhook sets S3_ENDPOINT without a scheme and S3_USE_HTTPS=0|1 (default https).
  return `${bool(env['S3_USE_HTTPS'], true) ? 'https' : 'http'}://${ep}`;
}

/**
 * As KServe: the legacy global endpoint with a region other than us-east-1 needs virtual
 * addressing, or S3 answers PermanentRedirect.
 */
function legacyGlobalEndpoint(env: Env): boolean {
  const region = env['AWS_DEFAULT_REGION'] || env['AWS_REGION'];
  return env['AWS_ENDPOINT_URL'] === 'https://s3.amazonaws.com' && region !== undefined && region !== '' && region !== DEFAULT_REGION;
}

function webIdentity(env: Env): S3Config['webIdentity'] {
  const tokenFile = env['AWS_WEB_IDENTITY_TOKEN_FILE'];
  const roleArn = env['AWS_ROLE_ARN'];
  if (!tokenFile && !roleArn) return undefined;
  if (!tokenFile || !roleArn) {
    const [set, missing] = tokenFile ? ['AWS_WEB_IDENTITY_TOKEN_FILE', 'AWS_ROLE_ARN'] : ['AWS_ROLE_ARN', 'AWS_WEB_IDENTITY_TOKEN_FILE'];
    throw errors.invalidSetting('AWS_WEB_IDENTITY_TOKEN_FILE', `${set} is set but ${missing} is not: web identity (IRSA) needs both`);
  }
  return { roleArn, tokenFile, sessionName: env['AWS_ROLE_SESSION_NAME'] || `kserve-ts-storage-initializer-${process.pid}`, stsEndpoint: env['AWS_ENDPOINT_URL_STS'] || undefined };
}

function caBundle(env: Env): string | undefined {
  if (env['AWS_CA_BUNDLE']) return readCa(env['AWS_CA_BUNDLE'], 'AWS_CA_BUNDLE');
  if (env['CA_BUNDLE_CONFIGMAP_NAME']) {
    return readCa(path.join(env['CA_BUNDLE_VOLUME_MOUNT_POINT'] || '/etc/ssl/custom-certs', 'cabundle.crt'), 'CA_BUNDLE_CONFIGMAP_NAME');
  }
  return undefined;
}

export const S3_SETTINGS: ProviderSettings<S3Config> = {
  read(rawEnv, storageConfig) {
    const env: Env = { ...rawEnv, ...storageConfigEnv(storageConfig) };
    const ca = caBundle(env);
    return {
      endpoint: s3Endpoint(env),
      region: env['AWS_DEFAULT_REGION'] || env['AWS_REGION'] || DEFAULT_REGION,
      accessKeyId: env['AWS_ACCESS_KEY_ID'] || undefined,
      secretAccessKey: env['AWS_SECRET_ACCESS_KEY'] || undefined,
      sessionToken: env['AWS_SESSION_TOKEN'] || undefined,
      anonymous: bool(env['awsAnonymousCredential'], false),
      virtualBucket: bool(env['S3_USER_VIRTUAL_BUCKET'], false) || legacyGlobalEndpoint(env),
      verifySsl: bool(env['S3_VERIFY_SSL'], true),
      ca,
      accelerate: bool(env['S3_USE_ACCELERATE'], false),
      webIdentity: webIdentity(env),
    };
  },
  secrets: (c) => [c.accessKeyId, c.secretAccessKey, c.sessionToken, ...uriSecrets(c.endpoint)],
};
