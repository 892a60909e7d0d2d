/**
 * Multi-model serving and the node-local cache on the real node (#30). A multi-model
 * ServingRuntime and an InferenceService on it; three TrainedModels applied as written for
 * KServe, each pulled from S3 (moto on the node address) by the server's own puller and
 * answering V1 and V2 through the predictor's Service as a local server does; one deleted
 * and unloaded; no pod restarted or replaced throughout. Then the cache the charts configure
 * (storageInitializer.cacheHostPath, a folder of the node): a second pod of the same
 * InferenceService — the multi-model one (its puller) and a single-model one (its
 * storage-initializer) — gets its models from the node's cache, and moto logs no new download.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../controller/harness/index.js';
import { IRIS_DIR } from '../../helpers/server.js';
import { imageName } from '../../images/docker.js';
import { BUCKET, S3_KEY, type S3Server, V1_IRIS, V2_IRIS, credentials, inferenceService, startS3 } from './fixtures.js';
import { type Obj, answerOf, condition, request, useKserveSuite } from './kserve.js';

const NS = `multi-model-${process.pid}`;
const MODELS = ['iris-a', 'iris-b', 'iris-c'] as const;
const SMALL = { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '1Gi' } };

const suite = useKserveSuite(NS, ['--model_name', 'iris', '--model_dir', IRIS_DIR]);
let s3: S3Server;

beforeAll(async () => {
  s3 = await startS3();
  const client = new S3Client({ endpoint: `http://${s3.endpoint}`, forcePathStyle: true, region: 'us-east-1', credentials: { accessKeyId: S3_KEY, secretAccessKey: S3_KEY } });
  const model = readFileSync(path.join(IRIS_DIR, 'model.onnx'));
  for (const prefix of [...MODELS, 'iris-single']) await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${prefix}/model.onnx`, Body: model }));
  client.destroy();
}, 120_000);
afterAll(async () => {
  await s3?.stop();
});

const MMS_RUNTIME = {
  apiVersion: 'serving.kserve.io/v1alpha1',
  kind: 'ServingRuntime',
  metadata: { name: 'kserve-ts-mms', namespace: NS },
  spec: {
    multiModel: true,
    protocolVersions: ['v1', 'v2'],
    supportedModelFormats: [{ name: 'onnx', version: '1' }],
    containers: [
      {
        name: 'kserve-container',
        image: imageName('server'),
        imagePullPolicy: 'IfNotPresent',
        args: ['serve', '--model_dir=/mnt/models'],
        ports: [{ containerPort: 8080, name: 'http1', protocol: 'TCP' }],
      },
    ],
  },
};

function mmsIsvc(replicas: number): object {
  return {
    apiVersion: 'serving.kserve.io/v1beta1',
    kind: 'InferenceService',
    metadata: { name: 'mms', namespace: NS },
    spec: {
      predictor: {
        serviceAccountName: 'models-reader',
        minReplicas: replicas,
        maxReplicas: replicas,
        model: { modelFormat: { name: 'onnx', version: '1' }, runtime: 'kserve-ts-mms', resources: SMALL },
      },
    },
  };
}

const trainedModel = (name: string) => ({
  apiVersion: 'serving.kserve.io/v1alpha1',
  kind: 'TrainedModel',
  metadata: { name, namespace: NS },
  spec: { inferenceService: 'mms', model: { storageUri: `s3://${BUCKET}/${name}/`, framework: 'onnx', memory: '64Mi' } },
});

interface PodStatus {
  podIP: string;
  containerStatuses: { name: string; restartCount: number }[];
}
const podName = (p: Obj) => p.metadata.name;
const restarts = (p: Obj) => (p.status as PodStatus).containerStatuses.reduce((n, c) => n + c.restartCount, 0);

/** Until `url`'s model readiness answers `status` (the puller loads and unloads in the background). */
function waitModel(base: string, model: string, status: 200 | 404): Promise<unknown> {
  return waitFor(async () => (await request(`${base}/v2/models/${model}/ready`, undefined, 2_000).catch(() => ({ status: 0 }))).status === status, {
    timeoutMs: 120_000,
    intervalMs: 500,
    description: `${base}: ${model} ${status === 200 ? 'ready' : 'gone'}`,
  });
}

describe('TrainedModels on a real node', () => {
  it('three TrainedModels load into one running pod and answer V1 and V2; one deleted is unloaded; no restart', { timeout: 600_000 }, async () => {
    const { k, local } = suite;
    await k.apply([...credentials(NS, s3.endpoint), MMS_RUNTIME, mmsIsvc(1)]);
    await k.waitIsvcReady('mms');
    const [pod] = await k.readyPods('serving.kserve.io/inferenceservice=mms');
    const base = `http://${await k.clusterIP('mms-predictor')}`;

    await k.apply(MODELS.map(trainedModel));
    await waitFor(() => Promise.all(MODELS.map((m) => k.getJson(['get', 'trainedmodel', m, '-n', NS]))), {
      timeoutMs: 120_000,
      intervalMs: 1_000,
      description: 'the TrainedModels Ready',
      until: (tms) => tms.every((tm) => condition(tm, 'Ready')?.status === 'True'),
    });
    const expectedV1 = await answerOf(`${local.url}/v1/models/iris:predict`, V1_IRIS);
    const expectedV2 = (await answerOf(`${local.url}/v2/models/iris/infer`, V2_IRIS)) as { outputs: unknown };
    for (const m of MODELS) {
      await waitModel(base, m, 200);
      const v1 = await request(`${base}/v1/models/${m}:predict`, V1_IRIS);
      expect(v1.status, v1.body).toBe(200);
      expect(JSON.parse(v1.body)).toEqual(expectedV1);
      const v2 = await request(`${base}/v2/models/${m}/infer`, V2_IRIS);
      expect(v2.status, v2.body).toBe(200);
      expect(JSON.parse(v2.body)).toMatchObject({ model_name: m, outputs: expectedV2.outputs });
    }
    // The TrainedModel's URL is the model's V1 predict URL on the InferenceService, as KServe's.
    const tm = await k.getJson(['get', 'trainedmodel', 'iris-a', '-n', NS]);
    expect((tm.status as { url: string }).url).toBe(`http://mms-${NS}.example.com/v1/models/iris-a:predict`);

    await k.node.kubectlOk(['delete', 'trainedmodel', 'iris-b', '-n', NS, '--wait=true', '--timeout=60s']);
    await waitModel(base, 'iris-b', 404);
    expect((await request(`${base}/v1/models/iris-a:predict`, V1_IRIS)).status).toBe(200);
    expect((await request(`${base}/v1/models/iris-c:predict`, V1_IRIS)).status).toBe(200);

    // The same pod throughout, never restarted: models came and went without one.
    const after = await k.readyPods('serving.kserve.io/inferenceservice=mms');
    expect(after.map(podName)).toEqual([podName(pod!)]);
    expect(restarts(after[0]!)).toBe(0);
  });

  it("the node's cache: a second pod of each InferenceService gets its models from the cache, with no new download", { timeout: 600_000 }, async () => {
    const { k } = suite;
    // Multi-model: the first pod's puller stored iris-a and iris-c in the cache.
    const before = { a: s3.objectGets('iris-a'), c: s3.objectGets('iris-c') };
    expect(before.a).toBeGreaterThan(0);
    expect(readdirSync(k.modelCache).filter((e) => !e.startsWith('.')).length).toBeGreaterThanOrEqual(2);
    await k.apply([mmsIsvc(2)]);
    const pods = await waitFor(() => k.readyPods('serving.kserve.io/inferenceservice=mms'), {
      timeoutMs: 240_000,
      intervalMs: 1_000,
      description: 'two mms pods Ready',
      until: (p) => p.length === 2,
    });
    for (const p of pods) for (const m of ['iris-a', 'iris-c']) await waitModel(`http://${(p.status as PodStatus).podIP}:8080`, m, 200);
    expect({ a: s3.objectGets('iris-a'), c: s3.objectGets('iris-c') }).toEqual(before);

    // Single-model: the storage-initializer of the second pod finds the model in the cache.
    await k.apply([inferenceService('single', NS, { storageUri: `s3://${BUCKET}/iris-single`, minReplicas: 1, maxReplicas: 1 })]);
    await k.waitIsvcReady('single');
    const first = s3.objectGets('iris-single');
    expect(first).toBe(1);
    await k.apply([inferenceService('single', NS, { storageUri: `s3://${BUCKET}/iris-single`, minReplicas: 2, maxReplicas: 2 })]);
    const singles = await waitFor(() => k.readyPods('serving.kserve.io/inferenceservice=single'), {
      timeoutMs: 240_000,
      intervalMs: 1_000,
      description: 'two single pods Ready',
      until: (p) => p.length === 2,
    });
    expect(s3.objectGets('iris-single')).toBe(first);
    const logs = await Promise.all(singles.map((p) => k.node.kubectlOk(['logs', '-n', NS, podName(p), '-c', 'storage-initializer'])));
    expect(logs.filter((l) => l.includes(`cache hit for s3://${BUCKET}/iris-single`))).toHaveLength(1);
    for (const p of singles) {
      const v1 = await request(`http://${(p.status as PodStatus).podIP}:8080/v1/models/single:predict`, V1_IRIS);
      expect(v1.status, v1.body).toBe(200);
    }
  });
});
