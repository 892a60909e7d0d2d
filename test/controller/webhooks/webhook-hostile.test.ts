/**
 * Hostile and careless admission input against the real webhook server over HTTPS (#16 item
 * 9): every field the webhooks read, in pods and InferenceServices, replaced by each wrong
 * JSON type is a clear denial (a 4xx verdict naming the field), never a 500 or a TypeError;
 * malformed AdmissionReviews are answered cleanly; and no credential value — secret data, a
 * token in a pod's env, a secret inside a body that is not JSON — appears in any log line
 * (debug level included) or webhook message.
 */
import { Writable } from 'node:stream';
import { Agent, request as httpsRequest } from 'node:https';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { generateSelfSignedCertificates } from '../../../controller/webhooks/certificates.js';
import { createWebhooks, WEBHOOK_PATHS, type WebhookServer } from '../../../controller/webhooks/index.js';
import { INFERENCE_SERVICE_SHAPE, POD_SHAPE, type Shape } from '../../../controller/webhooks/object-shape.js';
import { fakeCluster } from './fake-cluster.js';

const tls = generateSelfSignedCertificates();
// One keep-alive connection for the thousands of reviews below, as the API server keeps one.
const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: tls.caBundle });

vi.setConfig({ testTimeout: 120_000 });

// Credentials the cluster holds; none may ever be echoed.
const SECRET_KEY = 'wJalrXUtnFEMI-K7MDENG-bPxRfiCYzz9';
const ACCESS_KEY = 'AKIAIOSFODNN7ZZZQQ';
const ENV_TOKEN = 'ghp_EnvTokenInPlainSight0123456789';
const BROKEN_CONFIG_SECRET = 'Sup3rS3cretInsideBrokenJson';
const URI_PASSWORD = 'hunter2UriPassword';
const URI_SIGNATURE = 'SasSig0123456789abcdefXYZ';
const CREDENTIALS = [SECRET_KEY, ACCESS_KEY, ENV_TOKEN, BROKEN_CONFIG_SECRET, URI_PASSWORD, URI_SIGNATURE];

const logLines: string[] = [];
const logger = pino(
  { level: 'trace' },
  new Writable({
    write(chunk: Buffer, _enc, done) {
      logLines.push(chunk.toString('utf8'));
      done();
    },
  }),
);

const cluster = fakeCluster([
  { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'models' }, secrets: [{ name: 's3-secret' }] },
  {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 's3-secret', namespace: 'models', annotations: { 'serving.kserve.io/s3-endpoint': 's3.local:9000' } },
    stringData: { AWS_ACCESS_KEY_ID: ACCESS_KEY, AWS_SECRET_ACCESS_KEY: SECRET_KEY },
  },
  {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'storage-config', namespace: 'models' },
    // Not JSON: the parse error must not quote it.
    stringData: { broken: `{"type": "s3", "secret_access_key": ${BROKEN_CONFIG_SECRET}}` },
  },
]);

const replies: string[] = [];

function post(port: number, path: string, body: string): Promise<{ status: number; body: string; json: () => any }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port, path, method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        replies.push(text);
        resolve({ status: res.statusCode ?? 0, body: text, json: () => JSON.parse(text) });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const review = (request: unknown): string => JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request });

function pod(): Record<string, any> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: 'iris-predictor-',
      namespace: 'models',
      labels: { 'serving.kserve.io/inferenceservice': 'iris', component: 'predictor' },
      annotations: { 'internal.serving.kserve.io/storage-initializer-sourceuri': 's3://bucket/iris' },
    },
    spec: {
      serviceAccountName: 'default',
      containers: [
        {
          name: 'kserve-container',
          image: 'kserve-ts',
          args: ['--model_name=iris'],
          env: [{ name: 'GITHUB_TOKEN', value: ENV_TOKEN }],
          volumeMounts: [{ name: 'cache', mountPath: '/cache' }],
          ports: [{ containerPort: 8080, name: 'http1' }],
          resources: { limits: { cpu: '1' } },
        },
      ],
      initContainers: [{ name: 'warm', image: 'busybox' }],
      volumes: [{ name: 'cache', emptyDir: {} }],
      imagePullSecrets: [{ name: 'regcred' }],
    },
  };
}

function isvc(): Record<string, any> {
  return {
    apiVersion: 'serving.kserve.io/v1beta1',
    kind: 'InferenceService',
    metadata: { name: 'iris', namespace: 'models', labels: { team: 'a' }, annotations: { 'serving.kserve.io/deploymentMode': 'Standard' } },
    spec: {
      predictor: {
        minReplicas: 1,
        maxReplicas: 2,
        scaleMetric: 'cpu',
        scaleTarget: 50,
        nodeSelector: { a: 'b' },
        model: {
          modelFormat: { name: 'onnx', version: '1' },
          storageUri: 's3://bucket/iris',
          protocolVersion: 'v2',
          env: [{ name: 'GITHUB_TOKEN', value: ENV_TOKEN }],
          args: ['--x'],
          storage: { key: 'k', path: 'p', parameters: { type: 's3' } },
        },
        containers: [{ name: 'transformer-container', image: 't', env: [{ name: 'A', value: 'b' }] }],
      },
      transformer: { minReplicas: 1, containers: [{ name: 'kserve-container', image: 't', args: ['--a'] }] },
    },
    status: { deploymentMode: 'Standard' },
  };
}

/**
 * Every path a document has, plus every path a shape lists (lists at index 0), so fields the
 * handlers read but the base object leaves out are confused too.
 */
function paths(doc: unknown, shape: Shape | undefined, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (prefix.length > 0) out.push(prefix);
  if (Array.isArray(doc)) {
    const item = shape && typeof shape === 'object' && 'list' in shape ? shape.list : undefined;
    (doc.length > 0 ? doc : [undefined]).forEach((d, i) => paths(d, item, [...prefix, i], out));
    return out;
  }
  const fields = shape && typeof shape === 'object' && 'fields' in shape ? shape.fields : {};
  const keys = new Set([...Object.keys(doc && typeof doc === 'object' ? doc : {}), ...Object.keys(fields)]);
  if (shape && typeof shape === 'object' && 'list' in shape && doc === undefined) {
    paths(undefined, shape.list, [...prefix, 0], out);
    return out;
  }
  for (const k of keys) paths((doc as Record<string, unknown> | undefined)?.[k], fields[k], [...prefix, k], out);
  return out;
}

function setPath(doc: Record<string, any>, path: (string | number)[], value: unknown): void {
  let at: any = doc;
  for (const [i, k] of path.slice(0, -1).entries()) {
    if (at[k] === undefined || at[k] === null || typeof at[k] !== 'object') at[k] = typeof path[i + 1] === 'number' ? [] : {};
    at = at[k];
  }
  at[path[path.length - 1]!] = value;
}

const CONFUSIONS: readonly unknown[] = [42, 'text', true, { nested: 1 }, [7], null];

describe('hostile admission input', () => {
  let server: WebhookServer;
  let port: number;

  beforeAll(async () => {
    server = createWebhooks({
      credentials: cluster.source,
      getConfig: () => ({ ...cluster.config, defaultDeploymentMode: 'Standard' }),
      logger,
      tls,
      controllerNamespace: 'kserve',
    });
    ({ port } = await server.listen(0, '127.0.0.1'));
  });
  afterAll(async () => {
    agent.destroy();
    await server.close();
  });

  const cases: [string, string, () => Record<string, any>, Shape, string][] = [
    ['pod', WEBHOOK_PATHS.pods, pod, POD_SHAPE, 'Pod'],
    ['InferenceService (defaulter)', WEBHOOK_PATHS.isvcDefaulter, isvc, INFERENCE_SERVICE_SHAPE, 'InferenceService'],
    ['InferenceService (validator)', WEBHOOK_PATHS.isvcValidator, isvc, INFERENCE_SERVICE_SHAPE, 'InferenceService'],
  ];

  it.each(cases)('%s: every field as every wrong JSON type is a 200 review with a non-500 verdict', async (_name, path, base, shape, kind) => {
    const all = paths(base(), shape).filter((p) => p[0] !== 'apiVersion' && p[0] !== 'kind');
    expect(all.length).toBeGreaterThan(40);
    let denied = 0;
    let sent = 0;
    for (const p of all) {
      for (const value of CONFUSIONS) {
        const object = base();
        setPath(object, p, value);
        const request = { uid: `u-${sent}`, kind: { group: '', version: 'v1', kind }, namespace: 'models', name: 'iris', operation: 'CREATE', object };
        const reply = await post(port, path, review(request));
        sent += 1;
        expect(reply.status, `${p.join('.')} = ${JSON.stringify(value)}`).toBe(200);
        const response = reply.json().response;
        expect(response.uid).toBe(request.uid);
        if (!response.allowed) {
          denied += 1;
          const where = `${p.join('.')} = ${JSON.stringify(value)}: ${response.status.message}`;
          expect(response.status.code, where).toBeLessThan(500);
          expect(response.status.code, where).toBeGreaterThanOrEqual(400);
          expect(response.status.message, where).not.toMatch(/TypeError|Cannot read|is not a function|undefined/);
        }
      }
    }
    process.stdout.write(`${kind} ${path}: ${sent} reviews, ${denied} denied\n`);
    // Type confusion in fields that are read is refused, not waved through.
    expect(denied).toBeGreaterThan(all.length / 2);
  });

  it('names the field path and the types in the denial', async () => {
    const object = pod();
    object.spec.containers[0].env[0].value = 12;
    const { response } = (
      await post(port, WEBHOOK_PATHS.pods, review({ uid: 'named', kind: { group: '', version: 'v1', kind: 'Pod' }, namespace: 'models', operation: 'CREATE', object }))
    ).json();
    expect(response).toEqual({
      uid: 'named',
      allowed: false,
      status: { code: 400, reason: 'BadRequest', message: 'Pod is malformed: spec.containers[0].env[0].value must be a string, got number' },
    });
    const bad = isvc();
    bad.spec.predictor.minReplicas = '2';
    const v = (
      await post(
        port,
        WEBHOOK_PATHS.isvcValidator,
        review({ uid: 'isvc', kind: { group: 'serving.kserve.io', version: 'v1beta1', kind: 'InferenceService' }, operation: 'CREATE', object: bad }),
      )
    ).json();
    expect(v.response.status).toEqual({ code: 400, reason: 'BadRequest', message: 'InferenceService is malformed: spec.predictor.minReplicas must be a number, got string' });
  });

  it.each<[string, string, RegExp]>([
    ['not JSON (with a credential inside)', `{"apiVersion": "admission.k8s.io/v1", "token": ${SECRET_KEY}`, /^bad AdmissionReview: request body is not valid JSON/],
    ['a JSON array', '[]', /body must be a JSON AdmissionReview object/],
    ['JSON null', 'null', /body must be a JSON AdmissionReview object/],
    ['the wrong kind', JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'Pod', request: {} }), /kind must be 'AdmissionReview'/],
    ['an unknown apiVersion', JSON.stringify({ apiVersion: 'admission.k8s.io/v2', kind: 'AdmissionReview', request: {} }), /apiVersion must be one of/],
    ['no request', JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }), /request is missing/],
    ['a string request', review('x'), /request is missing or not an object/],
    ['a numeric uid', review({ uid: 5, operation: 'CREATE' }), /request.uid must be a non-empty string/],
    ['an unknown operation', review({ uid: 'u', operation: 'PATCH' }), /request.operation 'PATCH'/],
    ['a string kind', review({ uid: 'u', operation: 'CREATE', kind: 'Pod' }), /request.kind must be/],
    ['a numeric namespace', review({ uid: 'u', operation: 'CREATE', namespace: 3 }), /request.namespace must be a string/],
  ])('a malformed AdmissionReview (%s) is a clean 400', async (_name, body, message) => {
    for (const path of Object.values(WEBHOOK_PATHS)) {
      const reply = await post(port, path, body);
      expect(reply.status).toBe(400);
      expect(reply.json().message).toMatch(message);
    }
  });

  it('an object that is not an object is a 400 verdict for that uid', async () => {
    for (const object of [5, 'pod', [1], true]) {
      const { response } = (await post(port, WEBHOOK_PATHS.pods, review({ uid: 'o', kind: { group: '', version: 'v1', kind: 'Pod' }, operation: 'CREATE', object }))).json();
      expect(response).toMatchObject({ uid: 'o', allowed: false, status: { code: 400, message: 'request.object must be a JSON object' } });
    }
  });

  it('the denial names what the webhook serves, whatever request.kind the caller wrote (#27)', async () => {
    const bad = isvc();
    bad.spec.predictor.minReplicas = '2';
    for (const kind of [{ group: '', version: 'v1', kind: 'Pod' }, undefined]) {
      for (const path of [WEBHOOK_PATHS.isvcDefaulter, WEBHOOK_PATHS.isvcValidator]) {
        const { response } = (await post(port, path, review({ uid: 'k', ...(kind ? { kind } : {}), operation: 'CREATE', object: bad }))).json();
        expect(response.status).toEqual({ code: 400, reason: 'BadRequest', message: 'InferenceService is malformed: spec.predictor.minReplicas must be a number, got string' });
      }
    }
    const object = pod();
    object.spec.containers[0].env[0].value = 12;
    const { response } = (
      await post(port, WEBHOOK_PATHS.pods, review({ uid: 'p', kind: { group: 'serving.kserve.io', version: 'v1beta1', kind: 'InferenceService' }, operation: 'CREATE', object }))
    ).json();
    expect(response.status.message).toBe('Pod is malformed: spec.containers[0].env[0].value must be a string, got number');
  });

  it('an UPDATE whose old object is malformed is a 400 naming it', async () => {
    const old = isvc();
    old.status.deploymentMode = 7;
    const request = { uid: 'upd', kind: { group: 'serving.kserve.io', version: 'v1beta1', kind: 'InferenceService' }, operation: 'UPDATE', object: isvc(), oldObject: old };
    const { response } = (await post(port, WEBHOOK_PATHS.isvcValidator, review(request))).json();
    expect(response.status).toEqual({ code: 400, reason: 'BadRequest', message: 'InferenceService (old) is malformed: status.deploymentMode must be a string, got number' });
  });

  it('a refused storage URI is shown without its user info and query', async () => {
    const object = isvc();
    object.spec.predictor.model.storageUri = `oci+native://robot:${URI_PASSWORD}@registry.local/models/iris?sig=${URI_SIGNATURE}`;
    delete object.spec.predictor.model.storage;
    const { response } = (
      await post(
        port,
        WEBHOOK_PATHS.isvcValidator,
        review({ uid: 'uri', kind: { group: 'serving.kserve.io', version: 'v1beta1', kind: 'InferenceService' }, operation: 'CREATE', object }),
      )
    ).json();
    expect(response.allowed).toBe(false);
    expect(response.status.message).toContain("unsupported storage URI scheme 'oci+native://' in 'oci+native://registry.local/models/iris?…'");
    const gs = isvc();
    gs.spec.predictor.model.storageUri = `gs://bucket/iris?token=${URI_SIGNATURE}`;
    const withSpec = (
      await post(
        port,
        WEBHOOK_PATHS.isvcValidator,
        review({ uid: 'uri2', kind: { group: 'serving.kserve.io', version: 'v1beta1', kind: 'InferenceService' }, operation: 'CREATE', object: gs }),
      )
    ).json();
    expect(withSpec.response.status.message).toContain("storageUri 'gs://bucket/iris?…' must be an s3:// URI");
  });

  it('injects credentials as references and reports a broken storage secret without quoting it', async () => {
    const ok = (
      await post(port, WEBHOOK_PATHS.pods, review({ uid: 'creds', kind: { group: '', version: 'v1', kind: 'Pod' }, namespace: 'models', operation: 'CREATE', object: pod() }))
    ).json();
    expect(ok.response.allowed).toBe(true);
    const patch = Buffer.from(ok.response.patch, 'base64').toString('utf8');
    expect(patch).toContain('secretKeyRef');
    expect(patch).not.toContain(SECRET_KEY);

    const spec = pod();
    spec.metadata.annotations = {
      'internal.serving.kserve.io/storage-initializer-sourceuri': '<scheme-placeholder>://foo/bar',
      'internal.serving.kserve.io/storage-spec': 'true',
      'internal.serving.kserve.io/storage-spec-key': 'broken',
    };
    const denied = (
      await post(port, WEBHOOK_PATHS.pods, review({ uid: 'broken', kind: { group: '', version: 'v1', kind: 'Pod' }, namespace: 'models', operation: 'CREATE', object: spec }))
    ).json();
    expect(denied.response.allowed).toBe(false);
    expect(denied.response.status.message).toMatch(/key 'broken' of storage secret 'storage-config' is not valid JSON/);
  });

  // Last: it reads what every test above logged and answered.
  it('no credential appears in any log line (trace level) or reply', () => {
    expect(logLines.length).toBeGreaterThan(100);
    expect(replies.length).toBeGreaterThan(100);
    for (const secret of CREDENTIALS) {
      const base64 = Buffer.from(secret).toString('base64');
      for (const line of [...logLines, ...replies]) {
        expect(line.includes(secret) || line.includes(base64), `found a credential in: ${line.slice(0, 300)}`).toBe(false);
      }
    }
  });
});
