/**
 * ModelInferRequest -> neutral InferRequest, with the protocol's checks: raw_input_contents
 * has one entry per input or none, no input mixes raw and typed data, raw sizes match
 * shape × datatype (BYTES: well-formed length prefixes), typed counts match the shape.
 * Raw tensors become views on the received message where alignment allows (raw-tensor.ts).
 */
import { errors } from '../errors.js';
import { type DimReader, InputHeaderDecoder } from '../input-header.js';
import { DEFAULT_DECODE_LIMITS, type DecodeLimits, checkListLength } from '../limits.js';
import { decodeRawTensor } from '../raw-tensor.js';
import type { InferRequest, RequestedOutput, Tensor } from '../tensor.js';
import { decodeContents, hasTypedContents } from './contents.js';
import type { ModelInferRequestMessage } from './messages.js';
import { decodeGrpcParameters } from './parameters.js';

export interface DecodedGrpcInferRequest {
  readonly modelName: string;
  /** undefined when the request left model_version empty (the default version). */
  readonly modelVersion: string | undefined;
  readonly request: InferRequest;
  /** The request sent raw_input_contents, so the response answers with raw outputs. */
  readonly rawInputs: boolean;
}

/** int64 dimensions arrive as decimal strings (proto.ts: `longs: String`). */
const INT64_DIM: DimReader = {
  read: (d) => (typeof d === 'string' && d.trim() !== '' ? Number(d) : typeof d === 'number' ? d : Number.NaN),
  show: (d) => String(d),
};

export function decodeGrpcInferRequest(msg: ModelInferRequestMessage, limits: DecodeLimits = DEFAULT_DECODE_LIMITS): DecodedGrpcInferRequest {
  const inputs = msg.inputs ?? [];
  checkListLength(inputs.length, 'inputs', limits.maxInputs);
  checkListLength(msg.outputs?.length ?? 0, 'outputs', limits.maxOutputs);
  const raw = msg.raw_input_contents ?? [];
  const rawInputs = raw.length > 0;
  if (rawInputs && raw.length !== inputs.length) {
    throw errors.invalidInput(`raw_input_contents has ${raw.length} entries but the request has ${inputs.length} inputs; send one entry per input, in the order of 'inputs'`);
  }
  const headers = new InputHeaderDecoder(INT64_DIM, limits);
  const tensors = inputs.map((inp, i): Tensor => {
    const { name, where, info, shape, count } = headers.decode(i, inp.name ?? '', inp.datatype ?? '', inp.shape ?? []);
    const parameters = decodeGrpcParameters(inp.parameters, where);
    let data;
    if (rawInputs) {
      if (hasTypedContents(inp.contents)) {
        throw errors.invalidInput(`${where} sets contents although the request uses raw_input_contents; use raw_input_contents or contents for all inputs, not both`);
      }
      data = decodeRawTensor(name, info, shape, raw[i] as Uint8Array);
    } else {
      data = decodeContents(name, info, shape, count, inp.contents);
    }
    return { name, datatype: info.name, shape, data, parameters };
  });
  const outputs = (msg.outputs ?? []).map((o, i): RequestedOutput => {
    const name = o.name ?? '';
    if (name === '') throw errors.invalidInput(`outputs[${i}]: 'name' must not be empty`);
    return { name, parameters: decodeGrpcParameters(o.parameters, `output '${name}'`) };
  });
  const version = msg.model_version ?? '';
  return {
    modelName: msg.model_name ?? '',
    modelVersion: version === '' ? undefined : version,
    request: {
      id: msg.id ? msg.id : undefined,
      parameters: decodeGrpcParameters(msg.parameters, 'request'),
      inputs: tensors,
      outputs: outputs.length > 0 ? outputs : undefined,
    },
    rawInputs,
  };
}
