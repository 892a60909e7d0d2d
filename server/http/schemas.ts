/**
 * JSON schemas of the REST routes: what fastify validates (path parameters; on the infer
 * routes, documentation only, see `docs.inferV2`) and what only the OpenAPI document shows
 * (bodies and responses), from which @fastify/swagger generates /openapi.json (openapi.ts).
 *
 * Why infer bodies and responses are documentation only: every body is read as bytes
 * (body-parsers.ts), since V2 bodies may carry binary tensors after the JSON and tritonclient
 * sends them without a content type; the codecs parse and validate them with KServe's own
 * messages, which an ajv pass would replace with its own. Validating the parsed mlp body
 * costs 0.2-0.8 µs against ~10 µs to parse it (150k elements: up to 400 µs against 32 ms),
 * but it would need fastify to parse JSON bodies itself, a second parser beside the codec's.
 * Responses are encoded by the codecs too; a response schema would make fastify re-serialise
 * (and filter) the objects it is given.
 */
import { DATATYPES } from '../../protocols/datatypes.js';
import { HEADER_LENGTH_HEADER } from '../../protocols/v2/rest-request.js';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const name = { type: 'string', description: 'model name' } as const;
const version = { type: 'string', description: 'model version: a number, e.g. "1", or a version label of its config.pbtxt, e.g. "stable"' } as const;

/** Path parameters: `:name` and `:name` + `:version` (validated). */
export const modelParams = { type: 'object', required: ['name'], properties: { name } } as const;
export const versionParams = { type: 'object', required: ['name', 'version'], properties: { name, version } } as const;
/** TF Serving's `/versions/{v}` and `/labels/{l}` GET routes: the selector is checked by the route, which says which kind it must be. */
export const selectorParams = {
  type: 'object',
  required: ['name', 'target'],
  properties: { name, target: { type: 'string', description: 'a version number (/versions) or a version label (/labels)' } },
} as const;
/**
 * The binary tensor extension's header. A string here: the codec checks it against the
 * body's size and answers with the anchor's message (rest-request.ts).
 */
export const inferHeaders = {
  type: 'object',
  properties: {
    [HEADER_LENGTH_HEADER]: { type: 'string', description: 'binary tensor data extension: byte length of the JSON part of the body (a non-negative integer)' },
  },
} as const;

/** A params or headers schema as OpenAPI parameters. */
function openApiParameters(
  where: 'path' | 'header',
  schema: { readonly properties: Record<string, { readonly type: string; readonly description?: string }>; readonly required?: readonly string[] },
): object[] {
  return Object.entries(schema.properties).map(([name, p]) => ({
    name,
    in: where,
    required: where === 'path' || (schema.required ?? []).includes(name),
    ...(p.description === undefined ? {} : { description: p.description }),
    schema: { type: p.type },
  }));
}

const json = (schema: object, description = 'OK') => ({ description, content: { 'application/json': { schema } } });
const err = (description: string) => json(ref('Error'), description);
const binary = { type: 'string', format: 'binary' } as const;

export const modelErrors = { 404: err('Unknown model or version'), 503: err('Model not ready') };
const inferErrors = { 400: err('Invalid request'), ...modelErrors, 413: err('Body too large'), 500: err('Inference failed') };

/** What the document shows for a route beyond its validated schema (server/http/openapi.ts). */
export interface RouteDocs {
  /** OpenAPI parameters of a route that does not have fastify validate them (the infer routes). */
  readonly parameters?: readonly object[];
  readonly requestBody?: object;
  readonly responses: Record<string, object>;
  /**
   * Documented as these operations instead of the route's own path: one route may serve
   * several documented paths (V1's `name:verb`).
   */
  readonly as?: Readonly<Record<string, { readonly summary: string; readonly parameters: readonly object[]; readonly docs: RouteDocs }>>;
}

export const docs = {
  ok: (schema: object): RouteDocs => ({ responses: { 200: json(schema) } }),
  okOrModelError: (schema: object): RouteDocs => ({ responses: { 200: json(schema), ...modelErrors } }),
  /**
   * The infer routes: their parameters and header are documented, not validated by fastify.
   * Validating them costs ~10 ns each in ajv, yet the V2 JSON benchmark on this 2-core
   * machine showed a 0.92-0.93 median ratio (noisy) with them on, and the codec checks the
   * header anyway; the hot path stays without a validation pass.
   */
  inferV2: (params: typeof modelParams | typeof versionParams): RouteDocs => ({
    parameters: [...openApiParameters('path', params), ...openApiParameters('header', inferHeaders)],
    requestBody: {
      required: true,
      content: { 'application/json': { schema: ref('InferenceRequest') }, 'application/octet-stream': { schema: binary } },
    },
    responses: {
      200: {
        description: 'Inference result; binary outputs follow the JSON header when requested',
        content: { 'application/json': { schema: ref('InferenceResponse') }, 'application/octet-stream': { schema: binary } },
      },
      ...inferErrors,
    },
  }),
  predictV1: {
    requestBody: { required: true, content: { 'application/json': { schema: ref('V1Request') } } },
    responses: { 200: json(ref('V1Response')), ...inferErrors },
  } as RouteDocs,
  explainV1: { responses: { 501: err('The model does not support explain'), ...modelErrors } } as RouteDocs,
  text: (description: string): RouteDocs => ({ responses: { 200: { description } } }),
  ref,
  err,
};

const parameters = { type: 'object', additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] } };

/** The document's component schemas, referenced as `#/components/schemas/<name>`. */
export const COMPONENTS: Record<string, object> = {
  Error: { type: 'object', required: ['error'], properties: { error: { type: 'string' } } },
  ModelList: { type: 'object', properties: { models: { type: 'array', items: { type: 'string' } } } },
  ModelReady: { type: 'object', properties: { name: { type: 'string' }, ready: { type: 'boolean' } } },
  ModelVersionStatus: {
    type: 'object',
    description: "TF Serving's GetModelStatusResponse",
    properties: {
      model_version_status: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            version: { type: 'string' },
            state: { type: 'string', enum: ['START', 'LOADING', 'AVAILABLE', 'UNLOADING', 'END'] },
            status: { type: 'object', properties: { error_code: { type: 'string' }, error_message: { type: 'string' } } },
          },
        },
      },
    },
  },
  ServerMetadata: { type: 'object', properties: { name: { type: 'string' }, version: { type: 'string' }, extensions: { type: 'array', items: { type: 'string' } } } },
  TensorMetadata: { type: 'object', properties: { name: { type: 'string' }, datatype: { type: 'string' }, shape: { type: 'array', items: { type: 'integer' } } } },
  ModelMetadata: {
    type: 'object',
    properties: {
      name: { type: 'string' },
      versions: { type: 'array', items: { type: 'string' }, nullable: true },
      platform: { type: 'string' },
      inputs: { type: 'array', items: ref('TensorMetadata') },
      outputs: { type: 'array', items: ref('TensorMetadata') },
    },
  },
  Parameters: parameters,
  RequestInput: {
    type: 'object',
    required: ['name', 'shape', 'datatype'],
    properties: {
      name: { type: 'string' },
      shape: { type: 'array', items: { type: 'integer' } },
      datatype: { type: 'string', enum: [...DATATYPES] },
      parameters: ref('Parameters'),
      data: { type: 'array', items: {} },
    },
  },
  RequestOutput: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, parameters: ref('Parameters') } },
  InferenceRequest: {
    type: 'object',
    required: ['inputs'],
    properties: {
      id: { type: 'string' },
      parameters: ref('Parameters'),
      inputs: { type: 'array', items: ref('RequestInput') },
      outputs: { type: 'array', items: ref('RequestOutput') },
    },
  },
  ResponseOutput: {
    type: 'object',
    properties: {
      name: { type: 'string' },
      shape: { type: 'array', items: { type: 'integer' } },
      datatype: { type: 'string' },
      parameters: ref('Parameters'),
      data: { type: 'array', items: {} },
    },
  },
  InferenceResponse: {
    type: 'object',
    properties: {
      model_name: { type: 'string' },
      model_version: { type: 'string', nullable: true },
      id: { type: 'string' },
      parameters: ref('Parameters'),
      outputs: { type: 'array', items: ref('ResponseOutput') },
    },
  },
  V1Request: { type: 'object', properties: { instances: { type: 'array', items: {} }, inputs: { oneOf: [{ type: 'array', items: {} }, { type: 'object' }] } } },
  V1Response: { type: 'object', properties: { predictions: { type: 'array', items: {} } } },
  RepositoryEntry: { type: 'object', properties: { name: { type: 'string' }, version: { type: 'string' }, state: { type: 'string' }, reason: { type: 'string' } } },
  // Triton's documents (protocols/triton-documents.ts); their full field lists are Triton's model_config.proto and grpc_service.proto.
  ModelConfig: {
    type: 'object',
    description: "Triton's ModelConfig as JSON: the fields kserve-ts acts on",
    properties: {
      name: { type: 'string' },
      platform: { type: 'string' },
      backend: { type: 'string' },
      version_policy: { type: 'object' },
      max_batch_size: { type: 'integer' },
      input: { type: 'array', items: ref('ModelTensorConfig') },
      output: { type: 'array', items: ref('ModelTensorConfig') },
      dynamic_batching: { type: 'object' },
      instance_group: { type: 'array', items: { type: 'object' } },
      parameters: { type: 'object' },
    },
  },
  ModelTensorConfig: {
    type: 'object',
    properties: { name: { type: 'string' }, data_type: { type: 'string', example: 'TYPE_FP32' }, dims: { type: 'array', items: { type: 'integer' } } },
  },
  ModelStatistics: {
    type: 'object',
    description: "Triton's ModelStatisticsResponse as JSON: one entry per loaded version",
    properties: { model_stats: { type: 'array', items: { type: 'object' } } },
  },
};
