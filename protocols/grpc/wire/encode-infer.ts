/**
 * ModelInferResponse (server side) and ModelInferRequest (the transformer's predictor
 * client, the benchmark's load generator) to the wire: sized first, then written into one
 * Buffer; raw tensors are copied into it once.
 */
import type { InferInputTensorMessage, ModelInferRequestMessage, ModelInferResponseMessage } from '../messages.js';
import { parametersSize, requestedOutputSize, tensorSize, writeParameters, writeRequestedOutput, writeTensor } from './encode-tensor.js';
import { SizeTable, WireWriter, delimitedSize } from './writer.js';

interface Common {
  model_name?: string;
  model_version?: string;
  id?: string;
}

function headerSize(m: Common, t: SizeTable): number {
  let n = 0;
  if (m.model_name) n += delimitedSize(t.string(m.model_name));
  if (m.model_version) n += delimitedSize(t.string(m.model_version));
  if (m.id) n += delimitedSize(t.string(m.id));
  return n;
}

function writeHeader(m: Common, w: WireWriter): void {
  if (m.model_name) {
    w.varint(0x0a);
    w.string(m.model_name);
  }
  if (m.model_version) {
    w.varint(0x12);
    w.string(m.model_version);
  }
  if (m.id) {
    w.varint(0x1a);
    w.string(m.id);
  }
}

function nestedSize<T>(items: readonly T[] | undefined, size: (m: T, t: SizeTable) => number, t: SizeTable): number {
  let n = 0;
  for (const m of items ?? []) {
    const slot = t.reserve();
    const s = size(m, t);
    t.lengths[slot] = s;
    n += delimitedSize(s);
  }
  return n;
}

function writeNested<T>(tag: number, items: readonly T[] | undefined, write: (m: T, w: WireWriter) => void, w: WireWriter): void {
  for (const m of items ?? []) {
    w.varint(tag);
    w.varint(w.length());
    write(m, w);
  }
}

function bytesSize(items: readonly Uint8Array[] | undefined): number {
  let n = 0;
  for (const b of items ?? []) n += delimitedSize(b.byteLength);
  return n;
}

function writeBytes(tag: number, items: readonly Uint8Array[] | undefined, w: WireWriter): void {
  for (const b of items ?? []) {
    w.varint(tag);
    w.varint(b.byteLength);
    w.bytes(b);
  }
}

export function encodeModelInferResponse(m: ModelInferResponseMessage): Buffer {
  const t = new SizeTable();
  const size = headerSize(m, t) + parametersSize(m.parameters, t) + nestedSize<InferInputTensorMessage>(m.outputs, tensorSize, t) + bytesSize(m.raw_output_contents);
  const w = new WireWriter(size, t);
  writeHeader(m, w);
  writeParameters(0x22, m.parameters, w);
  writeNested<InferInputTensorMessage>(0x2a, m.outputs, writeTensor, w);
  writeBytes(0x32, m.raw_output_contents, w);
  return w.finish();
}

export function encodeModelInferRequest(m: ModelInferRequestMessage): Buffer {
  const t = new SizeTable();
  const size =
    headerSize(m, t) + parametersSize(m.parameters, t) + nestedSize(m.inputs, tensorSize, t) + nestedSize(m.outputs, requestedOutputSize, t) + bytesSize(m.raw_input_contents);
  const w = new WireWriter(size, t);
  writeHeader(m, w);
  writeParameters(0x22, m.parameters, w);
  writeNested(0x2a, m.inputs, writeTensor, w);
  writeNested(0x32, m.outputs, writeRequestedOutput, w);
  writeBytes(0x3a, m.raw_input_contents, w);
  return w.finish();
}
