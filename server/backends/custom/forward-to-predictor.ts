/**
 * The default `Model.predict` of a transformer: the SDK request as the predictor client's
 * neutral request (the transformer's model name, its id, parameters and requested outputs,
 * the forwarded headers, the client's signal), and the predictor's answer as an SDK
 * InferResponse. The predictor's returned headers (predictor-client/forward-headers.ts) are added to the
 * response headers unless a hook already set them. It is the SDK's side of the hop, so it
 * lives beside the Model; the clients (server/predictor-client/) know tensors only.
 */
import { forwardedHeaders } from '../../predictor-client/forward-headers.js';
import type { PredictorClient } from '../../predictor-client/predictor-client.js';
import { InferResponse, type InferRequest, type RequestHeaders, type ResponseHeaders } from './infer-request.js';
import { InferOutput } from './infer-tensor.js';

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
  return new InferResponse(
    modelName,
    answer.outputs.map((t) => InferOutput.fromTensor(t)),
    { id: answer.id ?? request.id, parameters: answer.parameters },
  );
}
