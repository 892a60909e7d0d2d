/**
 * Loads the project's gRPC protocol definitions (the Open Inference Protocol service and
 * the standard health service) with the conversion options every codec here relies on.
 *
 * The .proto files sit beside this module; the build copies them next to the compiled
 * file, so the same relative lookup works from sources (tsx, vitest) and from dist.
 */
import { fileURLToPath } from 'node:url';
import * as protoLoader from '@grpc/proto-loader';

export const INFERENCE_PROTO_PATH = fileURLToPath(new URL('./grpc_predict_v2.proto', import.meta.url));
export const HEALTH_PROTO_PATH = fileURLToPath(new URL('./health.proto', import.meta.url));

export const INFERENCE_SERVICE = 'inference.GRPCInferenceService';
export const HEALTH_SERVICE = 'grpc.health.v1.Health';

/**
 * Conversion of decoded messages to plain objects (and the shapes the codec writes back):
 * - 64-bit integers as decimal strings, so INT64/UINT64 elements never lose precision;
 * - `bytes` as Buffers that view the received message (no copy, no base64);
 * - every field present (proto3 defaults filled in), repeated fields as arrays, maps as
 *   objects, and `parameter_choice` naming the member set in an InferParameter.
 */
export const LOADER_OPTIONS: protoLoader.Options = Object.freeze({
  keepCase: true,
  longs: String,
  enums: String,
  bytes: Buffer,
  defaults: true,
  arrays: true,
  objects: true,
  oneofs: true,
});

/** Package definition of both services, for grpc-js servers, clients and reflection. */
export function loadProtocolDefinition(): protoLoader.PackageDefinition {
  return protoLoader.loadSync([INFERENCE_PROTO_PATH, HEALTH_PROTO_PATH], LOADER_OPTIONS);
}
