/**
 * The registration objects (KServe `config/webhook/manifests.yaml`, with admission review v1):
 * a MutatingWebhookConfiguration with the pod mutator and the InferenceService defaulter, and
 * a ValidatingWebhookConfiguration with the InferenceService, InferenceGraph and TrainedModel validators
 * (KServe registers the graph's in a configuration of its own; one object is simpler to
 * replace with a new caBundle, and the webhook names and paths are KServe's). The webhooks are
 * reached through a Service in the cluster, or a URL (tests, a controller run outside it).
 */
import type {
  AdmissionregistrationV1Api,
  AdmissionregistrationV1WebhookClientConfig,
  V1MutatingWebhookConfiguration,
  V1ValidatingWebhookConfiguration,
} from '@kubernetes/client-node';
import { LABEL_ISVC } from '../constants.js';
import { GRAPH_GROUP, GRAPH_PLURAL, GRAPH_VERSION } from '../api/inference-graph.js';
import { ISVC_GROUP, ISVC_PLURAL, ISVC_VERSION } from '../api/inference-service.js';
import { TM_GROUP, TM_PLURAL, TM_VERSION } from '../api/trained-model.js';
import { isNotFound } from '../kube/api-errors.js';

export const WEBHOOK_PATHS = {
  pods: '/mutate-pods',
  isvcDefaulter: '/mutate-serving-kserve-io-v1beta1-inferenceservice',
  isvcValidator: '/validate-serving-kserve-io-v1beta1-inferenceservice',
  graphValidator: '/validate-serving-kserve-io-v1alpha1-inferencegraph',
  trainedModelValidator: '/validate-trainedmodel',
} as const;

export const WEBHOOK_CONFIGURATION_NAME = 'inferenceservice.serving.kserve.io';
export const WEBHOOK_NAMES = {
  pods: 'inferenceservice.kserve-webhook-server.pod-mutator',
  isvcDefaulter: 'inferenceservice.kserve-webhook-server.defaulter',
  isvcValidator: 'inferenceservice.kserve-webhook-server.validator',
  graphValidator: 'inferencegraph.kserve-webhook-server.validator',
  trainedModelValidator: 'trainedmodel.kserve-webhook-server.validator',
} as const;

export type WebhookTarget =
  /** In the cluster: the API server calls `https://<name>.<namespace>.svc:<port><path>`. */
  | { service: { name: string; namespace: string; port?: number } }
  /** Anywhere else: a base URL such as `https://127.0.0.1:9443`. */
  | { url: string };

export interface WebhookConfigurationOptions {
  target: WebhookTarget;
  /** PEM of the CA that signed the serving certificate. */
  caBundle: string;
  /** Object name of both configurations. */
  name?: string;
  timeoutSeconds?: number;
}

function clientConfig(options: WebhookConfigurationOptions, path: string): AdmissionregistrationV1WebhookClientConfig {
  const caBundle = Buffer.from(options.caBundle).toString('base64');
  const t = options.target;
  if ('url' in t) return { url: `${t.url.replace(/\/+$/, '')}${path}`, caBundle };
  return { service: { name: t.service.name, namespace: t.service.namespace, path, port: t.service.port ?? 443 }, caBundle };
}

const ISVC_RULES = [{ apiGroups: [ISVC_GROUP], apiVersions: [ISVC_VERSION], operations: ['CREATE', 'UPDATE'], resources: [ISVC_PLURAL] }];
const TM_RULES = [{ apiGroups: [TM_GROUP], apiVersions: [TM_VERSION], operations: ['CREATE', 'UPDATE'], resources: [TM_PLURAL] }];
const GRAPH_RULES = [{ apiGroups: [GRAPH_GROUP], apiVersions: [GRAPH_VERSION], operations: ['CREATE', 'UPDATE'], resources: [GRAPH_PLURAL] }];

export function mutatingWebhookConfiguration(options: WebhookConfigurationOptions): V1MutatingWebhookConfiguration {
  const timeoutSeconds = options.timeoutSeconds ?? 10;
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name: options.name ?? WEBHOOK_CONFIGURATION_NAME },
    webhooks: [
      {
        name: WEBHOOK_NAMES.isvcDefaulter,
        clientConfig: clientConfig(options, WEBHOOK_PATHS.isvcDefaulter),
        rules: ISVC_RULES,
        failurePolicy: 'Fail',
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        timeoutSeconds,
      },
      {
        name: WEBHOOK_NAMES.pods,
        clientConfig: clientConfig(options, WEBHOOK_PATHS.pods),
        rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
        failurePolicy: 'Fail',
        sideEffects: 'None',
        reinvocationPolicy: 'IfNeeded',
        admissionReviewVersions: ['v1'],
        timeoutSeconds,
        // Never the control plane's own pods, and only InferenceService pods.
        namespaceSelector: { matchExpressions: [{ key: 'control-plane', operator: 'DoesNotExist' }] },
        objectSelector: { matchExpressions: [{ key: LABEL_ISVC, operator: 'Exists' }] },
      },
    ],
  };
}

export function validatingWebhookConfiguration(options: WebhookConfigurationOptions): V1ValidatingWebhookConfiguration {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: options.name ?? WEBHOOK_CONFIGURATION_NAME },
    webhooks: [
      {
        name: WEBHOOK_NAMES.isvcValidator,
        clientConfig: clientConfig(options, WEBHOOK_PATHS.isvcValidator),
        rules: ISVC_RULES,
        failurePolicy: 'Fail',
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        timeoutSeconds: options.timeoutSeconds ?? 10,
      },
      {
        name: WEBHOOK_NAMES.graphValidator,
        clientConfig: clientConfig(options, WEBHOOK_PATHS.graphValidator),
        rules: GRAPH_RULES,
        failurePolicy: 'Fail',
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        timeoutSeconds: options.timeoutSeconds ?? 10,
      },
      {
        name: WEBHOOK_NAMES.trainedModelValidator,
        clientConfig: clientConfig(options, WEBHOOK_PATHS.trainedModelValidator),
        rules: TM_RULES,
        failurePolicy: 'Fail',
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        timeoutSeconds: options.timeoutSeconds ?? 10,
      },
    ],
  };
}

/**
 * Creates both configurations, or replaces them (e.g. with a new caBundle after the
 * controller generated a certificate at start-up).
 */
export async function applyWebhookConfigurations(api: AdmissionregistrationV1Api, options: WebhookConfigurationOptions): Promise<void> {
  const mutating = mutatingWebhookConfiguration(options);
  const validating = validatingWebhookConfiguration(options);
  const name = mutating.metadata?.name as string;
  await upsert(
    () => api.readMutatingWebhookConfiguration({ name }),
    (resourceVersion) => api.replaceMutatingWebhookConfiguration({ name, body: { ...mutating, metadata: { name, resourceVersion } } }),
    () => api.createMutatingWebhookConfiguration({ body: mutating }),
  );
  await upsert(
    () => api.readValidatingWebhookConfiguration({ name }),
    (resourceVersion) => api.replaceValidatingWebhookConfiguration({ name, body: { ...validating, metadata: { name, resourceVersion } } }),
    () => api.createValidatingWebhookConfiguration({ body: validating }),
  );
}

async function upsert(
  read: () => Promise<{ metadata?: { resourceVersion?: string } }>,
  replace: (resourceVersion: string | undefined) => Promise<unknown>,
  create: () => Promise<unknown>,
): Promise<void> {
  let existing: { metadata?: { resourceVersion?: string } } | undefined;
  try {
    existing = await read();
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  if (existing) await replace(existing.metadata?.resourceVersion);
  else await create();
}
