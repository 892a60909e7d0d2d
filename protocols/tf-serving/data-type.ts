/**
 * TensorFlow's `DataType` enum (tensorflow/core/framework/types.proto) as it travels in a
 * TensorProto, and which of TensorProto's typed `*_val` fields carries each type's elements
 * when `tensor_content` is empty (TensorFlow's ProtoHelper). Types the neutral tensors have
 * no datatype for (complex, quantized, resource, variant) are absent: a tensor of one is
 * refused by name.
 */
import type { Datatype } from '../datatypes.js';

/** TensorProto fields holding elements one by one. */
export type ValField = 'float_val' | 'double_val' | 'int_val' | 'string_val' | 'int64_val' | 'bool_val' | 'half_val' | 'uint32_val' | 'uint64_val';

export interface TfDataType {
  readonly name: string;
  readonly datatype: Datatype;
  readonly field: ValField;
}

const ROWS: ReadonlyArray<[number, string, Datatype, ValField]> = [
  [1, 'DT_FLOAT', 'FP32', 'float_val'],
  [2, 'DT_DOUBLE', 'FP64', 'double_val'],
  [3, 'DT_INT32', 'INT32', 'int_val'],
  [4, 'DT_UINT8', 'UINT8', 'int_val'],
  [5, 'DT_INT16', 'INT16', 'int_val'],
  [6, 'DT_INT8', 'INT8', 'int_val'],
  [7, 'DT_STRING', 'BYTES', 'string_val'],
  [9, 'DT_INT64', 'INT64', 'int64_val'],
  [10, 'DT_BOOL', 'BOOL', 'bool_val'],
  [14, 'DT_BFLOAT16', 'BF16', 'half_val'],
  [17, 'DT_UINT16', 'UINT16', 'int_val'],
  [19, 'DT_HALF', 'FP16', 'half_val'],
  [22, 'DT_UINT32', 'UINT32', 'uint32_val'],
  [23, 'DT_UINT64', 'UINT64', 'uint64_val'],
];

const BY_NUMBER: ReadonlyMap<number, TfDataType> = new Map(ROWS.map(([n, name, datatype, field]) => [n, Object.freeze({ name, datatype, field })]));

/** The DataType numbered `n`, or undefined for DT_INVALID and types without a neutral datatype. */
export function tfDataType(n: number): TfDataType | undefined {
  return BY_NUMBER.get(n);
}
