/**
 * ModelInferRequest (server side) and ModelInferResponse (the transformer's predictor
 * client) from the wire, into the plain objects the gRPC codec consumes (messages.ts).
 * bytes fields (raw_input_contents, raw_output_contents) are views on `buf`, not copies.
 * Throws WireFormatError on a malformed message.
 */
import type { InferOutputTensorMessage, InferRequestedOutputTensorMessage, ModelInferRequestMessage, ModelInferResponseMessage, ParameterMap } from '../messages.js';
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

/** Fields 1-4, numbered alike in ModelInferRequest and ModelInferResponse. */
interface InferHeader {
  model_name: string;
  model_version: string;
  id: string;
  parameters: ParameterMap;
}

/** Reads `field` into `h` when it is one of the shared fields 1-4; false for any other. */
function readHeaderField(r: WireReader, field: number, wire: number, h: InferHeader): boolean {
  switch (field) {
    case 1:
      h.model_name = str(r, field, wire);
      return true;
    case 2:
      h.model_version = str(r, field, wire);
      return true;
    case 3:
      h.id = str(r, field, wire);
      return true;
    case 4:
      readParameterEntry(r, field, wire, h.parameters);
      return true;
    default:
      return false;
  }
}

const emptyHeader = (): InferHeader => ({ model_name: '', model_version: '', id: '', parameters: emptyMap() });

export function decodeModelInferRequest(buf: Buffer): Required<ModelInferRequestMessage> {
  const r = new WireReader(buf);
  const h = emptyHeader();
  const inputs: InferOutputTensorMessage[] = [];
  const outputs: Required<InferRequestedOutputTensorMessage>[] = [];
  const raw_input_contents: Buffer[] = [];
  while (r.pos < r.end) {
    const t = r.tag();
    const field = t >>> 3;
    const wire = t & 7;
    if (readHeaderField(r, field, wire, h)) continue;
    if (field === 5) inputs.push(nested(r, field, wire, readTensor));
    else if (field === 6) outputs.push(nested(r, field, wire, readRequestedOutput));
    else if (field === 7) raw_input_contents.push(bytes(r, field, wire));
    else r.skip(wire);
  }
  return { ...h, inputs, outputs, raw_input_contents };
}

export function decodeModelInferResponse(buf: Buffer): ModelInferResponseMessage {
  const r = new WireReader(buf);
  const h = emptyHeader();
  const outputs: InferOutputTensorMessage[] = [];
  const raw_output_contents: Buffer[] = [];
  while (r.pos < r.end) {
    const t = r.tag();
    const field = t >>> 3;
    const wire = t & 7;
    if (readHeaderField(r, field, wire, h)) continue;
    if (field === 5) outputs.push(nested(r, field, wire, readTensor));
    else if (field === 6) raw_output_contents.push(bytes(r, field, wire));
    else r.skip(wire);
  }
  return { ...h, outputs, raw_output_contents };
}
