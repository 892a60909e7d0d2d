/**
 * Credentials for `predictor.model.storage` (KServe `CreateStorageSpecSecretEnvs`): the
 * controller annotates the pod with the storage key and parameters; the storage secret
 * (`credentials.storageSpecSecretName`, default `storage-config`, or the secret named by the
 * pod annotation `credentials.storageSecretNameAnnotation`) holds one JSON entry per key.
 *
 * - key set → that entry must exist; key unset → `default_<type>` or `default`, if present;
 * - `STORAGE_CONFIG` refers to the entry (secretKeyRef), `STORAGE_OVERRIDE_CONFIG` carries
 *   the parameters (keys sorted, as Go marshals maps);
 * - the storage type comes from `parameters.type`, else the entry's `type`: `s3`, `hdfs` or
 *   `webhdfs`, KServe's storage spec types (the storage-initializer reads an hdfs entry's
 *   HDFS_NAMENODE, USER_PROXY, ... from STORAGE_CONFIG);
 * - a `<scheme-placeholder>://path` URI becomes `s3://<bucket>/path`, with the bucket from
 *   the parameters or else the entry, or `hdfs://path` / `webhdfs://path`.
 */
import type { V1Container } from '@kubernetes/client-node';
import type { CredentialsConfig } from '../../config/credentials.js';
import { errors } from '../errors.js';
import { mergeEnv } from '../pod/pod-spec.js';
import { type CredentialSource, read, secretText } from './credential-source.js';
import { S3_ENV } from './s3.js';

export const STORAGE_CONFIG_ENV = 'STORAGE_CONFIG';
export const STORAGE_OVERRIDE_CONFIG_ENV = 'STORAGE_OVERRIDE_CONFIG';
import { URI_SCHEME_PLACEHOLDER } from '../../constants.js';
import { jsonSyntaxProblem } from '../json-error.js';

export { URI_SCHEME_PLACEHOLDER };
export const SUPPORTED_STORAGE_SPEC_TYPES: readonly string[] = ['s3', 'hdfs', 'webhdfs'];
const BUCKET_TYPES: readonly string[] = ['s3'];

export interface StorageSpecInjection {
  source: CredentialSource;
  config: CredentialsConfig;
  namespace: string;
  podAnnotations: Record<string, string>;
  /** `''` means the default entry. */
  storageKey: string;
  parameters: Record<string, string>;
  container: V1Container;
}

export async function injectStorageSpecCredentials(inj: StorageSpecInjection): Promise<void> {
  const { config, container, parameters } = inj;
  const annotation = config.storageSecretNameAnnotation;
  const secretName = (annotation ? inj.podAnnotations[annotation] : undefined) ?? config.storageSpecSecretName;
  const secret = await read(`secret '${inj.namespace}/${secretName}'`, () => inj.source.secret(inj.namespace, secretName));

  let type = parameters['type'] ?? '';
  let bucket = parameters['bucket'] ?? '';
  let key = inj.storageKey;
  let entry: string | undefined;
  if (secret) {
    if (key !== '') {
      entry = secretText(secret, key);
      if (entry === undefined) throw errors.storageKeyNotFound(key, secretName);
    } else {
      key = type === '' ? 'default' : `default_${type}`;
      entry = secretText(secret, key);
    }
  } else if (key !== '') {
    throw errors.storageSecretMissing(secretName, key);
  }

  if (entry !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(entry);
    } catch (err) {
      throw errors.invalidStorageConfigJson(key, secretName, jsonSyntaxProblem(err));
    }
    const fields = (parsed !== null && typeof parsed === 'object' ? parsed : {}) as Record<string, unknown>;
    if (type === '' && typeof fields['type'] === 'string') type = fields['type'];
    if (bucket === '' && typeof fields['bucket'] === 'string') bucket = fields['bucket'];
    if (typeof fields['cabundle_configmap'] === 'string') {
      mergeEnv(container, [{ name: S3_ENV.caBundleConfigMap, value: fields['cabundle_configmap'] }]);
    }
    mergeEnv(container, [{ name: STORAGE_CONFIG_ENV, valueFrom: { secretKeyRef: { name: secretName, key } } }]);
  }

  if (type === '') throw errors.storageTypeUnknown(secretName);
  if (!SUPPORTED_STORAGE_SPEC_TYPES.includes(type)) throw errors.unsupportedStorageType(type, SUPPORTED_STORAGE_SPEC_TYPES);

  const args = container.args ?? [];
  const prefix = `${URI_SCHEME_PLACEHOLDER}://`;
  if (args[0]?.startsWith(prefix)) {
    if (BUCKET_TYPES.includes(type) && bucket === '') throw errors.missingBucket(type);
    // Arguments alternate <uri> <destination>.
    for (let i = 0; i < args.length; i += 2) {
      const path = (args[i] as string).slice(prefix.length);
      args[i] = BUCKET_TYPES.includes(type) ? `${type}://${bucket}/${path}` : `${type}://${path}`;
    }
  }

  const names = Object.keys(parameters).sort();
  if (names.length > 0) {
    const sorted = Object.fromEntries(names.map((n) => [n, parameters[n]]));
    mergeEnv(container, [{ name: STORAGE_OVERRIDE_CONFIG_ENV, value: JSON.stringify(sorted) }]);
  }
}
