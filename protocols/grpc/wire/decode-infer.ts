/**
 * ModelInferRequest (server side) and ModelInferResponse (the transformer's predictor
 * client) from the wire, into the plain objects the gRPC codec consumes (messages.ts).
 * bytes fields (raw_input_contents, raw_output_contents) are views on `buf`, not copies.
 * Throws WireFormatError on a malformed message.
 */
import type { InferOutputTensorMessage, InferRequestedOutputTensorMessage, ModelInferRequestMessage, ModelInferResponseMessage } from '../messages.js';
import { Wire, WireReader } from './reader.js';
import { emptyMap, nested, readParameterEntry, readRequestedOutput, readTensor } from './decode-tensor.js';

function str(r: WireReader, field: number, wire: number): string {
  if (wire !== Wire.Len) r.wrongType(field, wire);
  return r.string();
}

function bytes(r: WireReader, field: number, wire: number): Buffer {
  if (wire !== Wire.Len) r.wrongType(field, wire);
  return r.bytes();
}

export function decodeModelInferRequest(buf: Buffer): Required<ModelInferRequestMessage> {
  const r = new WireReader(buf);
  let model_name = '';
  let model_version = '';
  let id = '';
  const parameters = emptyMap();
  const inputs: InferOutputTensorMessage[] = [];
  const outputs: Required<InferRequestedOutputTensorMessage>[] = [];
  const raw_input_contents: Buffer[] = [];
  while (r.pos < r.end) {
    const t = r.tag();
    const field = t >>> 3;
    const wire = t & 7;
    switch (field) {
      case 1:
        model_name = str(r, field, wire);
        break;
      case 2:
        model_version = str(r, field, wire);
        break;
      case 3:
        id = str(r, field, wire);
        break;
      case 4:
        readParameterEntry(r, field, wire, parameters);
        break;
      case 5:
        inputs.push(nested(r, field, wire, readTensor));
        break;
      case 6:
        outputs.push(nested(r, field, wire, readRequestedOutput));
        break;
      case 7:
        raw_input_contents.push(bytes(r, field, wire));
        break;
      default:
        r.skip(wire);
    }
  }
  return { model_name, model_version, id, parameters, inputs, outputs, raw_input_contents };
}

export function decodeModelInferResponse(buf: Buffer): ModelInferResponseMessage {
  const r = new WireReader(buf);
  let model_name = '';
  let model_version = '';
  let id = '';
  const parameters = emptyMap();
  const outputs: InferOutputTensorMessage[] = [];
  const raw_output_contents: Buffer[] = [];
  while (r.pos < r.end) {
    const t = r.tag();
    const field = t >>> 3;
    const wire = t & 7;
    switch (field) {
      case 1:
        model_name = str(r, field, wire);
        break;
      case 2:
        model_version = str(r, field, wire);
        break;
      case 3:
        id = str(r, field, wire);
        break;
      case 4:
        readParameterEntry(r, field, wire, parameters);
        break;
      case 5:
        outputs.push(nested(r, field, wire, readTensor));
        break;
      case 6:
        raw_output_contents.push(bytes(r, field, wire));
        break;
      default:
        r.skip(wire);
    }
  }
  return { model_name, model_version, id, parameters, outputs, raw_output_contents };
}
