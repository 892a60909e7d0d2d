/**
 * Triton's `map<string, ModelRepositoryParameter> parameters` of RepositoryModelLoadRequest
 * (field 3) as neutral load parameters (protocols/v2/repository-load.ts). Decoded with the
 * loader's options (proto.ts): int64 as decimal text, bytes as Buffers, the oneof named.
 */
import { errors } from '../errors.js';
import type { LoadParameterValue, LoadParameters } from '../v2/repository-load.js';

export interface ModelRepositoryParameterMessage {
  parameter_choice?: string;
  bool_param?: boolean;
  int64_param?: string | number;
  string_param?: string;
  bytes_param?: Uint8Array;
}

function decodeValue(key: string, p: ModelRepositoryParameterMessage): LoadParameterValue {
  switch (p.parameter_choice) {
    case 'bool_param':
      return p.bool_param === true;
    case 'int64_param':
      return Number(p.int64_param ?? 0);
    case 'string_param':
      return p.string_param ?? '';
    case 'bytes_param':
      return p.bytes_param ?? new Uint8Array(0);
    default:
      throw errors.invalidInput(`Load parameter '${key}' has no value (set one of bool_param, int64_param, string_param, bytes_param)`);
  }
}

export function decodeGrpcLoadParameters(map: Readonly<Record<string, ModelRepositoryParameterMessage>> | undefined): LoadParameters {
  return new Map(Object.entries(map ?? {}).map(([key, p]) => [key, decodeValue(key, p)]));
}
