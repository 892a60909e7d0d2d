/**
 * The `inferenceservice-config` ConfigMap, parsed once per version of the ConfigMap into
 * one typed value that reconcilers and webhooks receive. Keys are KServe's; each holds a
 * JSON document. Missing keys take KServe's shipped defaults, except that an absent
 * `deploy` key means Knative, as the anchor's code does.
 */
import type { DeploymentMode } from '../constants.js';
import { normalizeDeploymentMode } from '../deployment-mode.js';
import { type CredentialsConfig, parseCredentialsConfig } from './credentials.js';
import { type IngressConfig, parseIngressConfig } from './ingress.js';
import { type LoggerConfig, parseLoggerConfig } from './logger.js';
import { type RouterConfig, parseRouterConfig } from './router.js';
import { ConfigError, objectField, parseSection, stringField, boolField } from './section.js';

export type { IngressConfig };
import { type StorageInitializerConfig, parseStorageInitializerConfig } from './storage-initializer.js';

export interface ResourceDefaults {
  cpuRequest: string;
  cpuLimit: string;
  memoryRequest: string;
  memoryLimit: string;
}

export interface AutoscalerConfig {
  scaleUpStabilizationWindowSeconds: number;
  scaleDownStabilizationWindowSeconds: number;
}

export interface InferenceServiceConfig {
  defaultDeploymentMode: DeploymentMode;
  ingress: IngressConfig;
  resources: ResourceDefaults;
  serviceClusterIPNone: boolean;
  autoscaler: AutoscalerConfig;
  storageInitializer: StorageInitializerConfig;
  credentials: CredentialsConfig;
  logger: LoggerConfig;
  /** The InferenceGraph router. */
  router: RouterConfig;
}

export function parseInferenceServiceConfig(data: Readonly<Record<string, string>> | undefined): InferenceServiceConfig {
  const d = data ?? {};
  return {
    defaultDeploymentMode: parseDeploy(d.deploy),
    ingress: parseIngressConfig(parseSection('ingress', d.ingress)),
    resources: parseResources(d.inferenceService),
    serviceClusterIPNone: boolField('service', parseSection('service', d.service), 'serviceClusterIPNone', false),
    autoscaler: parseAutoscaler(d.autoscaler),
    storageInitializer: parseStorageInitializerConfig(d.storageInitializer),
    credentials: parseCredentialsConfig(d.credentials),
    logger: parseLoggerConfig(d.logger),
    router: parseRouterConfig(d.router),
  };
}

function parseDeploy(raw: string | undefined): DeploymentMode {
  const s = parseSection('deploy', raw);
  const value = stringField('deploy', s, 'defaultDeploymentMode', 'Knative');
  const mode = normalizeDeploymentMode(value);
  if (!mode) {
    throw new ConfigError('deploy', `defaultDeploymentMode '${value}' must be one of Standard, Knative, ModelMesh (or legacy RawDeployment, Serverless)`);
  }
  return mode;
}

function parseResources(raw: string | undefined): ResourceDefaults {
  const s = parseSection('inferenceService', raw);
  const resource = objectField('inferenceService', s, 'resource');
  const f = (field: string, fallback: string): string => stringField('inferenceService.resource', resource, field, fallback);
  return {
    cpuRequest: f('cpuRequest', '1'),
    cpuLimit: f('cpuLimit', '1'),
    memoryRequest: f('memoryRequest', '2Gi'),
    memoryLimit: f('memoryLimit', '2Gi'),
  };
}

function parseAutoscaler(raw: string | undefined): AutoscalerConfig {
  const s = parseSection('autoscaler', raw);
  const seconds = (field: string, fallback: number): number => {
    const text = stringField('autoscaler', s, field, String(fallback));
    const n = Number(text);
    if (!Number.isInteger(n) || n < 0) throw new ConfigError('autoscaler', `'${field}' must be a non-negative integer of seconds`);
    return n;
  };
  return {
    scaleUpStabilizationWindowSeconds: seconds('scaleUpStabilizationWindowSeconds', 0),
    scaleDownStabilizationWindowSeconds: seconds('scaleDownStabilizationWindowSeconds', 300),
  };
}

/**
 * Renders KServe's `domainTemplate` (Go template fields `.Name`, `.Namespace`,
 * `.IngressDomain`, and `.Annotations.<key>` / `.Labels.<key>` of the InferenceService; a
 * missing key renders empty, as Go's templates render a missing map key).
 */
export function renderDomain(
  template: string,
  values: { Name: string; Namespace: string; IngressDomain: string; Annotations?: Readonly<Record<string, string>>; Labels?: Readonly<Record<string, string>> },
): string {
  return template.replace(
    /\{\{\s*\.(?:(Name|Namespace|IngressDomain)|(Annotations|Labels)\.([A-Za-z0-9_]+))\s*\}\}/g,
    (_m, field: 'Name' | 'Namespace' | 'IngressDomain' | undefined, map: 'Annotations' | 'Labels' | undefined, key: string | undefined) =>
      field ? values[field] : (values[map!]?.[key!] ?? ''),
  );
}
