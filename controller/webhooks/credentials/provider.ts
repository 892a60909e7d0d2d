/**
 * One kind of storage credential a Secret can hold (KServe `pkg/credentials/<kind>`). The
 * ServiceAccount builder asks the registry's providers in order and the first whose
 * `matches` is true injects the secret; a secret no provider matches is skipped.
 *
 * Contract: `matches` looks at data keys only (never values); `inject` references secret
 * values (secretKeyRef or a secret volume) rather than copying them into the pod, except
 * where KServe copies them too (https headers).
 */
import type { V1Container, V1PodSpec, V1Secret } from '@kubernetes/client-node';
import type { CredentialsConfig } from '../../config/credentials.js';

export interface SecretTarget {
  readonly config: CredentialsConfig;
  /** The init container that receives the variables and mounts. */
  readonly container: V1Container;
  /** The pod spec that receives credential volumes. */
  readonly spec: V1PodSpec;
}

export interface CredentialProvider {
  /** For logs and tests: `s3`, `gcs`, `azure`, ... */
  readonly name: string;
  matches(secret: V1Secret, config: CredentialsConfig): boolean;
  inject(secret: V1Secret, target: SecretTarget): void;
}

/** `name` from `key` of `secret`, by reference. */
export function secretRef(secret: V1Secret, name: string, key: string = name): { name: string; valueFrom: { secretKeyRef: { name: string; key: string } } } {
  return { name, valueFrom: { secretKeyRef: { name: secret.metadata?.name ?? '', key } } };
}
