/**
 * Writes TF Serving warm-up files for tests, as TensorFlow's Python writes them: PredictionLog
 * messages serialized by protobufjs from the upstream field numbers (not by the decoder under
 * test), framed as TFRecords with CRCs computed by a bitwise CRC32C of its own.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import protobuf from 'protobufjs';

const PROTO = `
syntax = "proto3";
package tensorflow.serving;
message TensorShapeProto { message Dim { int64 size = 1; string name = 2; } repeated Dim dim = 2; bool unknown_rank = 3; }
message TensorProto {
  int32 dtype = 1; TensorShapeProto tensor_shape = 2; int32 version_number = 3; bytes tensor_content = 4;
  repeated int32 half_val = 13; repeated float float_val = 5; repeated double double_val = 6; repeated int32 int_val = 7;
  repeated bytes string_val = 8; repeated int64 int64_val = 10; repeated bool bool_val = 11;
  repeated uint32 uint32_val = 16; repeated uint64 uint64_val = 17;
}
message Int64Value { int64 value = 1; }
message ModelSpec { string name = 1; Int64Value version = 2; string signature_name = 3; string version_label = 4; }
message PredictRequest { ModelSpec model_spec = 1; map<string, TensorProto> inputs = 2; repeated string output_filter = 3; }
message PredictLog { PredictRequest request = 1; bytes response = 2; }
message OtherLog { bytes request = 1; }
message LogMetadata { ModelSpec model_spec = 1; }
message PredictionLog {
  LogMetadata log_metadata = 1;
  oneof log_type { OtherLog classify_log = 2; OtherLog regress_log = 3; PredictLog predict_log = 6; OtherLog multi_inference_log = 4; OtherLog session_run_log = 5; }
}`;

const root = protobuf.parse(PROTO, { keepCase: true }).root;
const PredictionLog = root.lookupType('tensorflow.serving.PredictionLog');

/** A TensorProto as protobufjs takes it: { dtype, tensor_shape: { dim: [{ size }] }, float_val, ... }. */
export type TensorProtoObject = Record<string, unknown>;

export function shape(...dims: number[]): { dim: Array<{ size: number }> } {
  return { dim: dims.map((size) => ({ size })) };
}

export function predictLog(inputs: Record<string, TensorProtoObject>, spec: { signature_name?: string; output_filter?: string[] } = {}): Uint8Array {
  const request = { model_spec: { name: 'm', signature_name: spec.signature_name ?? '' }, inputs, output_filter: spec.output_filter ?? [] };
  return PredictionLog.encode(PredictionLog.fromObject({ log_metadata: { model_spec: { name: 'm' } }, predict_log: { request } })).finish();
}

export function otherLog(type: 'classify_log' | 'regress_log' | 'multi_inference_log' | 'session_run_log'): Uint8Array {
  return PredictionLog.encode(PredictionLog.fromObject({ [type]: { request: Buffer.from([1, 2, 3]) } })).finish();
}

function crc32c(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const b of bytes) {
    crc ^= b;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1;
  }
  return ~crc >>> 0;
}

function masked(bytes: Uint8Array): number {
  const c = crc32c(bytes);
  return (((c >>> 15) | (c << 17)) + 0xa282ead8) >>> 0;
}

/** TFRecord framing of `records`. */
export function tfRecords(records: readonly Uint8Array[]): Buffer {
  return Buffer.concat(
    records.flatMap((data) => {
      const length = Buffer.alloc(8);
      length.writeBigUInt64LE(BigInt(data.length));
      const crcs = Buffer.alloc(8);
      crcs.writeUInt32LE(masked(length), 0);
      crcs.writeUInt32LE(masked(data), 4);
      return [length, crcs.subarray(0, 4), Buffer.from(data), crcs.subarray(4)];
    }),
  );
}

/** Writes `file` as `<versionDir>/assets.extra/tf_serving_warmup_requests`. */
export function writeWarmupFile(versionDir: string, file: Buffer): void {
  mkdirSync(path.join(versionDir, 'assets.extra'), { recursive: true });
  writeFileSync(path.join(versionDir, 'assets.extra', 'tf_serving_warmup_requests'), file);
}
