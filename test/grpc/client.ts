/**
 * A real @grpc/grpc-js client for tests and benchmarks, generated at run time from the
 * project's .proto files with the same conversion options as the server.
 */
import * as grpc from '@grpc/grpc-js';
import type { ModelInferRequestMessage, ModelInferResponseMessage } from '../../protocols/grpc/messages.js';
import { loadProtocolDefinition } from '../../protocols/grpc/proto.js';

type ClientCtor = new (address: string, creds: grpc.ChannelCredentials, options?: grpc.ChannelOptions) => grpc.Client;

const definition = loadProtocolDefinition();
const pkg = grpc.loadPackageDefinition(definition);
const InferenceClient = (pkg['inference'] as grpc.GrpcObject)['GRPCInferenceService'] as unknown as ClientCtor;
const HealthClient = ((pkg['grpc'] as grpc.GrpcObject)['health'] as grpc.GrpcObject)['v1'] as grpc.GrpcObject;

export interface GrpcTestClient {
  /** Calls a unary RPC of inference.GRPCInferenceService. */
  call<T = Record<string, unknown>>(method: string, request?: object, options?: grpc.CallOptions): Promise<T>;
  infer(request: ModelInferRequestMessage): Promise<ModelInferResponseMessage>;
  /** grpc.health.v1.Health/Check: the status name, e.g. "SERVING". */
  healthCheck(service: string): Promise<string>;
  /** grpc.health.v1.Health/Watch as a stream of status names. */
  healthWatch(service: string): grpc.ClientReadableStream<{ status: string }>;
  close(): void;
}

function promisify<T>(client: grpc.Client, method: string, request: object, options: grpc.CallOptions = {}): Promise<T> {
  const fn = (client as unknown as Record<string, (...args: unknown[]) => unknown>)[method];
  if (typeof fn !== 'function') throw new Error(`no method ${method}`);
  return new Promise<T>((resolve, reject) => {
    fn.call(client, request, new grpc.Metadata(), options, (err: grpc.ServiceError | null, res: T) => {
      if (err) reject(err);
      else resolve(res);
    });
  });
}

export function grpcClient(address: string, options: grpc.ChannelOptions = {}): GrpcTestClient {
  const creds = grpc.credentials.createInsecure();
  const inference = new InferenceClient(address, creds, options);
  const health = new (HealthClient['Health'] as unknown as ClientCtor)(address, creds, options);
  return {
    call: (method, request = {}, opts) => promisify(inference, method, request, opts),
    infer: (request) => promisify(inference, 'ModelInfer', request),
    healthCheck: async (service) => (await promisify<{ status: string }>(health, 'Check', { service })).status,
    healthWatch: (service) => (health as unknown as { Watch(r: object): grpc.ClientReadableStream<{ status: string }> }).Watch({ service }),
    close: () => {
      inference.close();
      health.close();
    },
  };
}

/** Resolves with the ServiceError a call failed with; throws if it succeeded. */
export async function grpcError(p: Promise<unknown>): Promise<grpc.ServiceError> {
  try {
    await p;
  } catch (e) {
    return e as grpc.ServiceError;
  }
  throw new Error('expected the call to fail');
}

export { grpc };
