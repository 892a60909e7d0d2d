/** onnxruntime tensor type names <-> V2 datatypes. */
import type { Datatype } from '../../../protocols/datatypes.js';

const ORT_TO_V2 = new Map<string, Datatype>([
  ['bool', 'BOOL'],
  ['uint8', 'UINT8'],
  ['uint16', 'UINT16'],
  ['uint32', 'UINT32'],
  ['uint64', 'UINT64'],
  ['int8', 'INT8'],
  ['int16', 'INT16'],
  ['int32', 'INT32'],
  ['int64', 'INT64'],
  ['float16', 'FP16'],
  ['bfloat16', 'BF16'],
  ['float32', 'FP32'],
  ['float64', 'FP64'],
  ['string', 'BYTES'],
]);

const V2_TO_ORT = new Map<Datatype, string>([...ORT_TO_V2].map(([o, v]) => [v, o]));

export function v2FromOrt(type: string): Datatype | undefined {
  return ORT_TO_V2.get(type);
}

export function ortFromV2(datatype: Datatype): string {
  const t = V2_TO_ORT.get(datatype);
  if (t === undefined) throw new TypeError(`no onnxruntime type for ${datatype}`);
  return t;
}
