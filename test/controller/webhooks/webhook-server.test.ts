/**
 * The webhook server over real HTTPS on loopback, verified against the CA it generated:
 * AdmissionReview in, AdmissionReview out with the request uid, base64 JSONPatch, rejections
 * as `allowed: false`, bad bodies as HTTP 400.
 */
import { request as httpsRequest } from 'node:https';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSelfSignedCertificates } from '../../../controller/webhooks/certificates.js';
import { createWebhooks, WEBHOOK_PATHS } from '../../../controller/webhooks/index.js';
import { applyPatch } from '../../../controller/webhooks/json-patch.js';
import { createWebhookServer, type WebhookServer } from '../../../controller/webhooks/webhook-server.js';
import { fakeCluster } from './fake-cluster.js';

const logger = pino({ level: 'silent' });
const tls = generateSelfSignedCertificates();

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json: () => any;
}

function call(port: number, path: string, options: { body?: string | Buffer; method?: string; ca?: string | null; host?: string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: options.host ?? '127.0.0.1',
        port,
        path,
        method: options.method ?? 'POST',
        agent: false,
        ...(options.ca === null ? {} : { ca: options.ca ?? tls.caBundle }),
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) });
        });
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const review = (request: Record<string, unknown>, apiVersion = 'admission.k8s.io/v1') => JSON.stringify({ apiVersion, kind: 'AdmissionReview', request });

const labelledPod = (annotations: Record<string, string>, containers = ['kserve-container']) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { generateName: 'iris-predictor-', labels: { 'serving.kserve.io/inferenceservice': 'iris' }, annotations },
  spec: { containers: containers.map((name) => ({ name, image: 'kserve-ts' })) },
});

const podRequest = (uid: string, object: unknown) => ({
  uid,
  kind: { group: '', version: 'v1', kind: 'Pod' },
  resource: { group: '', version: 'v1', resource: 'pods' },
  namespace: 'default',
  operation: 'CREATE',
  object,
});

describe('webhook server', () => {
  let server: WebhookServer;
  let port: number;
  let failConfig = false;

  beforeAll(async () => {
    const cluster = fakeCluster();
    server = createWebhooks({
      credentials: cluster.source,
      getConfig: () => {
        if (failConfig) throw new Error('inferenceservice-config is not valid JSON');
        return { ...cluster.config, defaultDeploymentMode: 'Standard' };
      },
      logger,
      tls,
      controllerNamespace: 'kserve',
    });
    ({ port } = await server.listen(0, '127.0.0.1'));
  });
  afterAll(() => server.close());

  it('answers /healthz', async () => {
    const reply = await call(port, '/healthz', { method: 'GET' });
    expect(reply.status).toBe(200);
    expect(reply.body).toBe('ok');
  });

  it('serves a certificate valid for localhost as well', async () => {
    expect((await call(port, '/healthz', { method: 'GET', host: 'localhost' })).status).toBe(200);
  });

  it('is not trusted without its CA', async () => {
    await expect(call(port, '/healthz', { method: 'GET', ca: null })).rejects.toThrow(/self.signed|unable to verify|certificate/i);
  });

  it('mutates a pod: uid echoed, base64 JSONPatch that injects the storage initializer', async () => {
    const pod = labelledPod({ 'internal.serving.kserve.io/storage-initializer-sourceuri': 's3://models/iris' });
    const reply = await call(port, WEBHOOK_PATHS.pods, { body: review(podRequest('uid-1', pod)) });
    expect(reply.status).toBe(200);
    const { apiVersion, kind, response } = reply.json();
    expect({ apiVersion, kind }).toEqual({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' });
    expect(response).toMatchObject({ uid: 'uid-1', allowed: true, patchType: 'JSONPatch' });
    const patch = JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8'));
    const mutated = applyPatch(pod, patch) as any;
    expect(mutated.spec.initContainers[0]).toMatchObject({ name: 'storage-initializer', args: ['s3://models/iris', '/mnt/models'] });
    expect(mutated.spec.containers[0].volumeMounts).toEqual([{ name: 'kserve-provision-location', mountPath: '/mnt/models', readOnly: true }]);
  });

  it('allows an unlabelled pod without a patch', async () => {
    const pod = { ...labelledPod({}), metadata: { name: 'other' } };
    const { response } = (await call(port, WEBHOOK_PATHS.pods, { body: review(podRequest('uid-2', pod)) })).json();
    expect(response).toEqual({ uid: 'uid-2', allowed: true });
  });

  it('turns a mutator error into allowed:false with the message, over HTTP 200', async () => {
    const pod = labelledPod({ 'internal.serving.kserve.io/storage-initializer-sourceuri': 'gs://m' }, ['sidecar']);
    const reply = await call(port, WEBHOOK_PATHS.pods, { body: review(podRequest('uid-3', pod)) });
    expect(reply.status).toBe(200);
    expect(reply.json().response).toEqual({
      uid: 'uid-3',
      allowed: false,
      status: {
        code: 400,
        reason: 'BadRequest',
        message: "cannot inject the storage initializer: the pod has no container named 'kserve-container' or 'worker-container'",
      },
    });
  });

  it('turns an unexpected failure into allowed:false 500 naming the webhook', async () => {
    failConfig = true;
    try {
      const pod = labelledPod({ 'internal.serving.kserve.io/storage-initializer-sourceuri': 'gs://m' });
      const { response } = (await call(port, WEBHOOK_PATHS.pods, { body: review(podRequest('uid-4', pod)) })).json();
      expect(response).toEqual({
        uid: 'uid-4',
        allowed: false,
        status: { code: 500, reason: 'InternalError', message: 'webhook /mutate-pods failed: inferenceservice-config is not valid JSON' },
      });
    } finally {
      failConfig = false;
    }
  });

  it('a request without an object is a 400 answer to that uid', async () => {
    const { response } = (await call(port, WEBHOOK_PATHS.pods, { body: review({ ...podRequest('uid-5', undefined), object: 'pod' }) })).json();
    expect(response).toEqual({ uid: 'uid-5', allowed: false, status: { code: 400, reason: 'BadRequest', message: 'request.object must be a JSON object' } });
  });

  const isvc = (predictor: Record<string, unknown>, annotations: Record<string, string> = {}) => ({
    apiVersion: 'serving.kserve.io/v1beta1',
    kind: 'InferenceService',
    metadata: { name: 'iris', namespace: 'default', annotations },
    spec: { predictor },
  });
  const isvcRequest = (uid: string, object: unknown) => ({
    uid,
    kind: { group: 'serving.kserve.io', version: 'v1beta1', kind: 'InferenceService' },
    name: 'iris',
    namespace: 'default',
    operation: 'CREATE',
    object,
  });

  it('defaults an InferenceService', async () => {
    const object = isvc({ onnx: { storageUri: 'gs://m' } });
    const { response } = (await call(port, WEBHOOK_PATHS.isvcDefaulter, { body: review(isvcRequest('uid-6', object)) })).json();
    expect(response).toMatchObject({ uid: 'uid-6', allowed: true, patchType: 'JSONPatch' });
    const defaulted = applyPatch(object, JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8'))) as any;
    expect(defaulted.metadata.annotations).toEqual({ 'serving.kserve.io/deploymentMode': 'Standard', modelFormat: 'onnx' });
    expect(defaulted.spec.predictor).toEqual({ model: { modelFormat: { name: 'onnx' }, storageUri: 'gs://m', protocolVersion: 'v2' } });
  });

  it('rejects an invalid InferenceService with 403 and the reasons', async () => {
    const object = isvc({ model: { modelFormat: { name: 'sklearn' }, storageUri: 'azure://x' } }, { 'serving.kserve.io/deploymentMode': 'Standard' });
    const { response } = (await call(port, WEBHOOK_PATHS.isvcValidator, { body: review(isvcRequest('uid-7', object)) })).json();
    expect(response.uid).toBe('uid-7');
    expect(response.allowed).toBe(false);
    expect(response.status.code).toBe(403);
    expect(response.status.message).toContain("unsupported storage URI scheme 'azure://'");
  });

  it('echoes admission.k8s.io/v1beta1 reviews in their own version', async () => {
    const object = isvc({ model: { modelFormat: { name: 'sklearn' } } }, { 'serving.kserve.io/deploymentMode': 'Standard' });
    const reply = (await call(port, WEBHOOK_PATHS.isvcValidator, { body: review(isvcRequest('uid-8', object), 'admission.k8s.io/v1beta1') })).json();
    expect(reply).toEqual({ apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview', response: { uid: 'uid-8', allowed: true } });
  });

  it.each<[string, string, string]>([
    ['not JSON', '{"apiVersion": ', 'bad AdmissionReview: request body is not valid JSON'],
    ['a JSON array', '[]', 'bad AdmissionReview: body must be a JSON AdmissionReview object'],
    ['another kind', JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'Pod' }), "bad AdmissionReview: kind must be 'AdmissionReview', got 'Pod'"],
    [
      'an unknown version',
      JSON.stringify({ apiVersion: 'admission.k8s.io/v2', kind: 'AdmissionReview', request: {} }),
      'apiVersion must be one of admission.k8s.io/v1, admission.k8s.io/v1beta1',
    ],
    ['no request', JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }), 'bad AdmissionReview: request is missing'],
    ['no uid', review({ operation: 'CREATE' }), 'bad AdmissionReview: request.uid must be a non-empty string'],
    ['a bad operation', review({ uid: 'x', operation: 'PATCH' }), "request.operation 'PATCH' is not one of"],
  ])('answers %s with HTTP 400', async (_name, body, message) => {
    const reply = await call(port, WEBHOOK_PATHS.pods, { body });
    expect(reply.status).toBe(400);
    expect(reply.json().message).toContain(message);
  });

  it('answers an unknown path with 404 and a GET on a webhook with 405', async () => {
    expect((await call(port, '/mutate-deployments', { body: '{}' })).status).toBe(404);
    const reply = await call(port, WEBHOOK_PATHS.pods, { method: 'GET' });
    expect(reply.status).toBe(405);
    expect(reply.headers['allow']).toBe('POST');
  });

  it('ignores the timeout query the API server appends', async () => {
    const pod = { ...labelledPod({}), metadata: { name: 'other' } };
    const reply = await call(port, `${WEBHOOK_PATHS.pods}?timeout=10s`, { body: review(podRequest('uid-9', pod)) });
    expect(reply.json().response).toEqual({ uid: 'uid-9', allowed: true });
  });
});

describe('webhook server limits and certificates', () => {
  it('answers a body over the limit with 413', async () => {
    const server = createWebhookServer({ tls, routes: { '/w': async () => ({ allowed: true }) }, logger, maxBodyBytes: 1024 });
    const { port } = await server.listen(0, '127.0.0.1');
    try {
      const reply = await call(port, '/w', { body: Buffer.alloc(4096, 0x20) });
      expect(reply.status).toBe(413);
    } finally {
      await server.close();
    }
  });

  it('serves a renewed certificate to new connections', async () => {
    const server = createWebhookServer({ tls, routes: {}, logger });
    const { port } = await server.listen(0, '127.0.0.1');
    try {
      const renewed = generateSelfSignedCertificates();
      server.setCertificate(renewed);
      expect((await call(port, '/healthz', { method: 'GET', ca: renewed.caBundle })).status).toBe(200);
      await expect(call(port, '/healthz', { method: 'GET', ca: tls.caBundle })).rejects.toThrow();
    } finally {
      await server.close();
    }
  });

  it('reports a port in use when listening', async () => {
    const a = createWebhookServer({ tls, routes: {}, logger });
    const { port } = await a.listen(0, '127.0.0.1');
    const b = createWebhookServer({ tls, routes: {}, logger });
    try {
      await expect(b.listen(port, '127.0.0.1')).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
