/**
 * Neutral InferResponse -> ModelInferResponse. Outputs are all raw or all typed, because
 * raw_output_contents pairs with `outputs` by index: raw when the request sent raw inputs
 * or when any output's datatype has no typed field (FP16, BF16), typed otherwise.
 * Raw fixed-size outputs are views on the output storage; only serialisation copies them.
 */
import { type DatatypeInfo, datatypeInfo } from '../datatypes.js';
import { errors } from '../errors.js';
import { encodeRawTensor } from '../raw-tensor.js';
import type { InferResponse } from '../tensor.js';
import { encodeContents } from './contents.js';
import type { InferOutputTensorMessage, ModelInferResponseMessage } from './messages.js';
import { encodeGrpcParameters } from './parameters.js';

export function encodeGrpcInferResponse(response: InferResponse, rawInputs: boolean): ModelInferResponseMessage {
  const infos = response.outputs.map((o): DatatypeInfo => {
    const info = datatypeInfo(o.datatype);
    if (info === undefined) throw errors.internal(`output '${o.name}' has unknown datatype ${o.datatype}`);
    return info;
  });
  const raw = rawInputs || infos.some((i) => i.grpcField === undefined);
  const rawBytes = raw ? response.outputs.map((o) => encodeRawTensor(o.data)) : [];
  const outputs = response.outputs.map((o, i): InferOutputTensorMessage => {
    // Raw outputs state their size in `binary_data_size`, as the anchor's server does.
    const parameters = raw ? { ...o.parameters, binary_data_size: (rawBytes[i] as Uint8Array).byteLength } : o.parameters;
    const out: InferOutputTensorMessage = {
      name: o.name,
      datatype: o.datatype,
      shape: [...o.shape],
      parameters: encodeGrpcParameters(parameters),
    };
    if (!raw) out.contents = encodeContents(infos[i] as DatatypeInfo, o.data);
    return out;
  });
  return {
    model_name: response.modelName,
    model_version: response.modelVersion ?? '',
    id: response.id ?? '',
    parameters: encodeGrpcParameters(response.parameters),
    outputs,
    raw_output_contents: rawBytes.map((bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)),
  };
}
