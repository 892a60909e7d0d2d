/**
 * ModelInfer on one grpc-js channel with requests serialised up front and responses left as
 * bytes, so a benchmark measures the server's path rather than client-side protobuf work.
 */
import * as grpc from '@grpc/grpc-js';
import type { ModelInferRequestMessage } from '../../protocols/grpc/messages.js';
import { INFERENCE_SERVICE, loadProtocolDefinition } from '../../protocols/grpc/proto.js';

export interface PreEncodedInfer {
  encode(request: ModelInferRequestMessage): Buffer;
  /** Sends an encoded ModelInferRequest; resolves with the encoded response. */
  call(message: Buffer): Promise<Buffer>;
  close(): void;
}

export function preEncodedInfer(address: string): PreEncodedInfer {
  const method = (loadProtocolDefinition()[INFERENCE_SERVICE] as grpc.ServiceDefinition)['ModelInfer'] as grpc.MethodDefinition<object, object>;
  const Client = grpc.makeGenericClientConstructor(
    {
      ModelInfer: {
        ...method,
        requestSerialize: (b: Buffer) => b,
        responseDeserialize: (b: Buffer) => b,
      } as unknown as grpc.MethodDefinition<Buffer, Buffer>,
    },
    'GRPCInferenceService',
  );
  // Large enough for a 1×3×224×224 FP32 tensor in either direction.
  const client = new Client(address, grpc.credentials.createInsecure(), {
    'grpc.max_receive_message_length': 64 * 2 ** 20,
    'grpc.max_send_message_length': 64 * 2 ** 20,
  }) as unknown as grpc.Client & {
    ModelInfer(msg: Buffer, cb: (err: grpc.ServiceError | null, res: Buffer) => void): void;
  };
  return {
    encode: (req) => method.requestSerialize(req),
    call: (msg) => new Promise((resolve, reject) => client.ModelInfer(msg, (err, res) => (err ? reject(err) : resolve(res)))),
    close: () => client.close(),
  };
}
