/** OpenAPI 3 description of the REST API (V1, V2 / Open Inference Protocol, repository). */

const json = (schema: object) => ({ 'application/json': { schema } });
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const ok = (schema: object, description = 'OK') => ({ description, content: json(schema) });
const err = (description: string) => ({ description, content: json(ref('Error')) });

const nameParam = { name: 'name', in: 'path', required: true, schema: { type: 'string' } };
const versionParam = { name: 'version', in: 'path', required: true, schema: { type: 'string' } };

const modelErrors = { '404': err('Unknown model or version'), '503': err('Model not ready') };
const inferErrors = { '400': err('Invalid request'), ...modelErrors, '413': err('Body too large'), '500': err('Inference failed') };

const inferOperation = (summary: string, params: object[]) => ({
  summary,
  parameters: [
    ...params,
    {
      name: 'Inference-Header-Content-Length',
      in: 'header',
      required: false,
      description: 'Binary tensor data extension: byte length of the JSON part of the body',
      schema: { type: 'integer' },
    },
  ],
  requestBody: {
    required: true,
    content: {
      ...json(ref('InferenceRequest')),
      'application/octet-stream': { schema: { type: 'string', format: 'binary' } },
    },
  },
  responses: {
    '200': {
      description: 'Inference result; binary outputs follow the JSON header when requested',
      content: { ...json(ref('InferenceResponse')), 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
    },
    ...inferErrors,
  },
});

export function openApiDocument(version: string): object {
  return {
    openapi: '3.0.3',
    info: {
      title: 'kserve-ts model server',
      version,
      description: 'KServe V1 and V2 (Open Inference Protocol) inference APIs with the binary tensor data and model repository extensions.',
    },
    paths: {
      '/': { get: { summary: 'Liveness (V1)', responses: { '200': ok({ type: 'object', properties: { status: { type: 'string' } } }) } } },
      '/metrics': { get: { summary: 'Prometheus metrics', responses: { '200': { description: 'text exposition format' } } } },
      '/v1/models': { get: { summary: 'List models', responses: { '200': ok(ref('ModelList')) } } },
      '/v1/models/{name}': {
        get: { summary: 'Model readiness (V1)', parameters: [nameParam], responses: { '200': ok(ref('ModelReady')), ...modelErrors } },
      },
      '/v1/models/{name}:predict': {
        post: {
          summary: 'Predict (V1)',
          parameters: [nameParam],
          requestBody: { required: true, content: json(ref('V1Request')) },
          responses: { '200': ok(ref('V1Response')), ...inferErrors },
        },
      },
      '/v1/models/{name}:explain': {
        post: { summary: 'Explain (V1)', parameters: [nameParam], responses: { '501': err('The model does not support explain'), ...modelErrors } },
      },
      '/v2': { get: { summary: 'Server metadata', responses: { '200': ok(ref('ServerMetadata')) } } },
      '/v2/health/live': { get: { summary: 'Server liveness', responses: { '200': ok({ type: 'object', properties: { live: { type: 'boolean' } } }) } } },
      '/v2/health/ready': {
        get: {
          summary: 'Server readiness: every model the server started with is ready',
          responses: { '200': ok({ type: 'object', properties: { ready: { type: 'boolean' } } }), '503': err('Not ready') },
        },
      },
      '/v2/models': { get: { summary: 'List models', responses: { '200': ok(ref('ModelList')) } } },
      '/v2/models/{name}': { get: { summary: 'Model metadata', parameters: [nameParam], responses: { '200': ok(ref('ModelMetadata')), ...modelErrors } } },
      '/v2/models/{name}/versions/{version}': {
        get: { summary: 'Model version metadata', parameters: [nameParam, versionParam], responses: { '200': ok(ref('ModelMetadata')), ...modelErrors } },
      },
      '/v2/models/{name}/ready': { get: { summary: 'Model readiness', parameters: [nameParam], responses: { '200': ok(ref('ModelReady')), ...modelErrors } } },
      '/v2/models/{name}/versions/{version}/ready': {
        get: { summary: 'Model version readiness', parameters: [nameParam, versionParam], responses: { '200': ok(ref('ModelReady')), ...modelErrors } },
      },
      '/v2/models/{name}/infer': { post: inferOperation('Inference', [nameParam]) },
      '/v2/models/{name}/versions/{version}/infer': { post: inferOperation('Inference on a model version', [nameParam, versionParam]) },
      '/v2/repository/index': { post: { summary: 'Repository index (Triton)', responses: { '200': ok({ type: 'array', items: ref('RepositoryEntry') }) } } },
      '/v2/repository/models/{name}/load': {
        post: {
          summary: 'Load or reload a model',
          parameters: [nameParam],
          responses: { '200': ok({ type: 'object', properties: { name: { type: 'string' }, load: { type: 'boolean' } } }), ...modelErrors },
        },
      },
      '/v2/repository/models/{name}/unload': {
        post: {
          summary: 'Unload a model',
          parameters: [nameParam],
          responses: { '200': ok({ type: 'object', properties: { name: { type: 'string' }, unload: { type: 'boolean' } } }), '404': err('Unknown model') },
        },
      },
    },
    components: {
      schemas: {
        Error: { type: 'object', required: ['error'], properties: { error: { type: 'string' } } },
        ModelList: { type: 'object', properties: { models: { type: 'array', items: { type: 'string' } } } },
        ModelReady: { type: 'object', properties: { name: { type: 'string' }, ready: { type: 'boolean' } } },
        ServerMetadata: {
          type: 'object',
          properties: { name: { type: 'string' }, version: { type: 'string' }, extensions: { type: 'array', items: { type: 'string' } } },
        },
        TensorMetadata: {
          type: 'object',
          properties: { name: { type: 'string' }, datatype: { type: 'string' }, shape: { type: 'array', items: { type: 'integer' } } },
        },
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
        Parameters: { type: 'object', additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] } },
        RequestInput: {
          type: 'object',
          required: ['name', 'shape', 'datatype'],
          properties: {
            name: { type: 'string' },
            shape: { type: 'array', items: { type: 'integer' } },
            datatype: { type: 'string', enum: ['BOOL', 'UINT8', 'UINT16', 'UINT32', 'UINT64', 'INT8', 'INT16', 'INT32', 'INT64', 'FP16', 'BF16', 'FP32', 'FP64', 'BYTES'] },
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
        V1Request: {
          type: 'object',
          properties: { instances: { type: 'array', items: {} }, inputs: { oneOf: [{ type: 'array', items: {} }, { type: 'object' }] } },
        },
        V1Response: { type: 'object', properties: { predictions: { type: 'array', items: {} } } },
        RepositoryEntry: {
          type: 'object',
          properties: { name: { type: 'string' }, version: { type: 'string' }, state: { type: 'string' }, reason: { type: 'string' } },
        },
      },
    },
  };
}
