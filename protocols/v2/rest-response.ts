/**
 * V2 REST response encoding, JSON or with the binary tensor data extension.
 *
 * Which outputs go binary: the request's `parameters.binary_data_output`, overridden per
 * output by `outputs[i].parameters.binary_data`. Layout and field order follow the anchor:
 * a pure JSON response carries explicit nulls (`model_version`, `id`, `parameters`); a
 * response with binary outputs uses the compact order `id, model_name, model_version,
 * outputs[, parameters]` and omits empty per-output parameters.
 */
import { encodeJsonData } from '../json/json-data.js';
import { encodeParameters, isEmpty } from '../parameters.js';
import { encodeRawTensor, rawByteLength } from '../raw-tensor.js';
import type { InferRequest, InferResponse, Parameters, Tensor } from '../tensor.js';

export interface EncodedRestResponse {
  /** Full body: JSON text, or JSON header followed by raw output tensors. */
  readonly body: Buffer;
  /** Set when the body carries binary outputs: the byte length of the JSON header. */
  readonly headerLength: number | undefined;
}

function wantsBinary(request: InferRequest, output: Tensor): boolean {
  const requested = request.outputs?.find((o) => o.name === output.name);
  const perOutput = requested?.parameters?.['binary_data'];
  if (typeof perOutput === 'boolean') return perOutput;
  return request.parameters?.['binary_data_output'] === true;
}

const str = (s: string | undefined): string => (s === undefined ? 'null' : JSON.stringify(s));

function shapeJson(shape: readonly number[]): string {
  return `[${shape.join(',')}]`;
}

export function encodeRestInferResponse(response: InferResponse, request: InferRequest): EncodedRestResponse {
  const binaryFlags = response.outputs.map((o) => wantsBinary(request, o));
  if (!binaryFlags.includes(true)) {
    let s = `{"model_name":${str(response.modelName)},"model_version":${str(response.modelVersion)},"id":${str(response.id)},"parameters":${isEmpty(response.parameters) ? 'null' : encodeParameters(response.parameters)},"outputs":[`;
    response.outputs.forEach((o, i) => {
      if (i > 0) s += ',';
      s += `{"name":${JSON.stringify(o.name)},"shape":${shapeJson(o.shape)},"datatype":"${o.datatype}","parameters":${isEmpty(o.parameters) ? 'null' : encodeParameters(o.parameters)},"data":${encodeJsonData(o.name, o.datatype, o.data)}}`;
    });
    return { body: Buffer.from(`${s}]}`, 'utf8'), headerLength: undefined };
  }

  const raws: Uint8Array[] = [];
  let s = `{"id":${str(response.id)},"model_name":${str(response.modelName)},"model_version":${str(response.modelVersion)},"outputs":[`;
  response.outputs.forEach((o, i) => {
    if (i > 0) s += ',';
    s += `{"name":${JSON.stringify(o.name)},"shape":${shapeJson(o.shape)},"datatype":"${o.datatype}"`;
    if (binaryFlags[i] === true) {
      const params: Parameters = { ...o.parameters, binary_data_size: rawByteLength(o.data) };
      s += `,"parameters":${encodeParameters(params)}}`;
      raws.push(encodeRawTensor(o.data));
    } else {
      if (!isEmpty(o.parameters)) s += `,"parameters":${encodeParameters(o.parameters)}`;
      s += `,"data":${encodeJsonData(o.name, o.datatype, o.data)}}`;
    }
  });
  s += ']';
  if (!isEmpty(response.parameters)) s += `,"parameters":${encodeParameters(response.parameters)}`;
  s += '}';
  const header = Buffer.from(s, 'utf8');
  return { body: Buffer.concat([header, ...raws]), headerLength: header.byteLength };
}
