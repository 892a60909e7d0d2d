/**
 * Type checks of the admission objects the webhooks read, before any handler touches them.
 * The API server only guarantees JSON: a pod's containers and an InferenceService's
 * preserve-unknown-fields parts (model, containers) can hold a number where a string
 * belongs or an object where a list does, and a handler reading them would fail with a
 * TypeError. Checking the shapes first turns every such object into one clear 400 that names
 * the field path (`spec.containers[0].env[1].value must be a string, got number`).
 *
 * Shapes are open: fields they do not list are not checked (the handlers never read them).
 * Messages never quote a value, only its JSON type, so no credential reaches a message.
 */
import { LEGACY_FRAMEWORK_FIELDS } from '../api/model-spec.js';

export type Shape =
  | 'string'
  | 'number'
  | 'boolean'
  | 'object'
  | { readonly fields: Readonly<Record<string, Shape>> }
  | { readonly list: Shape }
  | { readonly map: Shape };

const MAX_PROBLEMS = 5;

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Problems of `value` at `path` against `shape` (at most a few). An explicit `null` in a
 * field the webhooks read is a problem too: the API server's own serialization never sends
 * one there, and handlers test for absence with `undefined`.
 */
export function shapeProblems(value: unknown, shape: Shape, path: string, out: string[] = []): string[] {
  if (value === undefined || out.length >= MAX_PROBLEMS) return out;
  const want = (what: string): void => {
    out.push(`${path} must be ${what}, got ${typeOf(value)}`);
  };
  if (typeof shape === 'string') {
    if (shape === 'object') {
      if (!isPlainObject(value)) want('an object');
    } else if (typeof value !== shape || (shape === 'number' && !Number.isFinite(value))) {
      want(shape === 'number' ? 'a number' : `a ${shape}`);
    }
    return out;
  }
  if ('list' in shape) {
    if (!Array.isArray(value)) {
      want('a list');
      return out;
    }
    value.forEach((item, i) => {
      if (item === null || item === undefined) out.push(`${path}[${i}] must not be null`);
      else shapeProblems(item, shape.list, `${path}[${i}]`, out);
    });
    return out;
  }
  if (!isPlainObject(value)) {
    want('an object');
    return out;
  }
  if ('map' in shape) {
    for (const [k, v] of Object.entries(value)) shapeProblems(v, shape.map, `${path}[${JSON.stringify(k)}]`, out);
    return out;
  }
  for (const [k, s] of Object.entries(shape.fields)) shapeProblems(value[k], s, path ? `${path}.${k}` : k, out);
  return out;
}

const strings: Shape = { list: 'string' };
const stringMap: Shape = { map: 'string' };

export const METADATA_SHAPE: Shape = {
  fields: { name: 'string', generateName: 'string', namespace: 'string', labels: stringMap, annotations: stringMap, deletionTimestamp: 'string' },
};

const ENV_VAR: Shape = { fields: { name: 'string', value: 'string', valueFrom: 'object' } };

/** The container fields the webhooks and the controller read or merge. */
export const CONTAINER_FIELDS: Readonly<Record<string, Shape>> = {
  name: 'string',
  image: 'string',
  args: strings,
  command: strings,
  env: { list: ENV_VAR },
  envFrom: { list: 'object' },
  volumeMounts: { list: { fields: { name: 'string', mountPath: 'string', subPath: 'string', readOnly: 'boolean' } } },
  ports: { list: { fields: { containerPort: 'number', name: 'string', protocol: 'string' } } },
  resources: { fields: { limits: 'object', requests: 'object' } },
  securityContext: 'object',
  readinessProbe: 'object',
  livenessProbe: 'object',
  startupProbe: 'object',
};

const CONTAINER: Shape = { fields: CONTAINER_FIELDS };

const POD_SPEC_FIELDS: Readonly<Record<string, Shape>> = {
  containers: { list: CONTAINER },
  initContainers: { list: CONTAINER },
  volumes: { list: { fields: { name: 'string' } } },
  serviceAccountName: 'string',
  imagePullSecrets: { list: { fields: { name: 'string' } } },
  nodeSelector: stringMap,
  tolerations: { list: 'object' },
  affinity: 'object',
  securityContext: 'object',
};

export const POD_SHAPE: Shape = { fields: { metadata: METADATA_SHAPE, spec: { fields: POD_SPEC_FIELDS } } };

const STORAGE: Shape = { fields: { key: 'string', path: 'string', parameters: stringMap, serviceAccountName: 'string' } };

const MODEL: Shape = {
  fields: {
    ...CONTAINER_FIELDS,
    modelFormat: { fields: { name: 'string', version: 'string' } },
    runtime: 'string',
    storageUri: 'string',
    runtimeVersion: 'string',
    protocolVersion: 'string',
    storage: STORAGE,
  },
};

const COMPONENT_FIELDS: Readonly<Record<string, Shape>> = {
  ...POD_SPEC_FIELDS,
  minReplicas: 'number',
  maxReplicas: 'number',
  scaleTarget: 'number',
  scaleMetric: 'string',
  containerConcurrency: 'number',
  timeout: 'number',
  canaryTrafficPercent: 'number',
  labels: stringMap,
  annotations: stringMap,
};


export const INFERENCE_SERVICE_SHAPE: Shape = {
  fields: {
    metadata: METADATA_SHAPE,
    spec: {
      fields: {
        // Each legacy framework spec is a container plus the model fields.
        predictor: { fields: { ...COMPONENT_FIELDS, model: MODEL, ...Object.fromEntries(LEGACY_FRAMEWORK_FIELDS.map((f) => [f, MODEL])) } },
        transformer: { fields: COMPONENT_FIELDS },
      },
    },
    status: { fields: { deploymentMode: 'string' } },
  },
};
