/** `credentials` key: how the pod webhook finds and maps storage credentials. */
import { objectField, parseSection, stringField } from './section.js';

export interface S3CredentialsConfig {
  accessKeyIdName: string;
  secretAccessKeyName: string;
  endpoint: string;
  useHttps: string;
  region: string;
  verifySSL: string;
  useVirtualBucket: string;
  useAccelerate: string;
  useAnonymousCredential: string;
  caBundleConfigMap: string;
  caBundle: string;
}

export interface CredentialsConfig {
  storageSpecSecretName: string;
  /** Pod annotation (set on the InferenceService, copied to its pods) naming the one secret to use instead of the ServiceAccount's list (KServe reads it from the pod, not the ServiceAccount). */
  storageSecretNameAnnotation: string;
  gcsCredentialFileName: string;
  s3: S3CredentialsConfig;
}

const KEY = 'credentials';

export function parseCredentialsConfig(raw: string | undefined): CredentialsConfig {
  const c = parseSection(KEY, raw);
  const gcs = objectField(KEY, c, 'gcs');
  const s3 = objectField(KEY, c, 's3');
  const s = (field: string, fallback = ''): string => stringField(`${KEY}.s3`, s3, field, fallback);
  return {
    storageSpecSecretName: stringField(KEY, c, 'storageSpecSecretName', 'storage-config'),
    storageSecretNameAnnotation: stringField(KEY, c, 'storageSecretNameAnnotation', 'serving.kserve.io/secretName'),
    gcsCredentialFileName: stringField(`${KEY}.gcs`, gcs, 'gcsCredentialFileName', 'gcloud-application-credentials.json'),
    s3: {
      accessKeyIdName: s('s3AccessKeyIDName', 'AWS_ACCESS_KEY_ID'),
      secretAccessKeyName: s('s3SecretAccessKeyName', 'AWS_SECRET_ACCESS_KEY'),
      endpoint: s('s3Endpoint'),
      useHttps: s('s3UseHttps'),
      region: s('s3Region'),
      verifySSL: s('s3VerifySSL'),
      useVirtualBucket: s('s3UseVirtualBucket'),
      useAccelerate: s('s3UseAccelerate'),
      useAnonymousCredential: s('s3UseAnonymousCredential'),
      caBundleConfigMap: s('s3CABundleConfigMap'),
      caBundle: s('s3CABundle'),
    },
  };
}
