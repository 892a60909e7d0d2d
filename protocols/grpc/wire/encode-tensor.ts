/**
 * The nested messages of ModelInferRequest / ModelInferResponse to the wire: parameters
 * map entries, tensors (InferInputTensor and InferOutputTensor share their layout) and
 * requested outputs. Empty strings and empty repeated fields are left out (proto3
 * defaults); a oneof member is written even when it holds its default, since it is set.
 */
import type { InferInputTensorMessage, InferParameterMessage, InferRequestedOutputTensorMessage, Int64, ParameterMap } from '../messages.js';
import { contentsSize, writeContents } from './encode-contents.js';
import type { SizeTable, WireWriter } from './writer.js';
import { delimitedSize, split, splitInt64, varint64Size } from './writer.js';

type Member = NonNullable<InferParameterMessage['parameter_choice']>;

const set = (v: unknown): boolean => v !== undefined && v !== null;

/** The member to write: the one `parameter_choice` names, else the first one set. */
function member(p: InferParameterMessage): Member | undefined {
  if (p.parameter_choice !== undefined) return p.parameter_choice;
  if (set(p.bool_param)) return 'bool_param';
  if (set(p.int64_param)) return 'int64_param';
  if (set(p.string_param)) return 'string_param';
  if (set(p.double_param)) return 'double_param';
  if (set(p.uint64_param)) return 'uint64_param';
  return undefined;
}

function parameterSize(p: InferParameterMessage, t: SizeTable): number {
  switch (member(p)) {
    case 'bool_param':
      return 2;
    case 'int64_param':
      splitInt64(p.int64_param ?? 0);
      return 1 + varint64Size(split.lo, split.hi);
    case 'uint64_param':
      splitInt64(p.uint64_param ?? 0);
      return 1 + varint64Size(split.lo, split.hi);
    case 'string_param':
      return delimitedSize(t.string(p.string_param ?? ''));
    case 'double_param':
      return 9;
    default:
      return 0;
  }
}

function writeParameter(p: InferParameterMessage, w: WireWriter): void {
  switch (member(p)) {
    case 'bool_param':
      w.varint(0x08);
      w.varint(p.bool_param === true ? 1 : 0);
      return;
    case 'int64_param':
      w.varint(0x10);
      splitInt64(p.int64_param ?? 0);
      w.varint64(split.lo, split.hi);
      return;
    case 'uint64_param':
      w.varint(0x28);
      splitInt64(p.uint64_param ?? 0);
      w.varint64(split.lo, split.hi);
      return;
    case 'string_param':
      w.varint(0x1a);
      w.string(p.string_param ?? '');
      return;
    case 'double_param':
      w.varint(0x21);
      w.buf.writeDoubleLE(p.double_param ?? 0, w.pos);
      w.pos += 8;
      return;
    default:
  }
}

/** Size of every entry of `map`, each with its tag and length. */
export function parametersSize(map: ParameterMap | undefined, t: SizeTable): number {
  if (map === undefined || map === null) return 0;
  let total = 0;
  for (const key of Object.keys(map)) {
    const entry = t.reserve();
    const value = t.reserve();
    // Visiting order of the write pass: entry, value, key, then the value's own string.
    const k = t.string(key);
    const v = parameterSize(map[key] as InferParameterMessage, t);
    t.lengths[value] = v;
    const n = delimitedSize(k) + delimitedSize(v);
    t.lengths[entry] = n;
    total += delimitedSize(n);
  }
  return total;
}

export function writeParameters(tag: number, map: ParameterMap | undefined, w: WireWriter): void {
  if (map === undefined || map === null) return;
  for (const key of Object.keys(map)) {
    w.varint(tag);
    w.varint(w.length());
    const value = w.length();
    w.varint(0x0a);
    w.string(key);
    w.varint(0x12);
    w.varint(value);
    writeParameter(map[key] as InferParameterMessage, w);
  }
}

function shapeSize(shape: readonly Int64[]): number {
  let n = 0;
  for (const d of shape) {
    splitInt64(d);
    n += varint64Size(split.lo, split.hi);
  }
  return n;
}

/** Size of a tensor message (without its own tag and length). */
export function tensorSize(m: InferInputTensorMessage, t: SizeTable): number {
  let n = 0;
  if (m.name) n += delimitedSize(t.string(m.name));
  if (m.datatype) n += delimitedSize(t.string(m.datatype));
  if (m.shape !== undefined && m.shape.length > 0) {
    const s = shapeSize(m.shape);
    t.lengths.push(s);
    n += delimitedSize(s);
  }
  n += parametersSize(m.parameters, t);
  if (m.contents !== undefined && m.contents !== null) {
    const slot = t.reserve();
    const c = contentsSize(m.contents, t);
    t.lengths[slot] = c;
    n += delimitedSize(c);
  }
  return n;
}

export function writeTensor(m: InferInputTensorMessage, w: WireWriter): void {
  if (m.name) {
    w.varint(0x0a);
    w.string(m.name);
  }
  if (m.datatype) {
    w.varint(0x12);
    w.string(m.datatype);
  }
  if (m.shape !== undefined && m.shape.length > 0) {
    w.varint(0x1a);
    w.varint(w.length());
    for (const d of m.shape) {
      splitInt64(d);
      w.varint64(split.lo, split.hi);
    }
  }
  writeParameters(0x22, m.parameters, w);
  if (m.contents !== undefined && m.contents !== null) {
    w.varint(0x2a);
    w.varint(w.length());
    writeContents(m.contents, w);
  }
}

export function requestedOutputSize(m: InferRequestedOutputTensorMessage, t: SizeTable): number {
  return (m.name ? delimitedSize(t.string(m.name)) : 0) + parametersSize(m.parameters, t);
}

export function writeRequestedOutput(m: InferRequestedOutputTensorMessage, w: WireWriter): void {
  if (m.name) {
    w.varint(0x0a);
    w.string(m.name);
  }
  writeParameters(0x12, m.parameters, w);
}
