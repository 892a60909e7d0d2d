/**
 * The `logger` key of inferenceservice-config. kserve-ts logs from the server process, so of
 * KServe's keys (image, resources, defaultUrl) only `defaultUrl` means anything here: the
 * URL a component's logger sends to when its spec names none. KServe ships
 * `http://default-broker` (a Knative Eventing broker in the ISVC's namespace).
 */
import { parseSection, stringField } from './section.js';

export interface LoggerConfig {
  defaultUrl: string;
}

export const DEFAULT_LOGGER_URL = 'http://default-broker';

export function parseLoggerConfig(raw: string | undefined): LoggerConfig {
  return { defaultUrl: stringField('logger', parseSection('logger', raw), 'defaultUrl', DEFAULT_LOGGER_URL) };
}
