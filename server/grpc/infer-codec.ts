/**
 * ModelInfer as a pipeline codec (server/pipeline/codec.ts). The response is serialised here
 * (`encodeInferResponse`, the wire codec grpc-server.ts hands in), so that encoding is timed
 * as postprocess and an oversize response can be refused before it is sent.
 */
import type { DecodeLimits } from '../../protocols/limits.js';
import { type DecodedGrpcInferRequest, decodeGrpcInferRequest } from '../../protocols/grpc/infer-request.js';
import { encodeGrpcInferResponse } from '../../protocols/grpc/infer-response.js';
import type { ModelInferRequestMessage, ModelInferResponseMessage } from '../../protocols/grpc/messages.js';
import { encodeModelInferRequest } from '../../protocols/grpc/wire/encode-infer.js';
import type { InferResponse } from '../../protocols/tensor.js';
import type { Codec, WireMessage } from '../pipeline/codec.js';

/** A serialised protobuf message, without gRPC's length prefix. */
const PROTOBUF_TYPE = 'application/x-protobuf';

export interface GrpcMessage extends WireMessage {
  readonly body: Buffer;
}

export function modelInferCodec(
  limits: DecodeLimits | undefined,
  encodeInferResponse: (msg: ModelInferResponseMessage) => Buffer,
): Codec<ModelInferRequestMessage, DecodedGrpcInferRequest, InferResponse, GrpcMessage> {
  return {
    decode: (msg) => decodeGrpcInferRequest(msg, limits),
    // Serialised again only when requests are logged (the transport hands over the message decoded).
    wire: (msg) => ({ body: encodeModelInferRequest(msg), contentType: PROTOBUF_TYPE }),
    encode: (response, decoded) => ({ body: encodeInferResponse(encodeGrpcInferResponse(response, decoded.rawInputs)), contentType: PROTOBUF_TYPE }),
  };
}
