/**
 * The webhooks as the controller's main uses them:
 *
 *   const tls = certDir ? loadCertificates(certDir) : generateSelfSignedCertificates({ dnsNames: serviceDnsNames(svc, ns) });
 *   const server = createWebhooks({ credentials: kubeCredentialSource(core), getConfig, logger, tls });
 *   await server.listen(9443);
 *   await applyWebhookConfigurations(admissionApi, { target: { service: { name: svc, namespace: ns, port: 443 } }, caBundle: tls.caBundle });
 */
import type { Logger } from 'pino';
import type { AdmissionHandler } from './admission.js';
import type { CredentialSource } from './credentials/credential-source.js';
import { graphValidatingWebhook } from './graph/graph-webhook.js';
import { isvcDefaultingWebhook, isvcValidatingWebhook } from './isvc/isvc-webhooks.js';
import { podWebhook } from './pod/pod-webhook.js';
import { type ParentLookup, trainedModelValidatingWebhook } from './trained-model/trained-model-webhook.js';
import type { GetWebhookConfig } from './webhook-config.js';
import { WEBHOOK_PATHS } from './webhook-configurations.js';
import { createWebhookServer, type WebhookServer } from './webhook-server.js';

export interface WebhookDeps {
  credentials: CredentialSource;
  getConfig: GetWebhookConfig;
  logger: Logger;
  /** Where the controller runs (decides the CA bundle configmap name). */
  controllerNamespace: string;
  /** Reads a TrainedModel's parent (the TrainedModel webhook's CREATE checks); none: every parent is missing. */
  trainedModelParents?: ParentLookup;
}

/** Path → handler for the webhooks. */
export function webhookRoutes(deps: WebhookDeps): Record<string, AdmissionHandler> {
  const { controllerNamespace } = deps;
  const log = deps.logger;
  return {
    [WEBHOOK_PATHS.pods]: podWebhook({
      getConfig: deps.getConfig,
      credentials: deps.credentials,
      controllerNamespace,
      debug: (message) => log.debug(message),
    }),
    [WEBHOOK_PATHS.isvcDefaulter]: isvcDefaultingWebhook(deps.getConfig),
    [WEBHOOK_PATHS.isvcValidator]: isvcValidatingWebhook(deps.getConfig),
    [WEBHOOK_PATHS.graphValidator]: graphValidatingWebhook(),
    [WEBHOOK_PATHS.trainedModelValidator]: trainedModelValidatingWebhook(deps.trainedModelParents ?? (() => Promise.resolve(undefined))),
  };
}

export function createWebhooks(deps: WebhookDeps & { tls: { cert: string; key: string } }): WebhookServer {
  return createWebhookServer({ tls: deps.tls, routes: webhookRoutes(deps), logger: deps.logger });
}

export type { AdmissionHandler, AdmissionRequest, AdmissionResponse, AdmissionReview, Verdict } from './admission.js';
export { type CredentialSource, kubeCredentialSource } from './credentials/credential-source.js';
export { type WebhookCertificate, generateSelfSignedCertificates, loadCertificates, serviceDnsNames } from './certificates.js';
export type { GetWebhookConfig, WebhookConfig } from './webhook-config.js';
export type { WebhookServer } from './webhook-server.js';
export { createWebhookServer } from './webhook-server.js';
export { applyWebhookConfigurations, mutatingWebhookConfiguration, validatingWebhookConfiguration, WEBHOOK_PATHS, type WebhookTarget } from './webhook-configurations.js';
export { mutatePod, POD_MUTATORS } from './pod/pod-mutator.js';
export type { PodMutationContext, PodMutator } from './pod/pod-mutation.js';
export { defaultInferenceService } from './isvc/defaulter.js';
export { validateInferenceService } from './isvc/validator.js';
export { validateInferenceGraph } from './graph/graph-validator.js';
export { validateParent, validateTrainedModel } from './trained-model/trained-model-validator.js';
