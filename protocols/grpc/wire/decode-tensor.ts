/**
 * The nested messages ModelInferRequest and ModelInferResponse share on the wire: the
 * parameters map, a tensor (InferInputTensor and InferOutputTensor have the same fields and
 * numbers) and InferRequestedOutputTensor. Each reads the reader's current span.
 *
 * Shapes come out as proto-loader gives them with LOADER_OPTIONS (proto.ts): int64 as
 * decimal strings, every field present, `parameter_choice` naming the oneof member set.
 */
import type { InferOutputTensorMessage, InferParameterMessage, InferRequestedOutputTensorMessage, ParameterMap } from '../messages.js';
import { ContentsBuilder } from './decode-contents.js';
import { Wire, type WireReader, int64String, uint64String } from './reader.js';

/** Maps have no prototype, so a key such as `__proto__` is just a key. */
export function emptyMap(): ParameterMap {
  return Object.create(null) as ParameterMap;
}

/** One InferParameter; the last oneof member on the wire wins. */
function readParameter(r: WireReader): InferParameterMessage {
  let out: InferParameterMessage = {};
  while (r.pos < r.end) {
    const t = r.tag();
    const field = t >>> 3;
    const wire = t & 7;
    switch (field) {
      case 1:
        if (wire !== Wire.Varint) r.wrongType(field, wire);
        r.varint64();
        out = { parameter_choice: 'bool_param', bool_param: (r.lo | r.hi) !== 0 };
        break;
      case 2:
        if (wire !== Wire.Varint) r.wrongType(field, wire);
        r.varint64();
        out = { parameter_choice: 'int64_param', int64_param: int64String(r.lo, r.hi) };
        break;
      case 3:
        if (wire !== Wire.Len) r.wrongType(field, wire);
        out = { parameter_choice: 'string_param', string_param: r.string() };
        break;
      case 4:
        if (wire !== Wire.I64) r.wrongType(field, wire);
        out = { parameter_choice: 'double_param', double_param: r.double() };
        break;
      case 5:
        if (wire !== Wire.Varint) r.wrongType(field, wire);
        r.varint64();
        out = { parameter_choice: 'uint64_param', uint64_param: uint64String(r.lo, r.hi) };
        break;
      default:
        r.skip(wire);
    }
  }
  return out;
}

/** A nested message field: checks the wire type, reads its span with `read`. */
export function nested<T>(r: WireReader, field: number, wire: number, read: (r: WireReader) => T): T {
  if (wire !== Wire.Len) r.wrongType(field, wire);
  const outer = r.enter(r.length());
  const v = read(r);
  r.leave(outer);
  return v;
}

/** One `map<string, InferParameter>` entry into `map` (a repeated key: the last wins). */
export function readParameterEntry(r: WireReader, field: number, wire: number, map: ParameterMap): void {
  if (wire !== Wire.Len) r.wrongType(field, wire);
  const outer = r.enter(r.length());
  let key = '';
  let value: InferParameterMessage = {};
  while (r.pos < r.end) {
    const t = r.tag();
    const f = t >>> 3;
    const w = t & 7;
    if (f === 1) {
      if (w !== Wire.Len) r.wrongType(f, w);
      key = r.string();
    } else if (f === 2) {
      // A repeated value merges: a member set in the later occurrence wins.
      const next = nested(r, f, w, readParameter);
      if (next.parameter_choice !== undefined) value = next;
    } else {
      r.skip(w);
    }
  }
  r.leave(outer);
  map[key] = value;
}

function readShape(r: WireReader, wire: number, shape: string[]): void {
  if (wire === Wire.Varint) {
    r.varint64();
    shape.push(int64String(r.lo, r.hi));
  } else if (wire === Wire.Len) {
    const outer = r.enter(r.length());
    while (r.pos < r.end) {
      r.varint64();
      shape.push(int64String(r.lo, r.hi));
    }
    r.leave(outer);
  } else {
    r.wrongType(3, wire);
  }
}

/** An InferInputTensor or InferOutputTensor. */
export function readTensor(r: WireReader): InferOutputTensorMessage {
  let name = '';
  let datatype = '';
  const shape: string[] = [];
  const parameters = emptyMap();
  let contents: ContentsBuilder | undefined;
  while (r.pos < r.end) {
    const t = r.tag();
    const field = t >>> 3;
    const wire = t & 7;
    switch (field) {
      case 1:
        if (wire !== Wire.Len) r.wrongType(field, wire);
        name = r.string();
        break;
      case 2:
        if (wire !== Wire.Len) r.wrongType(field, wire);
        datatype = r.string();
        break;
      case 3:
        readShape(r, wire, shape);
        break;
      case 4:
        readParameterEntry(r, field, wire, parameters);
        break;
      case 5: {
        const builder = (contents ??= new ContentsBuilder());
        nested(r, field, wire, (s) => builder.read(s));
        break;
      }
      default:
        r.skip(wire);
    }
  }
  return { name, datatype, shape, parameters, contents: contents === undefined ? null : contents.finish() };
}

/** An InferRequestedOutputTensor. */
export function readRequestedOutput(r: WireReader): Required<InferRequestedOutputTensorMessage> {
  let name = '';
  const parameters = emptyMap();
  while (r.pos < r.end) {
    const t = r.tag();
    const field = t >>> 3;
    const wire = t & 7;
    if (field === 1) {
      if (wire !== Wire.Len) r.wrongType(field, wire);
      name = r.string();
    } else if (field === 2) {
      readParameterEntry(r, field, wire, parameters);
    } else {
      r.skip(wire);
    }
  }
  return { name, parameters };
}
