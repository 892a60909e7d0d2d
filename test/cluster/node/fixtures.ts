/**
 * What the end-to-end suite serves: moto on the node address (pods reach it there) holding
 * the bundled models, KServe-style manifests, and requests with the answers a local server
 * gives for them.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { freePort } from '../../helpers/free-port.js';
import { IRIS_DIR, fixture } from '../../helpers/server.js';
import { tiedToParent } from '../../helpers/tied-process.js';
import { installServers } from '../../storage-initializer/helpers.js';
import { TF_FIXTURES } from '../../../server/backends/tensorflow/tf-fixtures.test-helper.js';
import { waitFor } from '../../controller/harness/index.js';
import { NODE_IP } from './kube-node.js';

export const BUCKET = 'models';
export const S3_KEY = 'testing';

export interface S3Server {
  /** host:port, as the s3-endpoint annotation takes it. */
  readonly endpoint: string;
  /** Object GETs moto has logged for keys under `models/<prefix>/` (downloads, not listings). */
  objectGets(prefix: string): number;
  stop(): Promise<void>;
}

/** A werkzeug access-log line of an object GET in the bucket: `"GET /models/<key>?x-id=GetObject HTTP/1.1" 200` (the SDK adds the query). */
const OBJECT_GET = new RegExp(`"GET /${BUCKET}/([^ ?]+)(?:\\?[^ ]*)? HTTP/[\\d.]+" 20[06]`);

/**
 * moto bound to the node address with the bucket `models`: iris/ and iris-v2/ (the iris
 * demo model twice, for a storageUri change), identity/ (an FP32 identity model: a V1
 * predict on it echoes the instances, so it answers distinguishably from iris) and dense/
 * (the TensorFlow SavedModel).
 */
export async function startS3(): Promise<S3Server> {
  const port = await freePort();
  const [cmd, args] = tiedToParent(installServers().moto, ['-H', NODE_IP, '-p', String(port)]);
  const child: ChildProcess = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  let partial = '';
  const gets: string[] = [];
  child.stderr?.on('data', (d: Buffer) => {
    log = (log + d.toString()).slice(-4_000);
    const lines = (partial + d.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      const m = OBJECT_GET.exec(line);
      if (m) gets.push(m[1]!);
    }
  });
  const url = `http://${NODE_IP}:${port}`;
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`moto exited (${child.exitCode}): ${log}`);
      return (await fetch(`${url}/moto-api/`)).ok;
    },
    { timeoutMs: 30_000, description: 'moto' },
  );
  const s3 = new S3Client({ endpoint: url, forcePathStyle: true, region: 'us-east-1', credentials: { accessKeyId: S3_KEY, secretAccessKey: S3_KEY } });
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
  const model = readFileSync(path.join(IRIS_DIR, 'model.onnx'));
  for (const prefix of ['iris', 'iris-v2']) await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${prefix}/model.onnx`, Body: model }));
  await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'identity/model.onnx', Body: readFileSync(fixture('identity_fp32')) }));
  const tfDir = path.join(TF_FIXTURES, 'dense_classifier');
  for (const file of walk(tfDir)) {
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `dense/${path.relative(tfDir, file)}`, Body: readFileSync(file) }));
  }
  s3.destroy();
  return {
    endpoint: `${NODE_IP}:${port}`,
    objectGets: (prefix) => gets.filter((key) => key.startsWith(`${prefix}/`)).length,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const done = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await done;
    },
  };
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => {
    const p = path.join(dir, e);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

/** The S3 credentials as KServe documents them: a Secret with endpoint annotations, linked from a ServiceAccount. */
export function credentials(namespace: string, endpoint: string): object[] {
  return [
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 's3-credentials',
        namespace,
        annotations: {
          'serving.kserve.io/s3-endpoint': endpoint,
          'serving.kserve.io/s3-usehttps': '0',
          'serving.kserve.io/s3-region': 'us-east-1',
        },
      },
      type: 'Opaque',
      stringData: { AWS_ACCESS_KEY_ID: S3_KEY, AWS_SECRET_ACCESS_KEY: S3_KEY },
    },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'models-reader', namespace }, secrets: [{ name: 's3-credentials' }] },
  ];
}

export interface IsvcOptions {
  readonly format?: string;
  readonly storageUri: string;
  readonly minReplicas?: number;
  readonly maxReplicas?: number;
  readonly scaleMetric?: string;
  readonly memoryLimit?: string;
  /** Arguments added to the runtime's for the serving container (KServe's predictor.model.args). */
  readonly args?: readonly string[];
}

/** A KServe-style InferenceService: predictor.model with a model format and storageUri, no runtime named. */
export function inferenceService(name: string, namespace: string, o: IsvcOptions): object {
  return {
    apiVersion: 'serving.kserve.io/v1beta1',
    kind: 'InferenceService',
    metadata: { name, namespace },
    spec: {
      predictor: {
        serviceAccountName: 'models-reader',
        ...(o.minReplicas !== undefined ? { minReplicas: o.minReplicas } : {}),
        ...(o.maxReplicas !== undefined ? { maxReplicas: o.maxReplicas } : {}),
        ...(o.scaleMetric !== undefined ? { scaleMetric: o.scaleMetric } : {}),
        model: {
          modelFormat: { name: o.format ?? 'onnx' },
          storageUri: o.storageUri,
          ...(o.args !== undefined ? { args: o.args } : {}),
          // Small requests: two cores carry the control plane, the controller and several pods.
          resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: o.memoryLimit ?? '1Gi' } },
        },
      },
    },
  };
}

export const manifest = (objects: readonly object[]): string => objects.map((o) => JSON.stringify(o)).join('\n---\n');

export const V1_IRIS = {
  instances: [
    [6.8, 2.8, 4.8, 1.4],
    [5.1, 3.5, 1.4, 0.2],
    [6.3, 3.3, 6.0, 2.5],
  ],
};
export const V2_IRIS = {
  inputs: [{ name: 'input', shape: [3, 4], datatype: 'FP32', data: V1_IRIS.instances.flat() }],
};
export function grpcIris(model: string): object {
  return {
    model_name: model,
    inputs: [{ name: 'input', datatype: 'FP32', shape: [3, 4], contents: { fp32_contents: V1_IRIS.instances.flat() } }],
  };
}
