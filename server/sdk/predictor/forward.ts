/**
 * The default `Model.predict` of a transformer: the SDK request as the predictor client's
 * neutral request (the transformer's model name, its id, parameters and requested outputs,
 * the forwarded headers, the client's signal), and the predictor's answer as an SDK
 * InferResponse. The predictor's returned headers (forward-headers.ts) are added to the
 * response headers unless a hook already set them.
 */
import type { RequestHeaders, ResponseHeaders } from '../model.js';
import { InferResponse, type InferRequest } from '../infer-request.js';
import { InferOutput } from '../infer-tensor.js';
import { forwardedHeaders } from './forward-headers.js';
import type { PredictorClient } from './predictor-client.js';

export async function forwardToPredictor(
  client: PredictorClient,
  modelName: string,
  request: InferRequest,
  headers: RequestHeaders,
  responseHeaders: ResponseHeaders,
): Promise<InferResponse> {
  const answer = await client.infer({
    modelName,
    id: request.id,
    parameters: request.parameters,
    inputs: request.inputs.map((i) => i.toTensor()),
    outputs: request.requestOutputs,
    headers: forwardedHeaders(headers),
    signal: request.signal,
  });
  for (const [k, v] of Object.entries(answer.headers)) if (!(k in responseHeaders)) responseHeaders[k] = v;
  return new InferResponse(modelName, answer.outputs.map((t) => InferOutput.fromTensor(t)), { id: answer.id ?? request.id, parameters: answer.parameters });
}
