/**
 * The webhooks registered by URL with a real kube-apiserver (test/controller/harness): the API
 * server calls our HTTPS server, verifying it with the generated CA, and stores what our
 * patches made. ServiceAccounts and Secrets are read through the real CoreV1Api source.
 */
import { AdmissionregistrationV1Api, CoreV1Api, CustomObjectsApi, type V1Pod } from '@kubernetes/client-node';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCredentialsConfig } from '../../../controller/config/credentials.js';
import { parseStorageInitializerConfig } from '../../../controller/config/storage-initializer.js';
import { applyWebhookConfigurations, createWebhooks, generateSelfSignedCertificates, kubeCredentialSource, type WebhookServer } from '../../../controller/webhooks/index.js';
import { startControlPlane, type TestControlPlane, waitFor } from '../harness/index.js';

const NS = 'webhook-e2e';
const SOURCE_URI = 'internal.serving.kserve.io/storage-initializer-sourceuri';
const ISVC = { group: 'serving.kserve.io', version: 'v1beta1', namespace: NS, plural: 'inferenceservices' };

let cp: TestControlPlane;
let server: WebhookServer;
let core: CoreV1Api;
let custom: CustomObjectsApi;
/** The storageInitializer key the webhooks read; a test may switch modelcars on for its pods. */
let storageInitializer = JSON.stringify({ image: 'kserve-ts/storage-initializer:e2e' });

function pod(name: string, annotations: Record<string, string>, labelled = true, container = 'kserve-container'): V1Pod {
  return {
    metadata: { name, annotations, labels: labelled ? { 'serving.kserve.io/inferenceservice': 'iris' } : {} },
    spec: { containers: [{ name: container, image: 'kserve-ts:test' }] },
  };
}

/** The API server's message for a rejected request, from client-node's ApiException. */
function rejection(err: unknown): string {
  const e = err as { body?: unknown; message?: string };
  return `${typeof e.body === 'string' ? e.body : JSON.stringify(e.body ?? '')} ${e.message ?? ''}`;
}

beforeAll(async () => {
  // The first run builds the control-plane binaries (scripts/kube-test-binaries.sh).
  cp = await startControlPlane({ controllerManager: false });
  core = cp.kubeConfig.makeApiClient(CoreV1Api);
  custom = cp.kubeConfig.makeApiClient(CustomObjectsApi);

  const tls = generateSelfSignedCertificates();
  server = createWebhooks({
    controllerNamespace: 'kserve',
    credentials: kubeCredentialSource(core),
    getConfig: () => ({
      storageInitializer: parseStorageInitializerConfig(storageInitializer),
      credentials: parseCredentialsConfig(undefined),
      defaultDeploymentMode: 'Standard',
    }),
    logger: pino({ level: 'silent' }),
    tls,
  });
  const { port } = await server.listen(0, '127.0.0.1');
  await applyWebhookConfigurations(cp.kubeConfig.makeApiClient(AdmissionregistrationV1Api), {
    target: { url: `https://127.0.0.1:${port}` },
    caBundle: tls.caBundle,
  });

  const crd = await cp.kubectl(['apply', '-f', 'controller/crds/serving.kserve.io_inferenceservices.yaml']);
  if (crd.code !== 0) throw new Error(`installing the InferenceService CRD failed: ${crd.stderr}`);
  await cp.kubectl(['wait', '--for=condition=Established', '--timeout=60s', 'crd/inferenceservices.serving.kserve.io']);

  // No controller manager: the namespace's ServiceAccount is ours, listing an S3 secret.
  await core.createNamespace({ body: { metadata: { name: NS } } });
  await core.createNamespacedSecret({
    namespace: NS,
    body: {
      metadata: { name: 's3-creds', annotations: { 'serving.kserve.io/s3-endpoint': 'http://minio.minio:9000' } },
      stringData: { AWS_ACCESS_KEY_ID: 'minio', AWS_SECRET_ACCESS_KEY: 'minio123' },
    },
  });
  await core.createNamespacedServiceAccount({ namespace: NS, body: { metadata: { name: 'default' }, secrets: [{ name: 's3-creds' }] } });

  // The API server picks up webhook configurations asynchronously: wait until a dry run is mutated.
  await waitFor(async () => core.createNamespacedPod({ namespace: NS, body: pod('probe', { [SOURCE_URI]: 'gs://m' }), dryRun: 'All' }), {
    until: (p) => (p.spec?.initContainers ?? []).length > 0,
    description: 'the pod webhook to be called',
    timeoutMs: 30_000,
  });
}, 45 * 60_000);

afterAll(async () => {
  await server?.close();
  await cp?.stop();
});

describe('webhooks against a real kube-apiserver', () => {
  it('stores a labelled, annotated pod with the storage initializer and S3 credentials', async () => {
    await core.createNamespacedPod({ namespace: NS, body: pod('iris-predictor', { [SOURCE_URI]: 's3://models/iris' }) });
    const stored = await core.readNamespacedPod({ namespace: NS, name: 'iris-predictor' });

    const init = stored.spec?.initContainers?.[0];
    expect(init?.name).toBe('storage-initializer');
    expect(init?.image).toBe('kserve-ts/storage-initializer:e2e');
    expect(init?.args).toEqual(['s3://models/iris', '/mnt/models']);
    expect(init?.terminationMessagePolicy).toBe('FallbackToLogsOnError');
    expect(init?.env?.find((e) => e.name === 'AWS_SECRET_ACCESS_KEY')?.valueFrom?.secretKeyRef).toEqual({ name: 's3-creds', key: 'AWS_SECRET_ACCESS_KEY' });
    expect(init?.env?.find((e) => e.name === 'AWS_ENDPOINT_URL')?.value).toBe('http://minio.minio:9000');
    expect(init?.env?.find((e) => e.name === 'S3_USE_HTTPS')?.value).toBe('0');
    const mount = stored.spec?.containers[0]?.volumeMounts?.find((m) => m.name === 'kserve-provision-location');
    expect(mount).toMatchObject({ mountPath: '/mnt/models', readOnly: true });
    expect(stored.spec?.volumes?.find((v) => v.name === 'kserve-provision-location')?.emptyDir).toEqual({});
  });

  it('leaves pods without the InferenceService label alone', async () => {
    await core.createNamespacedPod({ namespace: NS, body: pod('other', { [SOURCE_URI]: 's3://models/iris' }, false) });
    const stored = await core.readNamespacedPod({ namespace: NS, name: 'other' });
    expect(stored.spec?.initContainers ?? []).toEqual([]);
  });

  it('rejects a pod it cannot mutate with the reason', async () => {
    const failed = core.createNamespacedPod({ namespace: NS, body: pod('broken', { [SOURCE_URI]: 's3://models/iris' }, true, 'sidecar') });
    const err = await failed.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeDefined();
    expect(rejection(err)).toContain("the pod has no container named 'kserve-container' or 'worker-container'");
  });

  it('refuses an oci:// pod while modelcars are disabled, with the switch to turn', async () => {
    const failed = core.createNamespacedPod({ namespace: NS, body: pod('oci-off', { [SOURCE_URI]: 'oci://registry.local/models/iris:1' }) });
    const err = await failed.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeDefined();
    expect(rejection(err)).toContain("cannot serve 'oci://registry.local/models/iris:1': OCI modelcars is not enabled");
  });

  it('stores an oci:// pod with the modelcar sidecar, its pre-fetch init container and a shared process namespace', async () => {
    storageInitializer = JSON.stringify({ image: 'kserve-ts/storage-initializer:e2e', enableModelcar: true, memoryModelcar: '20Mi', uidModelcar: 1000 });
    try {
      const body = pod('oci-on', { [SOURCE_URI]: 'oci://registry.local/models/iris:1' });
      body.spec!.containers[0]!.args = ['--model_name=iris', '--model_dir=/mnt/models'];
      await core.createNamespacedPod({ namespace: NS, body });
    } finally {
      storageInitializer = JSON.stringify({ image: 'kserve-ts/storage-initializer:e2e' });
    }
    const stored = await core.readNamespacedPod({ namespace: NS, name: 'oci-on' });
    expect(stored.spec?.shareProcessNamespace).toBe(true);
    expect(stored.spec?.initContainers?.map((c) => c.name)).toEqual(['modelcar-init']);
    expect(stored.spec?.containers.map((c) => c.name)).toEqual(['kserve-container', 'modelcar']);

    const [server, sidecar] = stored.spec!.containers;
    expect(server?.args).toEqual(['--model_name=iris', '--model_dir=/mnt/models']);
    expect(server?.env?.find((e) => e.name === 'MODEL_INIT_MODE')?.value).toBe('async');
    expect(server?.securityContext?.runAsUser).toBe(1000);
    expect(server?.volumeMounts?.find((m) => m.name === 'kserve-provision-location')).toMatchObject({ mountPath: '/mnt' });

    expect(sidecar?.image).toBe('registry.local/models/iris:1');
    // Stored as sent: the kubelet turns $$ into $, so the shell links its own /proc/<pid>/root.
    expect(sidecar?.args).toEqual(['sh', '-c', 'ln -sf /proc/$$$$/root/models /mnt/models && sleep infinity']);
    expect(sidecar?.resources).toEqual({ limits: { cpu: '10m', memory: '20Mi' }, requests: { cpu: '10m', memory: '20Mi' } });
    expect(sidecar?.securityContext?.runAsUser).toBe(1000);
    expect(sidecar?.volumeMounts?.find((m) => m.name === 'kserve-provision-location')).toMatchObject({ mountPath: '/mnt' });
    expect(stored.spec?.initContainers?.[0]?.image).toBe('registry.local/models/iris:1');
    expect(stored.spec?.volumes?.find((v) => v.name === 'kserve-provision-location')?.emptyDir).toEqual({});
  });

  it('admits an InferenceService whose storageUri is oci://', async () => {
    await custom.createNamespacedCustomObject({
      ...ISVC,
      body: {
        apiVersion: 'serving.kserve.io/v1beta1',
        kind: 'InferenceService',
        metadata: { name: 'modelcar' },
        spec: { predictor: { model: { modelFormat: { name: 'onnx' }, storageUri: 'oci://registry.local/models/iris:1' } } },
      },
    });
    const stored = (await custom.getNamespacedCustomObject({ ...ISVC, name: 'modelcar' })) as { spec: { predictor: { model: { storageUri: string } } } };
    expect(stored.spec.predictor.model.storageUri).toBe('oci://registry.local/models/iris:1');
  });

  it('defaults an InferenceService and rejects an invalid one', async () => {
    await custom.createNamespacedCustomObject({
      ...ISVC,
      body: { apiVersion: 'serving.kserve.io/v1beta1', kind: 'InferenceService', metadata: { name: 'legacy' }, spec: { predictor: { onnx: { storageUri: 'gs://m/onnx' } } } },
    });
    const stored = (await custom.getNamespacedCustomObject({ ...ISVC, name: 'legacy' })) as {
      metadata: { annotations: Record<string, string> };
      spec: { predictor: Record<string, unknown> };
    };
    expect(stored.metadata.annotations).toMatchObject({ 'serving.kserve.io/deploymentMode': 'Standard', modelFormat: 'onnx' });
    expect(stored.spec.predictor).toEqual({ model: { modelFormat: { name: 'onnx' }, storageUri: 'gs://m/onnx', protocolVersion: 'v2' } });

    const err = await custom
      .createNamespacedCustomObject({
        ...ISVC,
        body: {
          apiVersion: 'serving.kserve.io/v1beta1',
          kind: 'InferenceService',
          metadata: { name: 'oci' },
          spec: { predictor: { model: { modelFormat: { name: 'huggingface' }, storageUri: 'ftp://host/model' } } },
        },
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(rejection(err)).toContain("unsupported storage URI scheme 'ftp://'");
  });
});
