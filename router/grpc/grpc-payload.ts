/**
 * What travels through a graph over gRPC: ModelInfer messages as the wire codec decodes
 * them (protocols/grpc/wire), raw_input_contents / raw_output_contents kept as the bytes
 * received, never decoded to tensors on the way through. A step's answer is its response,
 * or its error status; `$response` turns a response into the next step's request
 * (outputs become inputs, raw contents stay raw). Conditions read the payload as the V2
 * REST JSON a REST step would have seen (decoded only for that).
 */
import { encodeJsonData } from '../../protocols/json/json-data.js';
import { encodeParameters, isEmpty } from '../../protocols/parameters.js';
import { decodeGrpcInferRequest } from '../../protocols/grpc/infer-request.js';
import type { ModelInferRequestMessage, ModelInferResponseMessage } from '../../protocols/grpc/messages.js';
import { encodeRestInferResponse } from '../../protocols/v2/rest-response.js';
import type { InferRequest, Tensor } from '../../protocols/tensor.js';
import { toBytes } from '../gjson/index.js';

export type GrpcPayload =
  | { readonly kind: 'request'; readonly msg: ModelInferRequestMessage }
  | { readonly kind: 'response'; readonly msg: ModelInferResponseMessage }
  | { readonly kind: 'error'; readonly code: number; readonly details: string };

/** A response as the next step's request: its outputs as inputs, raw contents as they came. */
export function responseAsRequest(msg: ModelInferResponseMessage): ModelInferRequestMessage {
  return {
    model_name: msg.model_name,
    model_version: msg.model_version,
    id: msg.id,
    parameters: msg.parameters,
    inputs: msg.outputs,
    outputs: [],
    raw_input_contents: msg.raw_output_contents,
  };
}

/** A response's outputs as neutral tensors (views on raw contents), for merging and conditions. */
export function responseTensors(msg: ModelInferResponseMessage): Tensor[] {
  return [...decodeGrpcInferRequest(responseAsRequest(msg)).request.inputs];
}

function tensorJson(t: Tensor): string {
  const params = isEmpty(t.parameters) ? 'null' : encodeParameters(t.parameters);
  return `{"name":${JSON.stringify(t.name)},"shape":[${t.shape.join(',')}],"datatype":"${t.datatype}","parameters":${params},"data":${encodeJsonData(t.name, t.datatype, t.data)}}`;
}

function requestJson(modelName: string, r: InferRequest): string {
  const params = isEmpty(r.parameters) ? 'null' : encodeParameters(r.parameters);
  const outputs = (r.outputs ?? []).map((o) => `{"name":${JSON.stringify(o.name)}${isEmpty(o.parameters) ? '' : `,"parameters":${encodeParameters(o.parameters)}`}}`);
  return `{"model_name":${JSON.stringify(modelName)},"id":${r.id === undefined ? 'null' : JSON.stringify(r.id)},"parameters":${params},"inputs":[${r.inputs.map(tensorJson).join(',')}],"outputs":[${outputs.join(',')}]}`;
}

/** The V2 REST JSON of the payload as a byte string, or undefined (an error, or tensors that do not decode). */
export function conditionJson(p: GrpcPayload): string | undefined {
  try {
    if (p.kind === 'request') {
      const decoded = decodeGrpcInferRequest(p.msg);
      return toBytes(requestJson(decoded.modelName, decoded.request));
    }
    if (p.kind === 'response') {
      const outputs = responseTensors(p.msg);
      const body = encodeRestInferResponse(
        { modelName: p.msg.model_name, modelVersion: p.msg.model_version || undefined, id: p.msg.id || undefined, outputs },
        { inputs: [] },
      ).body;
      return body.toString('latin1');
    }
  } catch {
    return undefined;
  }
  return undefined;
}
