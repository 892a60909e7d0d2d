/**
 * TF Serving's PredictionLog (tensorflow_serving/apis/prediction_log.proto), the message
 * each warm-up record holds, decoded down to what a warm-up runs: the PredictRequest of a
 * `predict_log` (model_spec's signature_name, the inputs map of TensorProtos, output_filter).
 * The other log types are named, not decoded. Field numbers:
 *   PredictionLog { log_metadata 1; oneof log_type { classify_log 2; regress_log 3;
 *                   predict_log 6; multi_inference_log 4; session_run_log 5 } }
 *   PredictLog { request 1; response 2 }
 *   PredictRequest { model_spec 1; map<string, TensorProto> inputs 2; repeated string output_filter 3 }
 *   ModelSpec { name 1; version 2; signature_name 3; version_label 4 }
 */
import { Wire, WireReader } from '../grpc/wire/reader.js';
import type { Tensor } from '../tensor.js';
import { readTensorProto } from './tensor-proto.js';

export type LogType = 'classify_log' | 'regress_log' | 'predict_log' | 'multi_inference_log' | 'session_run_log';

const LOG_TYPES: ReadonlyMap<number, LogType> = new Map<number, LogType>([
  [2, 'classify_log'],
  [3, 'regress_log'],
  [4, 'multi_inference_log'],
  [5, 'session_run_log'],
  [6, 'predict_log'],
]);

export interface PredictRequestMessage {
  /** model_spec.signature_name; '' for the default signature. */
  readonly signatureName: string;
  /** The inputs map in wire order; a key given twice keeps its last value, as protobuf maps do. */
  readonly inputs: readonly Tensor[];
  readonly outputFilter: readonly string[];
}

export type PredictionLogMessage = { readonly logType: 'predict_log'; readonly request: PredictRequestMessage } | { readonly logType: Exclude<LogType, 'predict_log'> | undefined };

/** Reads the fields of the reader's current span, calling `on` for each; skips the rest. */
function fields(r: WireReader, on: (field: number, wire: number) => boolean): void {
  while (r.pos < r.end) {
    const t = r.tag();
    if (!on(t >>> 3, t & 7)) r.skip(t & 7);
  }
}

function nested<T>(r: WireReader, read: () => T): T {
  const outer = r.enter(r.length());
  const v = read();
  r.leave(outer);
  return v;
}

function readSignatureName(r: WireReader): string {
  let name = '';
  fields(r, (field, wire) => field === 3 && wire === Wire.Len && ((name = r.string()), true));
  return name;
}

function readRequest(r: WireReader, maxElements: number): PredictRequestMessage {
  let signatureName = '';
  const inputs = new Map<string, Tensor>();
  const outputFilter: string[] = [];
  fields(r, (field, wire) => {
    if (wire !== Wire.Len) return false;
    if (field === 1) signatureName = nested(r, () => readSignatureName(r));
    else if (field === 3) outputFilter.push(r.string());
    else if (field === 2) {
      nested(r, () => {
        let key = '';
        let value: Buffer | undefined;
        // The value is decoded once the key is known (a map entry may put it first).
        fields(r, (f, w) => w === Wire.Len && (f === 1 ? ((key = r.string()), true) : f === 2 ? ((value = r.bytes()), true) : false));
        const tr = new WireReader(value ?? Buffer.alloc(0));
        inputs.delete(key);
        inputs.set(key, readTensorProto(tr, key, maxElements));
      });
    } else return false;
    return true;
  });
  return { signatureName, inputs: [...inputs.values()], outputFilter };
}

/**
 * Decodes one serialized PredictionLog. `maxElements` bounds each input's declared shape.
 * Malformed protobuf throws WireFormatError; a tensor that cannot be read throws an Error
 * naming the input.
 */
export function decodePredictionLog(bytes: Buffer, maxElements: number): PredictionLogMessage {
  const r = new WireReader(bytes);
  let log: PredictionLogMessage = { logType: undefined };
  fields(r, (field, wire) => {
    const logType = LOG_TYPES.get(field);
    if (logType === undefined || wire !== Wire.Len) return false;
    // A oneof: the last member on the wire wins.
    if (logType !== 'predict_log') {
      r.bytes();
      log = { logType };
      return true;
    }
    let request: PredictRequestMessage = { signatureName: '', inputs: [], outputFilter: [] };
    nested(r, () => fields(r, (f, w) => f === 1 && w === Wire.Len && ((request = nested(r, () => readRequest(r, maxElements))), true)));
    log = { logType, request };
    return true;
  });
  return log;
}
