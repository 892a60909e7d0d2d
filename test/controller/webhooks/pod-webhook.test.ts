/** The pod webhook's rejections and request handling beyond the golden pairs. */
import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { AdmissionRequest, Operation } from '../../../controller/webhooks/admission.js';
import type { CredentialSource } from '../../../controller/webhooks/credentials/credential-source.js';
import { WebhookError } from '../../../controller/webhooks/errors.js';
import { applyPatch } from '../../../controller/webhooks/json-patch.js';
import { mutatePod } from '../../../controller/webhooks/pod/pod-mutator.js';
import { podWebhook } from '../../../controller/webhooks/pod/pod-webhook.js';
import { fakeCluster } from './fake-cluster.js';

const SOURCE_URI = 'internal.serving.kserve.io/storage-initializer-sourceuri';

function pod(annotations: Record<string, string>, containers = ['kserve-container'], namespace: string | undefined = 'default'): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', ...(namespace ? { namespace } : {}), labels: { 'serving.kserve.io/inferenceservice': 'isvc' }, annotations },
    spec: { containers: containers.map((name) => ({ name, image: 'img' })) },
  };
}

/** The inferenceservice-config with modelcars on (they are off by default, as in KServe). */
const MODELCARS_ON = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'inferenceservice-config', namespace: 'kserve' },
  data: { storageInitializer: JSON.stringify({ enableModelcar: true }) },
};

function request(object: unknown, operation: Operation = 'CREATE', namespace = 'default'): AdmissionRequest {
  return { uid: 'u', kind: { group: '', version: 'v1', kind: 'Pod' }, namespace, operation, object };
}

const serviceAccount = (secrets: string[], namespace = 'default') => ({
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: { name: 'default', namespace },
  secrets: secrets.map((name) => ({ name })),
});
const secret = (name: string, stringData: Record<string, string>, namespace = 'default') => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace },
  stringData,
});

function handler(objects: unknown[] = [], source?: CredentialSource) {
  const cluster = fakeCluster(objects);
  return podWebhook({ getConfig: () => cluster.config, credentials: source ?? cluster.source, controllerNamespace: 'kserve' });
}

describe('pod webhook rejections', () => {
  const cases: [string, V1Pod, unknown[], 400 | 500, string][] = [
    ['no model container', pod({ [SOURCE_URI]: 'gs://m' }, ['sidecar']), [], 400, "the pod has no container named 'kserve-container' or 'worker-container'"],
    ['PVC URI without a claim', pod({ [SOURCE_URI]: 'pvc:///models' }), [], 400, "invalid PVC storage URI 'pvc:///models'"],
    ['PVC URI whose path leaves the claim (no subPath: ../etc patch)', pod({ [SOURCE_URI]: 'pvc://claim/../../etc' }), [], 400, "invalid PVC storage URI 'pvc://claim/../../etc'"],
    ['PVC URI with .. as the claim', pod({ [SOURCE_URI]: 'pvc://../etc' }), [], 400, "invalid PVC storage URI 'pvc://../etc'"],
    [
      'secret listed by the ServiceAccount is missing',
      pod({ [SOURCE_URI]: 's3://b/m' }),
      [serviceAccount(['gone'])],
      400,
      "secret 'default/gone' (listed by service account 'default') not found",
    ],
    [
      'secret named by annotation is missing',
      pod({ [SOURCE_URI]: 's3://b/m', 'serving.kserve.io/secretName': 'nope' }),
      [serviceAccount([])],
      400,
      "secret 'default/nope' (named by annotation 'serving.kserve.io/secretName') not found",
    ],
    [
      'storage key missing from the storage secret',
      pod({ [SOURCE_URI]: '<scheme-placeholder>://m', 'internal.serving.kserve.io/storage-spec': 'true', 'internal.serving.kserve.io/storage-spec-key': 'mine' }),
      [secret('storage-config', { other: '{}' })],
      400,
      "storage key 'mine' not found in storage secret 'storage-config'",
    ],
    [
      'storage key requested without a storage secret',
      pod({ [SOURCE_URI]: '<scheme-placeholder>://m', 'internal.serving.kserve.io/storage-spec': 'true', 'internal.serving.kserve.io/storage-spec-key': 'mine' }),
      [],
      400,
      "storage secret 'storage-config' not found, and storage key 'mine' was requested from it",
    ],
    [
      'storage type kserve-ts does not download',
      pod({ [SOURCE_URI]: '<scheme-placeholder>://m', 'internal.serving.kserve.io/storage-spec': 'true', 'internal.serving.kserve.io/storage-spec-param': '{"type":"gs"}' }),
      [],
      400,
      "storage type 'gs' is not supported (supported: s3, hdfs, webhdfs)",
    ],
    [
      'storage type nowhere',
      pod({ [SOURCE_URI]: '<scheme-placeholder>://m', 'internal.serving.kserve.io/storage-spec': 'true' }),
      [secret('storage-config', { default: '{"bucket": "b"}' })],
      400,
      'unable to determine the storage type',
    ],
    [
      'placeholder URI without a bucket',
      pod({ [SOURCE_URI]: '<scheme-placeholder>://m', 'internal.serving.kserve.io/storage-spec': 'true', 'internal.serving.kserve.io/storage-spec-param': '{"type":"s3"}' }),
      [],
      400,
      "storage type 's3' requires a bucket",
    ],
    [
      'storage secret entry that is not JSON',
      pod({ [SOURCE_URI]: '<scheme-placeholder>://m', 'internal.serving.kserve.io/storage-spec': 'true', 'internal.serving.kserve.io/storage-spec-key': 'k' }),
      [secret('storage-config', { k: 'type: s3' })],
      400,
      "key 'k' of storage secret 'storage-config' is not valid JSON",
    ],
    [
      'storage-spec-param that is not JSON',
      pod({ [SOURCE_URI]: '<scheme-placeholder>://m', 'internal.serving.kserve.io/storage-spec': 'true', 'internal.serving.kserve.io/storage-spec-param': '{type: s3}' }),
      [],
      400,
      "annotation 'internal.serving.kserve.io/storage-spec-param' must be a JSON object of strings",
    ],
    [
      'oci:// with modelcars disabled (the default), the URI shown without its user info',
      pod({ [SOURCE_URI]: 'oci://robot:s3cret@registry.example.com/models/iris:1' }),
      [],
      400,
      'cannot serve \'oci://registry.example.com/models/iris:1\': OCI modelcars is not enabled (set "enableModelcar": true in the storageInitializer key',
    ],
    [
      'oci:// with user info is no image reference',
      pod({ [SOURCE_URI]: 'oci://robot:s3cret@registry.example.com/m:1' }),
      [MODELCARS_ON],
      400,
      "invalid OCI storage URI 'oci://registry.example.com/m:1'",
    ],
    ['oci:// naming no image', pod({ [SOURCE_URI]: 'oci://' }), [MODELCARS_ON], 400, "invalid OCI storage URI 'oci://'"],
    // The image is written into the init container's `sh -c` line: no quote may reach it.
    ['oci:// image with shell characters', pod({ [SOURCE_URI]: "oci://registry/m:1';reboot;'" }), [MODELCARS_ON], 400, 'invalid OCI storage URI'],
    ['oci:// image with a query', pod({ [SOURCE_URI]: 'oci://registry/m:1?token=x' }), [MODELCARS_ON], 400, "invalid OCI storage URI 'oci://registry/m:1?…'"],
    [
      'oci:// without a model container',
      pod({ [SOURCE_URI]: 'oci://registry/m:1' }, ['sidecar']),
      [MODELCARS_ON],
      400,
      "the pod has no container named 'kserve-container' or 'worker-container'",
    ],
  ];

  it.each(cases)('%s', async (_name, p, objects, code, message) => {
    const rejection = handler(objects)(request(p));
    await expect(rejection).rejects.toBeInstanceOf(WebhookError);
    await expect(rejection).rejects.toMatchObject({ code, message: expect.stringContaining(message) });
  });

  it('reports a failed lookup as a 500 naming the object', async () => {
    const failing: CredentialSource = {
      serviceAccount: () => Promise.reject(new Error('serviceaccounts "default" is forbidden')),
      secret: () => Promise.resolve(undefined),
    };
    await expect(handler([], failing)(request(pod({ [SOURCE_URI]: 's3://b/m' })))).rejects.toMatchObject({
      code: 500,
      message: 'reading service account \'default/default\' failed: serviceaccounts "default" is forbidden',
    });
  });

  it('does not read credentials for an oci:// modelcar and injects no storage-initializer', async () => {
    const failing: CredentialSource = { serviceAccount: () => Promise.reject(new Error('read')), secret: () => Promise.reject(new Error('read')) };
    const cluster = fakeCluster([MODELCARS_ON]);
    const h = podWebhook({ getConfig: () => cluster.config, credentials: failing, controllerNamespace: 'kserve' });
    const verdict = await h(request(pod({ [SOURCE_URI]: 'oci://registry/m:1' }, ['kserve-container', 'worker-container'])));
    if (!verdict.allowed) throw new Error(`denied: ${verdict.status.message}`);
    const stored = applyPatch(pod({ [SOURCE_URI]: 'oci://registry/m:1' }, ['kserve-container', 'worker-container']), verdict.patch ?? []) as V1Pod;
    expect(stored.spec?.initContainers?.map((c) => c.name)).toEqual(['modelcar-init']);
    expect(stored.spec?.containers.map((c) => c.name)).toEqual(['kserve-container', 'worker-container', 'modelcar']);
    // KServe configures kserve-container when there is one; worker-container only without it.
    expect(stored.spec?.containers[1]?.volumeMounts).toBeUndefined();
  });

  it('takes an upper-case OCI:// scheme as oci://, as the InferenceService validator does', async () => {
    const cluster = fakeCluster([MODELCARS_ON]);
    const h = podWebhook({ getConfig: () => cluster.config, credentials: cluster.source, controllerNamespace: 'kserve' });
    const original = pod({ [SOURCE_URI]: 'OCI://registry/m:1' });
    const verdict = await h(request(original));
    if (!verdict.allowed) throw new Error(`denied: ${verdict.status.message}`);
    const stored = applyPatch(original, verdict.patch ?? []) as V1Pod;
    expect(stored.spec?.initContainers?.map((c) => [c.name, c.image])).toEqual([['modelcar-init', 'registry/m:1']]);
  });

  it('does not read credentials for a PVC (nothing is downloaded)', async () => {
    const failing: CredentialSource = { serviceAccount: () => Promise.reject(new Error('read')), secret: () => Promise.reject(new Error('read')) };
    const verdict = await handler([], failing)(request(pod({ [SOURCE_URI]: 'pvc://claim/m' })));
    expect(verdict.allowed).toBe(true);
  });
});

describe('pod webhook requests', () => {
  it('only mutates on CREATE', async () => {
    expect(await handler()(request(pod({ [SOURCE_URI]: 'gs://m' }), 'UPDATE'))).toEqual({ allowed: true });
  });

  it('reads credentials in the request namespace when the pod has none yet', async () => {
    const objects = [serviceAccount(['s3'], 'team'), secret('s3', { AWS_ACCESS_KEY_ID: 'a', AWS_SECRET_ACCESS_KEY: 'b' }, 'team')];
    const original = pod({ [SOURCE_URI]: 's3://b/m' }, ['kserve-container'], undefined);
    const verdict = await handler(objects)(request(original, 'CREATE', 'team'));
    if (!verdict.allowed) throw new Error(verdict.status.message);
    const mutated = applyPatch(original, verdict.patch ?? []) as V1Pod;
    const env = mutated.spec?.initContainers?.[0]?.env ?? [];
    expect(env.map((e) => e.name)).toEqual(['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']);
    expect(env[0]?.valueFrom?.secretKeyRef?.name).toBe('s3');
  });

  it('runs the mutators in order and answers with one patch for all of them', async () => {
    const cluster = fakeCluster();
    const order: string[] = [];
    const { pod: result, patch } = await mutatePod(pod({}), { namespace: 'default', config: cluster.config, credentials: cluster.source, controllerNamespace: 'kserve' }, [
      (p) => {
        order.push('first');
        p.metadata!.labels!['first'] = 'yes';
      },
      async (p) => {
        order.push('second');
        p.spec!.containers[0]!.env = [{ name: 'X', value: p.metadata!.labels!['first'] }];
      },
    ]);
    expect(order).toEqual(['first', 'second']);
    expect(patch).toEqual([
      { op: 'add', path: '/metadata/labels/first', value: 'yes' },
      { op: 'add', path: '/spec/containers/0/env', value: [{ name: 'X', value: 'yes' }] },
    ]);
    expect(result.spec?.containers[0]?.env).toEqual([{ name: 'X', value: 'yes' }]);
  });
});
