/**
 * V1 REST to the predictor (`--predictor_protocol v1`, KServe's default): POST
 * /v1/models/{name}:predict with `{"instances": ...}`, the one input's rows as nested lists
 * (V1 carries no tensor metadata; half precision goes as JSON numbers). The answer's
 * `predictions` come back as one output named `predictions`: BYTES for strings, BOOL, else
 * FP64 (JSON numbers are doubles, nothing is lost), its shape the nesting of the lists.
 * Readiness: GET / (KServe's V1 liveness route, which its health check uses).
 */
import { datatypeInfo } from '../../protocols/datatypes.js';
import { errors } from '../../protocols/errors.js';
import { floatsFromHalf } from '../../protocols/half-float.js';
import { decodeJsonData, encodeJsonNested } from '../../protocols/json/json-data.js';
import { nestedShape } from '../../protocols/json/json-values.js';
import type { Tensor } from '../../protocols/tensor.js';
import { returnedHeaders } from './forward-headers.js';
import { HttpForwarder } from './http-forwarder.js';
import type { ForwardRequest, ForwardResponse, PredictorClient } from './predictor-client.js';
import type { PredictorConfig } from './predictor-config.js';

function nested(t: Tensor): string {
  if (t.datatype === 'FP16' || t.datatype === 'BF16') return encodeJsonNested(t.name, 'FP32', t.shape, floatsFromHalf(t.datatype, t.data as Uint16Array));
  return encodeJsonNested(t.name, t.datatype, t.shape, t.data);
}

function firstLeaf(value: unknown): unknown {
  let v = value;
  while (Array.isArray(v)) v = v[0];
  return v;
}

function predictionsTensor(target: string, predictions: unknown[]): Tensor {
  const leaf = firstLeaf(predictions);
  const datatype = typeof leaf === 'string' ? 'BYTES' : typeof leaf === 'boolean' ? 'BOOL' : 'FP64';
  const info = datatypeInfo(datatype);
  if (info === undefined) throw errors.internal(`no datatype ${datatype}`);
  try {
    const shape = nestedShape(predictions);
    return { name: 'predictions', datatype, shape, data: decodeJsonData('predictions', info, shape, predictions) };
  } catch (err) {
    throw errors.predictorError(target, `malformed predictions: ${(err as Error).message}`);
  }
}

export function v1Client(config: Required<PredictorConfig>): PredictorClient {
  const http = new HttpForwarder(config);
  return {
    async infer(request: ForwardRequest): Promise<ForwardResponse> {
      const [first, ...more] = request.inputs;
      if (first === undefined) throw errors.invalidInput('a V1 predictor needs one input to send as instances');
      if (more.length > 0) throw errors.invalidInput(`a V1 predictor takes one input; the request has ${request.inputs.length}`);
      const body = Buffer.from(`{"instances":${nested(first)}}`, 'utf8');
      const headers = { ...request.headers, 'content-type': 'application/json' };
      const path = `/v1/models/${encodeURIComponent(request.modelName)}:predict`;
      const answer = await http.send('POST', path, headers, body, request.signal, request.modelName);
      let doc: unknown;
      try {
        doc = JSON.parse(answer.body.toString('utf8'));
      } catch (err) {
        throw errors.predictorError(http.target, `answer is not JSON: ${(err as Error).message}`);
      }
      const predictions = (doc as { predictions?: unknown } | null)?.predictions;
      if (!Array.isArray(predictions)) throw errors.predictorError(http.target, "answer has no 'predictions' list");
      return {
        modelName: request.modelName,
        id: request.id,
        parameters: undefined,
        outputs: [predictionsTensor(http.target, predictions)],
        headers: returnedHeaders(answer.headers),
      };
    },
    ready: () => http.ok('/'),
    close: () => http.close(),
  };
}
