/**
 * The cluster a pod webhook test sees: ServiceAccounts, Secrets and the
 * `inferenceservice-config` ConfigMap from YAML documents, served through the same
 * CredentialSource interface the real client implements.
 */
import type { V1ConfigMap, V1Secret, V1ServiceAccount } from '@kubernetes/client-node';
import { parseCredentialsConfig } from '../../../controller/config/credentials.js';
import { parseStorageInitializerConfig } from '../../../controller/config/storage-initializer.js';
import type { CredentialSource } from '../../../controller/webhooks/credentials/credential-source.js';
import type { WebhookConfig } from '../../../controller/webhooks/webhook-config.js';

type KubeObject = { kind?: string; metadata?: { name?: string; namespace?: string } };

export interface FakeCluster {
  source: CredentialSource;
  config: WebhookConfig;
}

export function fakeCluster(objects: readonly unknown[] = []): FakeCluster {
  const byKey = new Map<string, KubeObject>();
  let configMap: V1ConfigMap | undefined;
  for (const raw of objects) {
    const o = raw as KubeObject;
    if (o.kind === 'ConfigMap') configMap = o;
    else byKey.set(`${o.kind}/${o.metadata?.namespace ?? 'default'}/${o.metadata?.name}`, normalize(o));
  }
  const get = <T>(kind: string, namespace: string, name: string): Promise<T | undefined> =>
    Promise.resolve(structuredClone(byKey.get(`${kind}/${namespace}/${name}`)) as T | undefined);
  return {
    source: {
      serviceAccount: (ns, name) => get<V1ServiceAccount>('ServiceAccount', ns, name),
      secret: (ns, name) => get<V1Secret>('Secret', ns, name),
    },
    config: {
      storageInitializer: parseStorageInitializerConfig(configMap?.data?.['storageInitializer']),
      credentials: parseCredentialsConfig(configMap?.data?.['credentials']),
      defaultDeploymentMode: 'Knative',
    },
  };
}

/** `stringData` becomes base64 `data`, as the API server stores it. */
function normalize(o: KubeObject): KubeObject {
  const s = o as V1Secret;
  if (o.kind !== 'Secret' || !s.stringData) return o;
  const data = { ...(s.data ?? {}) };
  for (const [k, v] of Object.entries(s.stringData)) data[k] = Buffer.from(v).toString('base64');
  const { stringData: _ignored, ...rest } = s;
  return { ...rest, data } as KubeObject;
}
