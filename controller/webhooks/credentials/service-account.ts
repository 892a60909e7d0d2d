/**
 * Credentials from the pod's ServiceAccount (KServe `CreateSecretVolumeAndEnv`):
 *
 * 1. a ServiceAccount annotated `eks.amazonaws.com/role-arn` (IRSA) gives the S3 settings
 *    from its own `serving.kserve.io/s3-*` annotations;
 * 2. then the one secret named by the pod annotation `credentials.storageSecretNameAnnotation`
 *    (set on the InferenceService, copied to its pods), or else every secret the
 *    ServiceAccount lists, each injected by the first provider of the registry
 *    (registry.ts: S3, GCS, Azure, https headers, HDFS, Hugging Face) its data keys match.
 *    Other secrets (image pull tokens, ...) are skipped.
 *
 * A missing ServiceAccount means no credentials; a named secret that is missing is an error.
 */
import type { V1Container, V1PodSpec, V1Secret } from '@kubernetes/client-node';
import type { CredentialsConfig } from '../../config/credentials.js';
import { errors } from '../errors.js';
import { mergeEnv } from '../pod/pod-spec.js';
import { type CredentialSource, read } from './credential-source.js';
import { providerFor } from './registry.js';
import { s3SettingEnvs } from './s3.js';

export const IRSA_ANNOTATION = 'eks.amazonaws.com/role-arn';
export const DEFAULT_SERVICE_ACCOUNT = 'default';

export interface CredentialInjection {
  source: CredentialSource;
  config: CredentialsConfig;
  namespace: string;
  podAnnotations: Record<string, string>;
  /** The init container that receives the variables and mounts. */
  container: V1Container;
  /** The pod spec that receives credential volumes. */
  spec: V1PodSpec;
  debug?: (message: string) => void;
}

export async function injectServiceAccountCredentials(inj: CredentialInjection): Promise<void> {
  const { source, config, namespace } = inj;
  const name = inj.spec.serviceAccountName || DEFAULT_SERVICE_ACCOUNT;
  const sa = await read(`service account '${namespace}/${name}'`, () => source.serviceAccount(namespace, name));
  if (!sa) {
    inj.debug?.(`service account '${namespace}/${name}' not found: no storage credentials injected`);
    return;
  }
  if (sa.metadata?.annotations?.[IRSA_ANNOTATION] !== undefined) {
    mergeEnv(inj.container, s3SettingEnvs(sa.metadata.annotations, undefined, config.s3));
  }
  const annotation = config.storageSecretNameAnnotation;
  const named = annotation ? inj.podAnnotations[annotation] : undefined;
  if (named !== undefined) {
    await injectSecret(inj, named, `named by annotation '${annotation}'`);
    return;
  }
  for (const ref of sa.secrets ?? []) {
    if (ref.name) await injectSecret(inj, ref.name, `listed by service account '${name}'`);
  }
}

async function injectSecret(inj: CredentialInjection, name: string, why: string): Promise<void> {
  const secret = await read(`secret '${inj.namespace}/${name}'`, () => inj.source.secret(inj.namespace, name));
  if (!secret) throw errors.secretNotFound(inj.namespace, name, why);
  classify(inj, secret);
}

function classify(inj: CredentialInjection, secret: V1Secret): void {
  const provider = providerFor(secret, inj.config);
  if (!provider) {
    inj.debug?.(`secret '${secret.metadata?.name ?? ''}' holds no storage credentials kserve-ts uses: skipped`);
    return;
  }
  provider.inject(secret, inj);
}
