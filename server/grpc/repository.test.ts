/**
 * Readiness, the repository RPCs and the standard health service on a server whose
 * startup set includes a model that cannot load (BF16, which onnxruntime-node rejects).
 */
import * as protoLoader from '@grpc/proto-loader';
import { createRequire } from 'node:module';
import path from 'node:path';
import descriptor from 'protobufjs/ext/descriptor/index.js';
import type { IDescriptorProto, IFileDescriptorProto } from 'protobufjs/ext/descriptor/index.js';
import { describe, expect, it } from 'vitest';
import { grpc, grpcError } from '../../test/grpc/client.js';
import { useGrpcFixture } from '../../test/helpers/grpc-fixture.js';

const inferGood = () =>
  f.client.infer({
    model_name: 'good',
    inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 2], contents: { fp32_contents: [1, 2] } }],
  });

const f = useGrpcFixture({ good: 'identity_fp32', broken: 'identity_bf16', spare: 'identity_int32' });

/** Next `count` statuses from a Watch stream. */
function nextStatuses(stream: grpc.ClientReadableStream<{ status: string }>, count: number): Promise<string[]> {
  const seen: string[] = [];
  return new Promise((resolve, reject) => {
    const onData = (m: { status: string }) => {
      seen.push(m.status);
      if (seen.length === count) {
        stream.off('data', onData);
        resolve(seen);
      }
    };
    stream.on('data', onData);
    stream.once('error', reject);
  });
}

/** Statuses up to and including `target`; transitions may pass through NOT_SERVING (loading, unloading). */
function untilStatus(stream: grpc.ClientReadableStream<{ status: string }>, target: string): Promise<string[]> {
  const seen: string[] = [];
  return new Promise((resolve, reject) => {
    const onData = (m: { status: string }) => {
      seen.push(m.status);
      if (m.status === target) {
        stream.off('data', onData);
        resolve(seen);
      }
    };
    stream.on('data', onData);
    stream.once('error', reject);
  });
}

describe('a server with a model that failed to load', () => {
  it('is live but not ready; the failed model is not ready, the good one is', async () => {
    expect(await f.client.call('ServerLive')).toEqual({ live: true });
    expect(await f.client.call('ServerReady')).toEqual({ ready: false });
    expect(await f.client.call('ModelReady', { name: 'broken' })).toEqual({ ready: false });
    expect(await f.client.call('ModelReady', { name: 'good' })).toEqual({ ready: true });
  });

  it('answers UNAVAILABLE with the load error for the failed model', async () => {
    const infer = await grpcError(f.client.infer({ model_name: 'broken', inputs: [{ name: 'INPUT0', datatype: 'BF16', shape: [1, 1] }], raw_input_contents: [Buffer.alloc(2)] }));
    expect(infer.code).toBe(grpc.status.UNAVAILABLE);
    expect(infer.details).toMatch(/^Model with name broken is not ready\. Failed to load: .*BF16/);
    const meta = await grpcError(f.client.call('ModelMetadata', { name: 'broken' }));
    expect(meta.code).toBe(grpc.status.UNAVAILABLE);
  });

  it('health reports NOT_SERVING for the server and the failed model, SERVING for the good one', async () => {
    expect(await f.client.healthCheck('')).toBe('NOT_SERVING');
    expect(await f.client.healthCheck('inference.GRPCInferenceService')).toBe('NOT_SERVING');
    expect(await f.client.healthCheck('broken')).toBe('NOT_SERVING');
    expect(await f.client.healthCheck('good')).toBe('SERVING');
    const unknown = await grpcError(f.client.healthCheck('nope'));
    expect(unknown.code).toBe(grpc.status.NOT_FOUND);
  });

  it('RepositoryModelLoad of the failed model reports UNAVAILABLE with the cause', async () => {
    const err = await grpcError(f.client.call('RepositoryModelLoad', { model_name: 'broken' }));
    expect(err.code).toBe(grpc.status.UNAVAILABLE);
    expect(err.details).toMatch(/^Model with name broken is not ready\./);
  });

  it('unloading the failed model makes the server ready and SERVING', async () => {
    expect(await f.client.call('RepositoryModelUnload', { model_name: 'broken' })).toEqual({ model_name: 'broken', isUnloaded: true });
    expect(await f.client.call('ServerReady')).toEqual({ ready: true });
    expect(await f.client.healthCheck('')).toBe('SERVING');
    expect((await grpcError(f.client.call('ModelReady', { name: 'broken' }))).code).toBe(grpc.status.NOT_FOUND);
  });
});

describe('repository RPCs', () => {
  it('RepositoryModelUnload really unloads, RepositoryModelLoad really loads', async () => {
    expect((await inferGood()).outputs[0]?.contents?.fp32_contents).toEqual([1, 2]);
    expect(await f.client.call('RepositoryModelUnload', { model_name: 'good' })).toEqual({ model_name: 'good', isUnloaded: true });
    const gone = await grpcError(inferGood());
    expect([gone.code, gone.details]).toEqual([grpc.status.NOT_FOUND, 'Model with name good does not exist.']);
    expect((await grpcError(f.client.call('ModelReady', { name: 'good' }))).code).toBe(grpc.status.NOT_FOUND);

    expect(await f.client.call('RepositoryModelLoad', { model_name: 'good' })).toEqual({ model_name: 'good', isLoaded: true });
    expect(await f.client.call('ModelReady', { name: 'good' })).toEqual({ ready: true });
    expect((await inferGood()).outputs[0]?.contents?.fp32_contents).toEqual([1, 2]);
  });

  it("accepts Triton's request layout (model name in field 2)", async () => {
    expect(await f.client.call('RepositoryModelUnload', { triton_model_name: 'good' })).toEqual({ model_name: 'good', isUnloaded: true });
    expect((await grpcError(f.client.call('ModelReady', { name: 'good' }))).code).toBe(grpc.status.NOT_FOUND);
    expect(await f.client.call('RepositoryModelLoad', { triton_model_name: 'good' })).toEqual({ model_name: 'good', isLoaded: true });
    expect(await f.client.call('ModelReady', { name: 'good' })).toEqual({ ready: true });
  });

  it('RepositoryModelLoad reloads a loaded model and keeps serving it', async () => {
    expect(await f.client.call('RepositoryModelLoad', { model_name: 'spare' })).toEqual({ model_name: 'spare', isLoaded: true });
    expect(await f.client.call('ModelReady', { name: 'spare' })).toEqual({ ready: true });
  });

  it('NOT_FOUND for models the repository does not have, INVALID_ARGUMENT without a name', async () => {
    const load = await grpcError(f.client.call('RepositoryModelLoad', { model_name: 'missing' }));
    expect([load.code, load.details]).toEqual([grpc.status.NOT_FOUND, 'Model with name missing does not exist.']);
    const unload = await grpcError(f.client.call('RepositoryModelUnload', { model_name: 'missing' }));
    expect([unload.code, unload.details]).toEqual([grpc.status.NOT_FOUND, 'Model with name missing does not exist.']);
    const unnamed = await grpcError(f.client.call('RepositoryModelLoad', {}));
    expect([unnamed.code, unnamed.details]).toEqual([grpc.status.INVALID_ARGUMENT, "'model_name' must not be empty"]);
  });
});

describe('health Watch', () => {
  it('streams a model going away and coming back', async () => {
    const stream = f.client.healthWatch('spare');
    try {
      expect(await nextStatuses(stream, 1)).toEqual(['SERVING']);
      const gone = untilStatus(stream, 'SERVICE_UNKNOWN');
      await f.client.call('RepositoryModelUnload', { model_name: 'spare' });
      const goneSeen = await gone;
      expect(goneSeen.at(-1)).toBe('SERVICE_UNKNOWN');
      expect(goneSeen.slice(0, -1).every((st) => st === 'NOT_SERVING')).toBe(true);
      const back = untilStatus(stream, 'SERVING');
      await f.client.call('RepositoryModelLoad', { model_name: 'spare' });
      const backSeen = await back;
      expect(backSeen.at(-1)).toBe('SERVING');
      expect(backSeen.slice(0, -1).every((st) => st === 'NOT_SERVING')).toBe(true);
    } finally {
      stream.cancel();
    }
  });
});

describe('server reflection', () => {
  type Reply = {
    list_services_response?: { service: Array<{ name: string }> };
    file_descriptor_response?: { file_descriptor_proto: Buffer[] };
    error_response?: { error_message: string };
  };

  /** One request/reply on the v1 ServerReflectionInfo stream. */
  async function reflect(request: object): Promise<Reply> {
    const require = createRequire(import.meta.url);
    const protoPath = path.join(path.dirname(require.resolve('@grpc/reflection')), '../proto/grpc/reflection/v1/reflection.proto');
    const def = protoLoader.loadSync(protoPath, { keepCase: true });
    const pkg = grpc.loadPackageDefinition(def) as unknown as {
      grpc: { reflection: { v1: { ServerReflection: new (a: string, c: grpc.ChannelCredentials) => grpc.Client } } };
    };
    const client = new pkg.grpc.reflection.v1.ServerReflection(f.server.grpcAddress as string, grpc.credentials.createInsecure());
    const call = (client as unknown as { ServerReflectionInfo(): grpc.ClientDuplexStream<object, Reply> }).ServerReflectionInfo();
    try {
      const reply = new Promise<Reply>((resolve, reject) => {
        call.once('data', resolve);
        call.once('error', reject);
      });
      call.write(request);
      return await reply;
    } finally {
      call.end();
      client.close();
    }
  }

  it('lists the inference and health services', async () => {
    const reply = await reflect({ list_services: '*' });
    expect((reply.list_services_response?.service ?? []).map((s) => s.name)).toEqual(expect.arrayContaining(['inference.GRPCInferenceService', 'grpc.health.v1.Health']));
  });

  it('describes the inference service with protoc map entry names, which grpcurl requires', async () => {
    const reply = await reflect({ file_containing_symbol: 'inference.GRPCInferenceService' });
    const files = (reply.file_descriptor_response?.file_descriptor_proto ?? []).map((b) => descriptor.FileDescriptorProto.decode(b) as unknown as IFileDescriptorProto);
    const inference = files.find((f) => f.package === 'inference');
    expect(inference?.service?.map((s) => s.name)).toEqual(['GRPCInferenceService']);
    const request = inference?.messageType?.find((m) => m.name === 'ModelInferRequest');
    const entry = request?.nestedType?.find((n) => n.options?.mapEntry === true);
    expect(entry?.name).toBe('ParametersEntry');
    expect(request?.field?.find((f) => f.name === 'parameters')?.typeName).toBe('ParametersEntry');
    // Every map in every message, nested ones included (ModelConfig.parameters and
    // RepositoryModelLoadRequest.parameters among them).
    const entries: string[] = [];
    const walk = (m: IDescriptorProto) => {
      for (const n of m.nestedType ?? []) {
        if (n.options?.mapEntry === true) entries.push(n.name ?? '');
        else walk(n);
      }
    };
    for (const m of inference?.messageType ?? []) walk(m);
    expect(entries.length).toBe(7);
    expect(entries.every((n) => n === 'ParametersEntry')).toBe(true);
  });
});
