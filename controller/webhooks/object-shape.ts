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
 *
 * A custom resource's shape is derived from its CRD's schema (`shapeOfSchema`), so a field
 * added to the CRD is checked here too; only the Kubernetes types a CRD keeps as written
 * (containers, a model's container fields) and the Pod are written out below.
 */
import type { OpenApiSchema } from '../api/crd.js';
import { INFERENCE_GRAPH_SPEC_SCHEMA } from '../api/inference-graph-crd.js';
import { TRAINED_MODEL_SPEC_SCHEMA } from '../api/trained-model-crd.js';
import { CONTAINER_SCHEMA, INFERENCE_SERVICE_SPEC_SCHEMA, LEGACY_FRAMEWORK_SCHEMA, MODEL_SCHEMA } from '../api/inference-service-crd.js';

export type Shape = 'string' | 'number' | 'boolean' | 'object' | { readonly fields: Readonly<Record<string, Shape>> } | { readonly list: Shape } | { readonly map: Shape };

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

/**
 * Fields of the Kubernetes types a CRD embeds with `x-kubernetes-preserve-unknown-fields`,
 * keyed by the schema that embeds them: the API server keeps whatever such an object holds,
 * so the webhooks check the fields they read themselves.
 */
const EMBEDDED: ReadonlyMap<OpenApiSchema, Readonly<Record<string, Shape>>> = new Map([
  [CONTAINER_SCHEMA, CONTAINER_FIELDS],
  [MODEL_SCHEMA, CONTAINER_FIELDS],
  [LEGACY_FRAMEWORK_SCHEMA, CONTAINER_FIELDS],
]);

/**
 * The shape of what `schema` admits: its types, its listed fields (with the fields of an
 * embedded Kubernetes type, `embedded`, where it keeps unknown fields), its maps and lists.
 * Undefined where the schema admits more than one JSON type (`x-kubernetes-int-or-string`):
 * such a field is not checked.
 */
export function shapeOfSchema(schema: OpenApiSchema, embedded: ReadonlyMap<OpenApiSchema, Readonly<Record<string, Shape>>> = EMBEDDED): Shape | undefined {
  switch (schema.type) {
    case 'string':
    case 'boolean':
      return schema.type;
    case 'integer':
    case 'number':
      return 'number';
    case 'array': {
      const item = schema.items && shapeOfSchema(schema.items, embedded);
      if (item === undefined) throw new Error('a CRD list must say the JSON type of its items');
      return { list: item };
    }
    case 'object': {
      if (schema.additionalProperties) {
        const value = shapeOfSchema(schema.additionalProperties, embedded);
        return value === undefined ? 'object' : { map: value };
      }
      const fields: Record<string, Shape> = { ...embedded.get(schema) };
      for (const [k, s] of Object.entries(schema.properties ?? {})) {
        const shape = shapeOfSchema(s, embedded);
        if (shape !== undefined) fields[k] = shape;
      }
      return Object.keys(fields).length === 0 ? 'object' : { fields };
    }
    default:
      return undefined;
  }
}

/**
 * The InferenceService as its CRD describes it. `status` is the controller's and kept as
 * written by the CRD; the webhooks read its deploymentMode.
 */
export const INFERENCE_SERVICE_SHAPE: Shape = {
  fields: {
    metadata: METADATA_SHAPE,
    spec: shapeOfSchema(INFERENCE_SERVICE_SPEC_SCHEMA)!,
    status: { fields: { deploymentMode: 'string' } },
  },
};

/** The InferenceGraph as its CRD describes it (the validator reads only metadata and spec). */
export const INFERENCE_GRAPH_SHAPE: Shape = {
  fields: { metadata: METADATA_SHAPE, spec: shapeOfSchema(INFERENCE_GRAPH_SPEC_SCHEMA)! },
};

/** The TrainedModel as its CRD describes it (the validator reads only metadata and spec). */
export const TRAINED_MODEL_SHAPE: Shape = {
  fields: { metadata: METADATA_SHAPE, spec: shapeOfSchema(TRAINED_MODEL_SPEC_SCHEMA)! },
};
