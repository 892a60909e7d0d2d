/**
 * The node-local model cache in the pod webhook: the `storageInitializer` section's cache keys
 * parsed once (with the reasons a bad one is refused), then the cache volume mounted where
 * models are downloaded — the storage-initializer of a single-model pod and the serving
 * container of a multi-model pod (its puller) — with the flags that point each program at it.
 * Pods are left as they were without the keys, and a second webhook call changes nothing.
 */
import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { parseStorageInitializerConfig } from '../../../controller/config/storage-initializer.js';
import { mutatePod } from '../../../controller/webhooks/pod/pod-mutator.js';
import { fakeCluster } from './fake-cluster.js';

const SOURCE_URI = 'internal.serving.kserve.io/storage-initializer-sourceuri';
const MMS_ARGS = ['serve', '--model_dir=/mnt/models', '--model_config_file=/mnt/configs/models.json'];

function pod(args: string[], annotations: Record<string, string> = {}): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'team', labels: { 'serving.kserve.io/inferenceservice': 'm' }, annotations },
    spec: { containers: [{ name: 'kserve-container', image: 'kserve-ts-server', args }] },
  };
}

function configMap(storageInitializer: object) {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'inferenceservice-config', namespace: 'kserve' },
    data: { storageInitializer: JSON.stringify(storageInitializer) },
  };
}

async function mutate(p: V1Pod, storageInitializer: object): Promise<V1Pod> {
  const cluster = fakeCluster([configMap(storageInitializer)]);
  return (await mutatePod(p, { namespace: 'team', config: cluster.config, credentials: cluster.source, controllerNamespace: 'kserve' })).pod;
}

const init = (p: V1Pod) => p.spec?.initContainers?.find((c) => c.name === 'storage-initializer') as V1Container;
const server = (p: V1Pod) => p.spec?.containers.find((c) => c.name === 'kserve-container') as V1Container;
const HOST = { cacheHostPath: '/var/lib/kserve-ts/model-cache', cacheMaxBytes: '20Gi' };

describe('the storageInitializer cache keys', () => {
  it('reads a hostPath or a claim, with an optional bound; none without the keys', () => {
    expect(parseStorageInitializerConfig(JSON.stringify(HOST)).modelCache).toEqual({ source: { hostPath: '/var/lib/kserve-ts/model-cache' }, maxBytes: '20Gi' });
    expect(parseStorageInitializerConfig(JSON.stringify({ cachePvcName: 'model-cache' })).modelCache).toEqual({ source: { pvcName: 'model-cache' }, maxBytes: undefined });
    expect(parseStorageInitializerConfig('{}').modelCache).toBeUndefined();
  });

  it.each([
    [{ cacheHostPath: '/a', cachePvcName: 'b' }, "'cacheHostPath' and 'cachePvcName' are two places for one cache: set one"],
    [{ cacheHostPath: 'relative/dir' }, "'cacheHostPath' must be an absolute path on the node, got 'relative/dir'"],
    [{ cacheHostPath: '/a', cacheMaxBytes: 'lots' }, "'cacheMaxBytes' 'lots' is not a size (for example 20Gi)"],
    [{ cacheMaxBytes: '1Gi' }, "'cacheMaxBytes' bounds a cache, but neither 'cacheHostPath' nor 'cachePvcName' is set"],
    [{ cacheHostPath: 7 }, "'cacheHostPath' must be a string"],
  ])('refuses %j', (section, message) => {
    expect(() => parseStorageInitializerConfig(JSON.stringify(section))).toThrow(`inferenceservice-config 'storageInitializer': ${message}`);
  });
});

describe('the cache in the pod', () => {
  it("a single-model pod: the storage-initializer mounts the node's folder and gets --cache_dir and the bound before its pairs", async () => {
    const p = await mutate(pod(['serve', '--model_dir=/mnt/models'], { [SOURCE_URI]: 's3://bucket/model' }), HOST);
    expect(init(p).args).toEqual(['--cache_dir', '/mnt/model-cache', '--cache_max_bytes', '20Gi', 's3://bucket/model', '/mnt/models']);
    expect(init(p).volumeMounts).toContainEqual({ name: 'kserve-model-cache', mountPath: '/mnt/model-cache' });
    expect(p.spec?.volumes).toContainEqual({ name: 'kserve-model-cache', hostPath: { path: '/var/lib/kserve-ts/model-cache', type: 'DirectoryOrCreate' } });
    // The serving container reads /mnt/models only; the cache is the downloader's.
    expect(server(p).volumeMounts?.map((m) => m.name)).toEqual(['kserve-provision-location']);
  });

  it('a multi-model pod: the serving container (its puller) mounts the claim and gets --storage_cache_dir', async () => {
    const p = await mutate(pod(MMS_ARGS), { cachePvcName: 'model-cache' });
    expect(server(p).args).toEqual([...MMS_ARGS, '--storage_cache_dir', '/mnt/model-cache']);
    expect(server(p).volumeMounts).toEqual([{ name: 'kserve-model-cache', mountPath: '/mnt/model-cache' }]);
    expect(p.spec?.volumes).toEqual([{ name: 'kserve-model-cache', persistentVolumeClaim: { claimName: 'model-cache' } }]);
    expect(p.spec?.initContainers).toBeUndefined();
  });

  it('a second webhook call changes nothing; flags the pod already carries are kept', async () => {
    for (const before of [pod(MMS_ARGS), pod(['serve', '--model_dir=/mnt/models'], { [SOURCE_URI]: 's3://bucket/model' })]) {
      const once = await mutate(before, HOST);
      expect(await mutate(once, HOST)).toEqual(once);
    }
    const own = await mutate(pod([...MMS_ARGS, '--storage_cache_dir=/elsewhere']), HOST);
    expect(server(own).args).toEqual([...MMS_ARGS, '--storage_cache_dir=/elsewhere', '--storage_cache_max_bytes', '20Gi']);
  });

  it('without the cache keys pods are as before; pvc:// and oci:// models download nothing, so they get no cache', async () => {
    expect(server(await mutate(pod(MMS_ARGS), {}))).toEqual(server(pod(MMS_ARGS)));
    expect(init(await mutate(pod(['serve'], { [SOURCE_URI]: 's3://bucket/model' }), {})).args).toEqual(['s3://bucket/model', '/mnt/models']);
    const pvc = await mutate(pod(['serve'], { [SOURCE_URI]: 'pvc://claim/model' }), HOST);
    expect(pvc.spec?.volumes?.map((v) => v.name)).toEqual(['kserve-pvc-source']);
  });
});
