/**
 * Plain-object shapes of the inference messages, as @grpc/proto-loader produces them with
 * LOADER_OPTIONS (proto.ts) and accepts them for encoding. Field names keep the proto's
 * snake_case. Decoded messages have every field; objects written by the codec may leave
 * fields out (proto3 defaults).
 */
import type { GrpcContentsField } from '../datatypes.js';

/** A 64-bit integer: decoded as a decimal string; numbers are accepted when encoding. */
export type Int64 = string | number;

export type ParameterChoice = 'bool_param' | 'int64_param' | 'string_param' | 'double_param' | 'uint64_param';

export interface InferParameterMessage {
  parameter_choice?: ParameterChoice | undefined;
  bool_param?: boolean;
  int64_param?: Int64;
  string_param?: string;
  double_param?: number;
  uint64_param?: Int64;
}

export type ParameterMap = Record<string, InferParameterMessage>;

/**
 * Numeric fields may be typed arrays: the wire codec (wire/) decodes into them and writes
 * them in bulk; proto-loader's own codec only takes plain arrays.
 */
export interface InferTensorContentsMessage {
  bool_contents?: boolean[];
  int_contents?: number[] | Int32Array;
  int64_contents?: Int64[] | BigInt64Array;
  uint_contents?: number[] | Uint32Array;
  uint64_contents?: Int64[] | BigUint64Array;
  fp32_contents?: number[] | Float32Array;
  fp64_contents?: number[] | Float64Array;
  bytes_contents?: Uint8Array[];
}

// The datatype table's contents fields and this message's fields are the same set.
type SameKeys<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const _fieldsMatch: SameKeys<GrpcContentsField, keyof InferTensorContentsMessage> = true;
void _fieldsMatch;

export interface InferInputTensorMessage {
  name?: string;
  datatype?: string;
  shape?: Int64[];
  parameters?: ParameterMap;
  contents?: InferTensorContentsMessage | null;
}

export interface InferRequestedOutputTensorMessage {
  name?: string;
  parameters?: ParameterMap;
}

export interface ModelInferRequestMessage {
  model_name?: string;
  model_version?: string;
  id?: string;
  parameters?: ParameterMap;
  inputs?: InferInputTensorMessage[];
  outputs?: InferRequestedOutputTensorMessage[];
  raw_input_contents?: Uint8Array[];
}

export interface InferOutputTensorMessage {
  name: string;
  datatype: string;
  shape: Int64[];
  parameters: ParameterMap;
  contents?: InferTensorContentsMessage | null;
}

export interface ModelInferResponseMessage {
  model_name: string;
  model_version: string;
  id: string;
  parameters: ParameterMap;
  outputs: InferOutputTensorMessage[];
  raw_output_contents: Uint8Array[];
}

export interface TensorMetadataMessage {
  name: string;
  datatype: string;
  shape: Int64[];
}

export interface ModelMetadataResponseMessage {
  name: string;
  versions: string[];
  platform: string;
  inputs: TensorMetadataMessage[];
  outputs: TensorMetadataMessage[];
}
