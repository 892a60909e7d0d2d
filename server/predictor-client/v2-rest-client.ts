/**
 * V2 REST to the predictor (`--predictor_protocol v2`): POST /v2/models/{name}/infer with
 * a JSON body, as KServe's transformer sends it. Tensor data goes through the V2 JSON data
 * codec (protocols/json/json-data.ts) both ways; the answer's outputs are checked as the server
 * checks inputs (names, datatypes, shapes, element counts), a malformed answer being
 * PredictorError. Readiness: GET /v2/health/ready.
 */
import { errors } from '../../protocols/errors.js';
import { InputHeaderDecoder } from '../../protocols/input-header.js';
import { decodeJsonData, encodeJsonData } from '../../protocols/json/json-data.js';
import { encodeParameters, isEmpty, parseParameters } from '../../protocols/parameters.js';
import type { Tensor } from '../../protocols/tensor.js';
import { returnedHeaders } from './forward-headers.js';
import { HttpForwarder } from './http-forwarder.js';
import type { ForwardRequest, ForwardResponse, PredictorClient } from './predictor-client.js';
import type { PredictorConfig } from './predictor-config.js';

function requestBody(request: ForwardRequest): Buffer {
  let s = '{';
  if (request.id !== undefined) s += `"id":${JSON.stringify(request.id)},`;
  if (!isEmpty(request.parameters)) s += `"parameters":${encodeParameters(request.parameters)},`;
  s += '"inputs":[';
  request.inputs.forEach((t, i) => {
    if (i > 0) s += ',';
    s += `{"name":${JSON.stringify(t.name)},"shape":[${t.shape.join(',')}],"datatype":"${t.datatype}"`;
    if (!isEmpty(t.parameters)) s += `,"parameters":${encodeParameters(t.parameters)}`;
    s += `,"data":${encodeJsonData(t.name, t.datatype, t.data)}}`;
  });
  s += ']';
  if (request.outputs.length > 0) {
    s += `,"outputs":[${request.outputs.map((o) => `{"name":${JSON.stringify(o.name)}${isEmpty(o.parameters) ? '' : `,"parameters":${encodeParameters(o.parameters)}`}}`).join(',')}]`;
  }
  return Buffer.from(`${s}}`, 'utf8');
}

/** The predictor's V2 JSON answer as neutral outputs. */
export function decodeV2Answer(target: string, modelName: string, body: Buffer): Omit<ForwardResponse, 'headers'> {
  let doc: unknown;
  try {
    doc = JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw errors.predictorError(target, `answer is not JSON: ${(err as Error).message}`);
  }
  const obj = (typeof doc === 'object' && doc !== null ? doc : {}) as Record<string, unknown>;
  const raw = obj['outputs'];
  if (!Array.isArray(raw)) throw errors.predictorError(target, "answer has no 'outputs' list");
  try {
    const headers = new InputHeaderDecoder();
    const outputs = raw.map((o: unknown, i): Tensor => {
      const out = (typeof o === 'object' && o !== null ? o : {}) as Record<string, unknown>;
      const { name, where, info, shape, count } = headers.decode(i, out['name'], out['datatype'], out['shape']);
      return { name, datatype: info.name, shape, data: decodeJsonData(name, info, shape, out['data'], count), parameters: parseParameters(out['parameters'], where) };
    });
    return {
      modelName: typeof obj['model_name'] === 'string' ? obj['model_name'] : modelName,
      id: typeof obj['id'] === 'string' ? obj['id'] : undefined,
      parameters: parseParameters(obj['parameters'], 'response'),
      outputs,
    };
  } catch (err) {
    throw errors.predictorError(target, `malformed answer: ${(err as Error).message}`);
  }
}

export function v2RestClient(config: Required<PredictorConfig>): PredictorClient {
  const http = new HttpForwarder(config);
  return {
    async infer(request: ForwardRequest): Promise<ForwardResponse> {
      const headers = { ...request.headers, 'content-type': 'application/json' };
      const path = `/v2/models/${encodeURIComponent(request.modelName)}/infer`;
      const answer = await http.send('POST', path, headers, requestBody(request), request.signal, request.modelName);
      return { ...decodeV2Answer(http.target, request.modelName, answer.body), headers: returnedHeaders(answer.headers) };
    },
    ready: () => http.ok('/v2/health/ready'),
    close: () => http.close(),
  };
}
