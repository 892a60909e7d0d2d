/**
 * The `router` key of inferenceservice-config (KServe's RouterConfig): the InferenceGraph
 * router's image and pull settings, its default resources (used when a graph sets none),
 * and `headers.propagate`, the header names every router passes to its steps (its
 * PROPAGATE_HEADERS). KServe refuses a graph whose router resources are not quantities;
 * so does this parser, once, when the ConfigMap is read.
 */
import { quantityField } from './modelcar.js';
import { ConfigError, objectField, parseSection, stringField } from './section.js';

export interface RouterConfig {
  image: string;
  imagePullPolicy: string;
  imagePullSecrets: string[];
  cpuRequest: string;
  cpuLimit: string;
  memoryRequest: string;
  memoryLimit: string;
  /** `headers.propagate`: undefined when the key is absent (no PROPAGATE_HEADERS at all, as KServe). */
  propagateHeaders: string[] | undefined;
}

const KEY = 'router';

function stringList(section: Record<string, unknown>, field: string, where: string): string[] {
  const v = section[field];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new ConfigError(KEY, `'${where}' must be a list of strings`);
  return v as string[];
}

export function parseRouterConfig(raw: string | undefined): RouterConfig {
  const s = parseSection(KEY, raw);
  const headers = objectField(KEY, s, 'headers');
  return {
    image: stringField(KEY, s, 'image', 'kserve-ts-router:0.1.0'),
    imagePullPolicy: stringField(KEY, s, 'imagePullPolicy', ''),
    imagePullSecrets: stringList(s, 'imagePullSecrets', 'imagePullSecrets'),
    cpuRequest: quantityField(KEY, s, 'cpuRequest', '100m'),
    cpuLimit: quantityField(KEY, s, 'cpuLimit', '1'),
    memoryRequest: quantityField(KEY, s, 'memoryRequest', '100Mi'),
    memoryLimit: quantityField(KEY, s, 'memoryLimit', '1Gi'),
    propagateHeaders: headers['propagate'] === undefined ? undefined : stringList(headers, 'propagate', 'headers.propagate'),
  };
}
