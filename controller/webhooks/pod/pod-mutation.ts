/**
 * The contract of a pod mutator: it edits the pod it is given (a copy of the object the API
 * server sent), reads the cluster only through `credentials`, and must be idempotent,
 * because the API server may invoke the webhook again (`reinvocationPolicy: IfNeeded`).
 * Throwing a `WebhookError` rejects the pod with its message.
 */
import type { V1Pod } from '@kubernetes/client-node';
import type { CredentialSource } from '../credentials/credential-source.js';
import type { WebhookConfig } from '../webhook-config.js';

export interface PodMutationContext {
  /** The admission request's namespace (a pod being created may not carry one yet). */
  namespace: string;
  config: WebhookConfig;
  credentials: CredentialSource;
  /** Where the controller runs (KServe's POD_NAMESPACE, default `kserve`). */
  controllerNamespace: string;
  debug?: (message: string) => void;
}

export type PodMutator = (pod: V1Pod, ctx: PodMutationContext) => void | Promise<void>;
