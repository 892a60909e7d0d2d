/**
 * The configuration the webhooks read on every request (the controller's parsed
 * `inferenceservice-config`; its full type is a superset of this one).
 */
import type { CredentialsConfig } from '../config/credentials.js';
import type { StorageInitializerConfig } from '../config/storage-initializer.js';
import type { DeploymentMode } from '../constants.js';

export interface WebhookConfig {
  storageInitializer: StorageInitializerConfig;
  credentials: CredentialsConfig;
  defaultDeploymentMode: DeploymentMode;
}

/** Called per admission request, so a changed ConfigMap applies to the next pod. */
export type GetWebhookConfig = () => WebhookConfig | Promise<WebhookConfig>;
