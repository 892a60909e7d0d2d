/** `/mutate-pods`: decodes the pod, gates on the InferenceService label, runs the chain. */
import type { V1Pod } from '@kubernetes/client-node';
import { type AdmissionHandler, allow, requestObject } from '../admission.js';
import type { CredentialSource } from '../credentials/credential-source.js';
import { POD_SHAPE } from '../object-shape.js';
import type { GetWebhookConfig } from '../webhook-config.js';
import type { PodMutator } from './pod-mutation.js';
import { isInferenceServicePod, mutatePod, POD_MUTATORS } from './pod-mutator.js';

export interface PodWebhookDeps {
  getConfig: GetWebhookConfig;
  credentials: CredentialSource;
  controllerNamespace: string;
  mutators?: readonly PodMutator[];
  debug?: (message: string) => void;
}

export function podWebhook(deps: PodWebhookDeps): AdmissionHandler {
  return async (request) => {
    if (request.operation !== 'CREATE') return allow();
    const pod = requestObject<V1Pod>(request, 'object', POD_SHAPE, 'Pod');
    if (!isInferenceServicePod(pod)) return allow();
    // A pod made from a template has no namespace yet: the request carries it.
    const namespace = request.namespace || pod.metadata?.namespace || 'default';
    const config = await deps.getConfig();
    const { patch } = await mutatePod(
      pod,
      { namespace, config, credentials: deps.credentials, controllerNamespace: deps.controllerNamespace, debug: deps.debug },
      deps.mutators ?? POD_MUTATORS,
    );
    return allow(patch);
  };
}
