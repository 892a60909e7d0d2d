/**
 * `spec.<component>.logger` as kserve-ts server arguments. KServe injects an agent sidecar
 * that copies each request and response to `logger.url`; kserve-ts's server logs in process
 * (`--logger_*`), so the arguments go on the component's `kserve-container`, with the
 * identity KServe's agent gets from its flags (`--inference-service`, `--namespace`,
 * `--component`, `--endpoint`). Only kserve-ts server containers understand them.
 */
import type { V1Container } from '@kubernetes/client-node';
import type { InferenceService, LoggerSpec } from '../api/inference-service.js';
import type { LoggerConfig } from '../config/logger.js';
import { KSERVE_CONTAINER } from '../constants.js';
import type { ComponentPlan } from './component-plan.js';

/**
 * KServe v1beta1 labels every component's pods `endpoint: default` (canaries are Knative
 * revisions of the same component, not a separate endpoint), and its agent logs that label.
 */
export const LOGGER_ENDPOINT = 'default';

export function loggerArgs(isvc: InferenceService, component: ComponentPlan['component'], logger: LoggerSpec, config: LoggerConfig): string[] {
  const args = [
    '--logger_url',
    logger.url ?? config.defaultUrl,
    '--logger_mode',
    logger.mode ?? 'all',
    '--logger_inference_service',
    isvc.metadata.name!,
    '--logger_namespace',
    isvc.metadata.namespace!,
    '--logger_component',
    component,
    '--logger_endpoint',
    LOGGER_ENDPOINT,
  ];
  if (logger.metadataHeaders && logger.metadataHeaders.length > 0) args.push('--logger_metadata_headers', logger.metadataHeaders.join(','));
  return args;
}

/** The plan with the logger's arguments appended to its `kserve-container` (unchanged without a logger). */
export function withLogger(plan: ComponentPlan, isvc: InferenceService, logger: LoggerSpec | undefined, config: LoggerConfig): ComponentPlan {
  if (!logger) return plan;
  const extra = loggerArgs(isvc, plan.component, logger, config);
  const containers = plan.podSpec.containers.map((c): V1Container => (c.name === KSERVE_CONTAINER ? { ...c, args: [...(c.args ?? []), ...extra] } : c));
  return { ...plan, podSpec: { ...plan.podSpec, containers } };
}
