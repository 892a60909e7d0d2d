import { describe, expect, it } from 'vitest';
import type { InferenceService } from '../../../controller/api/inference-service.js';
import type { DeploymentMode } from '../../../controller/constants.js';
import { isvcDefaultingWebhook } from '../../../controller/webhooks/isvc/isvc-webhooks.js';
import { applyPatch } from '../../../controller/webhooks/json-patch.js';
import type { WebhookConfig } from '../../../controller/webhooks/webhook-config.js';
import { fakeCluster } from './fake-cluster.js';

function isvc(annotations: Record<string, string> | undefined, predictor: Record<string, unknown>): InferenceService {
  return {
    apiVersion: 'serving.kserve.io/v1beta1',
    kind: 'InferenceService',
    metadata: { name: 'iris', namespace: 'default', ...(annotations ? { annotations } : {}) },
    spec: { predictor },
  };
}

const sklearn = { model: { modelFormat: { name: 'sklearn' }, storageUri: 'gs://m' } };

async function defaulted(object: InferenceService, mode: DeploymentMode = 'Knative'): Promise<InferenceService> {
  const config: WebhookConfig = { ...fakeCluster().config, defaultDeploymentMode: mode };
  const verdict = await isvcDefaultingWebhook(() => config)({
    uid: 'u',
    kind: { group: 'serving.kserve.io', version: 'v1beta1', kind: 'InferenceService' },
    operation: 'CREATE',
    object,
  });
  if (!verdict.allowed) throw new Error(verdict.status.message);
  return applyPatch(object, verdict.patch ?? []) as unknown as InferenceService;
}

describe('InferenceService defaulting', () => {
  it.each<[string, Record<string, string> | undefined, DeploymentMode, Record<string, string>]>([
    ['RawDeployment → Standard', { 'serving.kserve.io/deploymentMode': 'RawDeployment' }, 'Knative', { 'serving.kserve.io/deploymentMode': 'Standard' }],
    ['Serverless → Knative', { 'serving.kserve.io/deploymentMode': 'Serverless' }, 'Standard', { 'serving.kserve.io/deploymentMode': 'Knative' }],
    ['an explicit mode is kept', { 'serving.kserve.io/deploymentMode': 'Knative' }, 'Standard', { 'serving.kserve.io/deploymentMode': 'Knative' }],
    ['a Standard default is written', undefined, 'Standard', { 'serving.kserve.io/deploymentMode': 'Standard' }],
    ['a Knative default is not written (it keeps following the ConfigMap)', undefined, 'Knative', {}],
  ])('deployment mode: %s', async (_name, annotations, mode, expected) => {
    const result = await defaulted(isvc(annotations, sklearn), mode);
    expect(result.metadata.annotations).toEqual({ ...expected, modelFormat: 'sklearn' });
  });

  it('rewrites predictor.onnx into model with format onnx and protocol v2', async () => {
    const result = await defaulted(isvc(undefined, { onnx: { storageUri: 'gs://m/onnx', resources: { limits: { cpu: '1' } } }, minReplicas: 1 }));
    expect(result.spec.predictor).toEqual({
      model: { modelFormat: { name: 'onnx' }, storageUri: 'gs://m/onnx', resources: { limits: { cpu: '1' } }, protocolVersion: 'v2' },
      minReplicas: 1,
    });
    expect(result.metadata.annotations).toEqual({ modelFormat: 'onnx' });
  });

  it('rewrites predictor.tensorflow into model and keeps its protocol', async () => {
    const result = await defaulted(isvc(undefined, { tensorflow: { storageUri: 'gs://m/tf', runtimeVersion: '2.6.2', protocolVersion: 'v1' } }));
    expect(result.spec.predictor).toEqual({
      model: { modelFormat: { name: 'tensorflow' }, storageUri: 'gs://m/tf', runtimeVersion: '2.6.2', protocolVersion: 'v1' },
    });
  });

  it.each<[string, string, string | undefined]>([
    ['sklearn', 'sklearn', undefined],
    ['xgboost', 'xgboost', undefined],
    ['pytorch', 'pytorch', undefined],
    ['triton', 'triton', 'v2'],
    ['huggingface', 'huggingface', 'v2'],
    ['pmml', 'pmml', undefined],
    ['lightgbm', 'lightgbm', undefined],
    ['paddle', 'paddle', undefined],
  ])('rewrites the legacy predictor.%s into model with format %s (protocol %s by default)', async (field, format, protocol) => {
    const result = await defaulted(isvc(undefined, { [field]: { storageUri: 'gs://m/x', env: [{ name: 'A', value: '1' }] } }));
    expect(result.spec.predictor).toEqual({
      model: { modelFormat: { name: format }, storageUri: 'gs://m/x', env: [{ name: 'A', value: '1' }], ...(protocol ? { protocolVersion: protocol } : {}) },
    });
    expect(result.metadata.annotations).toEqual({ modelFormat: format });
  });

  it('leaves two legacy specs alone for validation to reject', async () => {
    const predictor = { sklearn: { storageUri: 'gs://a' }, xgboost: { storageUri: 'gs://b' } };
    const result = await defaulted(isvc(undefined, predictor));
    expect(result.spec.predictor).toEqual(predictor);
  });

  it('leaves model + onnx alone for validation to reject', async () => {
    const predictor = { ...sklearn, onnx: { storageUri: 'gs://other' } };
    const result = await defaulted(isvc(undefined, predictor));
    expect(result.spec.predictor).toEqual(predictor);
  });

  it('defaults triton models to protocol v2', async () => {
    const result = await defaulted(isvc(undefined, { model: { modelFormat: { name: 'triton' } } }));
    expect(result.spec.predictor.model?.protocolVersion).toBe('v2');
  });

  it('keeps a user-set modelFormat annotation', async () => {
    const result = await defaulted(isvc({ modelFormat: 'mine' }, sklearn));
    expect(result.metadata.annotations).toEqual({ modelFormat: 'mine' });
  });

  it('answers without a patch when there is nothing to default', async () => {
    const config: WebhookConfig = { ...fakeCluster().config, defaultDeploymentMode: 'Knative' };
    const verdict = await isvcDefaultingWebhook(() => config)({
      uid: 'u',
      kind: { group: 'serving.kserve.io', version: 'v1beta1', kind: 'InferenceService' },
      operation: 'UPDATE',
      object: isvc({ 'serving.kserve.io/deploymentMode': 'Knative', modelFormat: 'sklearn' }, sklearn),
    });
    expect(verdict).toEqual({ allowed: true });
  });
});
