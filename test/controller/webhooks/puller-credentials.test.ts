/**
 * The serving container of a multi-model pod pulls its TrainedModels itself, so the pod
 * webhook gives it the storage credentials of the pod's ServiceAccount: exactly what the
 * storage-initializer of a single-model pod gets from the same ServiceAccount (KServe gives
 * them to its agent sidecar). Single-model pods are left as they were.
 */
import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { mutatePod } from '../../../controller/webhooks/pod/pod-mutator.js';
import { fakeCluster } from './fake-cluster.js';

const SOURCE_URI = 'internal.serving.kserve.io/storage-initializer-sourceuri';

function pod(args: string[], annotations: Record<string, string> = {}): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'team', labels: { 'serving.kserve.io/inferenceservice': 'mms' }, annotations },
    spec: { containers: [{ name: 'kserve-container', image: 'kserve-ts-server', args }] },
  };
}

const objects = [
  { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'team' }, secrets: [{ name: 's3' }, { name: 'gcs' }] },
  { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's3', namespace: 'team' }, stringData: { AWS_ACCESS_KEY_ID: 'a', AWS_SECRET_ACCESS_KEY: 'b' } },
  { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'gcs', namespace: 'team' }, stringData: { 'gcloud-application-credentials.json': '{}' } },
];

async function mutate(p: V1Pod): Promise<V1Pod> {
  const cluster = fakeCluster(objects);
  return (await mutatePod(p, { namespace: 'team', config: cluster.config, credentials: cluster.source, controllerNamespace: 'kserve' })).pod;
}

const MMS_ARGS = ['serve', '--model_dir=/mnt/models', '--model_config_file=/mnt/configs/models.json'];
const server = (p: V1Pod): V1Container => p.spec?.containers.find((c) => c.name === 'kserve-container') as V1Container;

describe('credentials for the in-server puller', () => {
  it("gives the serving container of a multi-model pod what a single-model pod's storage-initializer gets", async () => {
    const multi = await mutate(pod(MMS_ARGS));
    const single = await mutate(pod(['serve', '--model_dir=/mnt/models'], { [SOURCE_URI]: 's3://bucket/model' }));
    const init = single.spec?.initContainers?.find((c) => c.name === 'storage-initializer') as V1Container;
    const credentialEnv = (c: V1Container) => (c.env ?? []).filter((e) => e.name.startsWith('AWS_') || e.name.startsWith('S3_') || e.name === 'GOOGLE_APPLICATION_CREDENTIALS');
    expect(credentialEnv(server(multi)).map((e) => e.name)).toEqual(expect.arrayContaining(['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'GOOGLE_APPLICATION_CREDENTIALS']));
    expect(credentialEnv(server(multi))).toEqual(credentialEnv(init));
    // The GCS key file: the same secret volume, mounted into the serving container.
    expect(multi.spec?.volumes).toEqual(single.spec?.volumes?.filter((v) => v.name === 'user-gcp-sa'));
    expect(server(multi).volumeMounts).toEqual(init.volumeMounts?.filter((m) => m.name === 'user-gcp-sa'));
    // Secret values never enter the pod spec: references only.
    expect(JSON.stringify(multi)).not.toContain('"b"');
    expect(multi.spec?.initContainers).toBeUndefined();
  });

  it('is idempotent (the API server may call the webhook again)', async () => {
    const once = await mutate(pod(MMS_ARGS));
    expect(await mutate(once)).toEqual(once);
  });

  it('leaves a single-model serving container as it was', async () => {
    const before = pod(['serve', '--model_dir=/mnt/models']);
    expect(server(await mutate(before))).toEqual(server(before));
  });
});
