/**
 * Where the pod webhook reads ServiceAccounts and Secrets. Mutators only see this
 * interface, so they stay pure functions of (pod, config, cluster objects) and tests hand
 * them a map of objects; `kubeCredentialSource` is the real one over CoreV1Api.
 *
 * Contract: a missing object resolves to `undefined`; any other failure rejects.
 */
import type { CoreV1Api, V1Secret, V1ServiceAccount } from '@kubernetes/client-node';
import { isNotFound } from '../../kube/api-errors.js';
import { errors } from '../errors.js';

export interface CredentialSource {
  serviceAccount(namespace: string, name: string): Promise<V1ServiceAccount | undefined>;
  secret(namespace: string, name: string): Promise<V1Secret | undefined>;
}

async function orUndefined<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

export function kubeCredentialSource(core: CoreV1Api): CredentialSource {
  return {
    serviceAccount: (namespace, name) => orUndefined(core.readNamespacedServiceAccount({ name, namespace })),
    secret: (namespace, name) => orUndefined(core.readNamespacedSecret({ name, namespace })),
  };
}

/** A secret's value as text (`data` is base64, as the API server returns it). */
export function secretText(secret: V1Secret, key: string): string | undefined {
  const encoded = secret.data?.[key];
  return encoded === undefined ? undefined : Buffer.from(encoded, 'base64').toString('utf8');
}

export function secretHasKey(secret: V1Secret, key: string): boolean {
  return secret.data !== undefined && Object.prototype.hasOwnProperty.call(secret.data, key);
}

/** A lookup whose failure (other than not found) becomes a clear 500 naming the object. */
export async function read<T>(what: string, lookup: () => Promise<T>): Promise<T> {
  try {
    return await lookup();
  } catch (err) {
    throw errors.lookupFailed(what, (err as Error)?.message ?? String(err));
  }
}
