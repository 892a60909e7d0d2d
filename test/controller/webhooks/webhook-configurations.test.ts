import { describe, expect, it } from 'vitest';
import { mutatingWebhookConfiguration, validatingWebhookConfiguration, WEBHOOK_PATHS } from '../../../controller/webhooks/webhook-configurations.js';

const caBundle = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

describe('webhook configurations', () => {
  it('registers the pod mutator as KServe does, for a Service', () => {
    const m = mutatingWebhookConfiguration({ target: { service: { name: 'kserve-webhook-server-service', namespace: 'kserve' } }, caBundle });
    expect(m.metadata?.name).toBe('inferenceservice.serving.kserve.io');
    const pods = m.webhooks?.find((w) => w.name === 'inferenceservice.kserve-webhook-server.pod-mutator');
    expect(pods).toEqual({
      name: 'inferenceservice.kserve-webhook-server.pod-mutator',
      clientConfig: {
        service: { name: 'kserve-webhook-server-service', namespace: 'kserve', path: '/mutate-pods', port: 443 },
        caBundle: Buffer.from(caBundle).toString('base64'),
      },
      rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
      failurePolicy: 'Fail',
      sideEffects: 'None',
      reinvocationPolicy: 'IfNeeded',
      admissionReviewVersions: ['v1'],
      timeoutSeconds: 10,
      namespaceSelector: { matchExpressions: [{ key: 'control-plane', operator: 'DoesNotExist' }] },
      objectSelector: { matchExpressions: [{ key: 'serving.kserve.io/inferenceservice', operator: 'Exists' }] },
    });
  });

  it('registers the InferenceService defaulter and validator for CREATE and UPDATE', () => {
    const target = { url: 'https://127.0.0.1:9443/' };
    const defaulter = mutatingWebhookConfiguration({ target, caBundle }).webhooks?.find((w) => w.name.endsWith('.defaulter'));
    const validator = validatingWebhookConfiguration({ target, caBundle, name: 'test-webhooks', timeoutSeconds: 5 }).webhooks?.[0];
    const rules = [{ apiGroups: ['serving.kserve.io'], apiVersions: ['v1beta1'], operations: ['CREATE', 'UPDATE'], resources: ['inferenceservices'] }];
    expect(defaulter?.clientConfig.url).toBe(`https://127.0.0.1:9443${WEBHOOK_PATHS.isvcDefaulter}`);
    expect(defaulter?.rules).toEqual(rules);
    expect(validator?.clientConfig.url).toBe(`https://127.0.0.1:9443${WEBHOOK_PATHS.isvcValidator}`);
    expect(validator?.rules).toEqual(rules);
    expect(validator?.timeoutSeconds).toBe(5);
    expect(validator?.failurePolicy).toBe('Fail');
    expect(validatingWebhookConfiguration({ target, caBundle, name: 'test-webhooks' }).metadata?.name).toBe('test-webhooks');
  });
});

describe('the TrainedModel validator', () => {
  it("is registered at KServe's path and name, for CREATE and UPDATE of trainedmodels", () => {
    const target = { url: 'https://127.0.0.1:9443' };
    const tm = validatingWebhookConfiguration({ target, caBundle }).webhooks?.find((w) => w.name === 'trainedmodel.kserve-webhook-server.validator');
    expect(tm?.clientConfig.url).toBe('https://127.0.0.1:9443/validate-trainedmodel');
    expect(tm?.rules).toEqual([{ apiGroups: ['serving.kserve.io'], apiVersions: ['v1alpha1'], operations: ['CREATE', 'UPDATE'], resources: ['trainedmodels'] }]);
    expect(tm?.failurePolicy).toBe('Fail');
  });
});
