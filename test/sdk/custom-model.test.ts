/**
 * The custom-model SDK on a real server (ModelServer on loopback ports): SDK models next to
 * a file-backed ONNX model over V1, V2 REST and gRPC; the lifecycle (load once, unload at
 * stop, a failed load); errors from user code through the catalogue; headers in and out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import type { InferRequest } from '../../server/sdk/index.js';
import { InferInput, InferOutput, InferResponse, InvalidInput, Model, ModelServer, type RequestHeaders, type ResponseHeaders, type TensorSpec } from '../../server/sdk/index.js';
import { loadProtocolDefinition } from '../../protocols/grpc/proto.js';
import { type GrpcTestClient, grpc, grpcClient, grpcError } from '../grpc/client.js';
import { expectError, get, json, post } from '../helpers/http.js';
import { makeRepository } from '../helpers/server.js';

/** Adds `offset` to FP32 `x`; declares its inputs, so V1 instances decode and V2 requests are validated. */
class Shift extends Model {
  loads = 0;
  unloads = 0;
  constructor(
    name: string,
    readonly offset: number,
  ) {
    super(name);
  }
  override async load(): Promise<boolean> {
    this.loads++;
    await new Promise((r) => setImmediate(r));
    this.ready = true;
    return true;
  }
  override getInputTypes(): TensorSpec[] {
    return [{ name: 'x', datatype: 'FP32', shape: [-1] }];
  }
  override getOutputTypes(): TensorSpec[] {
    return [{ name: 'y', datatype: 'FP32', shape: [-1] }];
  }
  override preprocess(request: InferRequest): InferRequest {
    const x = request.getInput('x') as InferInput;
    if (x.asNumbers().some((v) => Number.isNaN(v) || v > 1000)) throw new InvalidInput('x must be at most 1000');
    return request;
  }
  override predict(request: InferRequest): InferResponse {
    const x = request.getInput('x') as InferInput;
    return new InferResponse(this.name, [
      new InferOutput(
        'y',
        x.shape,
        'FP32',
        x.asNumbers().map((v) => v + this.offset),
      ),
    ]);
  }
  override explain(request: InferRequest, headers: RequestHeaders): Record<string, unknown> {
    const x = request.getInput('x') as InferInput;
    if (headers['x-explain'] === 'tensors') {
      return new InferResponse(
        this.name,
        [
          new InferOutput(
            'attribution',
            x.shape,
            'FP32',
            x.asNumbers().map(() => 1),
          ),
        ],
        { id: 'e1' },
      ) as unknown as Record<string, unknown>;
    }
    return { explanations: x.asNumbers().map((v) => ({ value: v, contribution: this.offset })) };
  }
  override unload(): void {
    this.unloads++;
    this.ready = false;
  }
}

/** Declares nothing: V2 inputs reach it unvalidated. Echoes a request header, sets a response header. */
class Echo extends Model {
  override predict(request: InferRequest, headers: RequestHeaders, responseHeaders: ResponseHeaders): InferResponse {
    responseHeaders['x-echo-model'] = this.name;
    const tag = headers['x-tag'] ?? '';
    return new InferResponse(this.name, [...request.inputs.map((i) => InferOutput.fromTensor(i.toTensor())), new InferOutput('tag', [1], 'BYTES', [tag])], {
      id: request.id,
      parameters: { echoed: true, inputs: request.inputs.length },
    });
  }
}

class Faulty extends Model {
  override getInputTypes(): TensorSpec[] {
    return [{ name: 'x', datatype: 'FP32', shape: [-1] }];
  }
  override predict(): InferResponse {
    throw new TypeError('cannot read weights of undefined');
  }
}

class NeverReady extends Model {
  override load(): boolean {
    return false;
  }
}

const shift = new Shift('shift', 10);
const repo = makeRepository({ identity: 'identity_fp32' });
const server = new ModelServer({ httpPort: 0, grpcPort: 0, httpHost: '127.0.0.1', modelRepository: repo.dir, logger: pino({ level: 'silent' }) });
let url = '';
let client: GrpcTestClient;

beforeAll(async () => {
  await server.start([shift, new Echo('echo'), new Faulty('faulty'), new NeverReady('never')]);
  url = `http://127.0.0.1:${server.httpPort}`;
  client = grpcClient(`127.0.0.1:${server.grpcPort}`);
});
afterAll(async () => {
  client?.close();
  await server.stop();
  repo.cleanup();
});

describe('SDK models next to an ONNX model', () => {
  it('lists both in the repository index; the failed load keeps its cause', async () => {
    const index = json(await post(`${url}/v2/repository/index`, {})) as Array<{ name: string; state: string; reason?: string }>;
    const byName = Object.fromEntries(index.map((m) => [m.name, m.state]));
    expect(byName).toEqual({ shift: 'READY', echo: 'READY', faulty: 'READY', never: 'UNAVAILABLE', identity: 'READY' });
    expect(index.find((m) => m.name === 'never')?.reason).toMatch(/load\(\) finished but the model is not ready/);
    expect(shift.loads).toBe(1);
  });

  it('serves V2 metadata from the declared types', async () => {
    expect(json(await get(`${url}/v2/models/shift`))).toEqual({
      name: 'shift',
      versions: null,
      platform: 'kserve-ts_custom',
      inputs: [{ name: 'x', datatype: 'FP32', shape: [-1] }],
      outputs: [{ name: 'y', datatype: 'FP32', shape: [-1] }],
    });
  });

  it('answers V2 REST for both', async () => {
    const custom = json(await post(`${url}/v2/models/shift/infer`, { id: 'r1', inputs: [{ name: 'x', datatype: 'FP32', shape: [3], data: [1, 2, 3] }] }));
    expect(custom).toMatchObject({ model_name: 'shift', id: 'r1', outputs: [{ name: 'y', datatype: 'FP32', shape: [3], data: [11, 12, 13] }] });
    const onnx = json(await post(`${url}/v2/models/identity/infer`, { inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 2], data: [4, 5] }] }));
    expect(onnx).toMatchObject({ model_name: 'identity', outputs: [{ name: 'OUTPUT0', data: [4, 5] }] });
  });

  it('answers V1 for both', async () => {
    expect(json(await post(`${url}/v1/models/shift:predict`, { instances: [1, 2] }))).toEqual({ predictions: [11, 12] });
    expect(json(await post(`${url}/v1/models/identity:predict`, { instances: [[4, 5]] }))).toEqual({ predictions: [[4, 5]] });
  });

  it('answers gRPC for both', async () => {
    const custom = await client.infer({ model_name: 'shift', inputs: [{ name: 'x', datatype: 'FP32', shape: [2], contents: { fp32_contents: [1, 2] } }] });
    expect(custom.outputs[0]?.name).toBe('y');
    expect(custom.outputs[0]?.contents?.fp32_contents ?? Array.from(new Float32Array(new Uint8Array(custom.raw_output_contents?.[0] ?? []).buffer))).toEqual([11, 12]);
    const onnx = await client.infer({ model_name: 'identity', inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 2], contents: { fp32_contents: [4, 5] } }] });
    expect(onnx.outputs[0]?.name).toBe('OUTPUT0');
  });

  it('validates requests against declared inputs before the model sees them', async () => {
    expectError(await post(`${url}/v2/models/shift/infer`, { inputs: [{ name: 'z', datatype: 'FP32', shape: [1], data: [1] }] }), 400, /Unexpected input 'z'/);
  });

  it('hands any V2 inputs to a model that declares none', async () => {
    const r = json(await post(`${url}/v2/models/echo/infer`, { inputs: [{ name: 'anything', datatype: 'INT32', shape: [2], data: [7, 8] }] }));
    expect(r).toMatchObject({
      outputs: [
        { name: 'anything', datatype: 'INT32', data: [7, 8] },
        { name: 'tag', datatype: 'BYTES', data: [''] },
      ],
    });
  });
});

describe('errors from user code', () => {
  it("a model's InvalidInput is 400 over REST and INVALID_ARGUMENT over gRPC", async () => {
    expectError(await post(`${url}/v2/models/shift/infer`, { inputs: [{ name: 'x', datatype: 'FP32', shape: [1], data: [5000] }] }), 400, /^x must be at most 1000$/);
    expectError(await post(`${url}/v1/models/shift:predict`, { instances: [5000] }), 400, /^x must be at most 1000$/);
    const err = await grpcError(client.infer({ model_name: 'shift', inputs: [{ name: 'x', datatype: 'FP32', shape: [1], contents: { fp32_contents: [5000] } }] }));
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(err.details).toBe('x must be at most 1000');
  });

  it('anything else is 500 / INTERNAL naming the model, without the stack', async () => {
    const body = { inputs: [{ name: 'x', datatype: 'FP32', shape: [1], data: [1] }] };
    const msg = expectError(await post(`${url}/v2/models/faulty/infer`, body), 500);
    expect(msg).toBe('Model faulty failed: TypeError : cannot read weights of undefined');
    const err = await grpcError(client.infer({ model_name: 'faulty', inputs: [{ name: 'x', datatype: 'FP32', shape: [1], contents: { fp32_contents: [1] } }] }));
    expect(err.code).toBe(grpc.status.INTERNAL);
    expect(err.details).toBe('Model faulty failed: TypeError : cannot read weights of undefined');
    expect(err.details).not.toMatch(/\n\s+at /);
  });

  it('a model whose load returned false is not ready (503 / UNAVAILABLE)', async () => {
    expectError(await post(`${url}/v2/models/never/infer`, { inputs: [] }), 503, /^Model with name never is not ready\./);
    expect((await get(`${url}/v2/models/never/ready`)).status).toBe(503);
    const err = await grpcError(client.infer({ model_name: 'never', inputs: [] }));
    expect(err.code).toBe(grpc.status.UNAVAILABLE);
  });
});

describe('headers', () => {
  it('REST: request headers reach the hooks; headers a hook sets come back, framing headers stay the server’s', async () => {
    const r = await post(`${url}/v2/models/echo/infer`, { inputs: [{ name: 'a', datatype: 'FP32', shape: [1], data: [1] }] }, { 'x-tag': 'blue' });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-echo-model')).toBe('echo');
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(json(r)).toMatchObject({ parameters: { echoed: true, inputs: 1 }, outputs: [{ name: 'a' }, { name: 'tag', data: ['blue'] }] });
    const v1 = await post(`${url}/v1/models/shift:predict`, { instances: [1] });
    expect(v1.headers.get('x-echo-model')).toBeNull();
  });

  it('gRPC: request metadata reaches the hooks; headers a hook sets come back as initial metadata', async () => {
    const pkg = grpc.loadPackageDefinition(loadProtocolDefinition());
    const Ctor = (pkg['inference'] as grpc.GrpcObject)['GRPCInferenceService'] as unknown as new (a: string, c: grpc.ChannelCredentials) => grpc.Client;
    const raw = new Ctor(`127.0.0.1:${server.grpcPort}`, grpc.credentials.createInsecure());
    try {
      const md = new grpc.Metadata();
      md.set('x-tag', 'green');
      let initial: grpc.Metadata | undefined;
      const res = await new Promise<{ outputs: Array<{ name: string; contents?: { bytes_contents?: Buffer[] } }>; raw_output_contents?: Buffer[] }>((resolve, reject) => {
        const call = (raw as unknown as Record<string, (...args: unknown[]) => unknown>)['ModelInfer']?.call(
          raw,
          { model_name: 'echo', inputs: [{ name: 'a', datatype: 'FP32', shape: [1], contents: { fp32_contents: [1] } }] },
          md,
          (err: grpc.ServiceError | null, r: never) => (err ? reject(err) : resolve(r)),
        ) as grpc.ClientUnaryCall;
        call.on('metadata', (m: grpc.Metadata) => {
          initial = m;
        });
      });
      expect(initial?.get('x-echo-model')).toEqual(['echo']);
      const tag = res.outputs.find((o) => o.name === 'tag');
      const tagBytes = tag?.contents?.bytes_contents?.[0] ?? res.raw_output_contents?.[1];
      expect(Buffer.from(tagBytes ?? []).toString('utf8')).toMatch(/green$/);
    } finally {
      raw.close();
    }
  });
});

describe('explain (V1 :explain)', () => {
  it("answers a model's explanation document, or its InferResponse as V2-style outputs", async () => {
    expect(json(await post(`${url}/v1/models/shift:explain`, { instances: [1, 2] }))).toEqual({
      explanations: [
        { value: 1, contribution: 10 },
        { value: 2, contribution: 10 },
      ],
    });
    const t = json(await post(`${url}/v1/models/shift:explain`, { instances: [3] }, { 'x-explain': 'tensors' }));
    expect(t).toEqual({ model_name: 'shift', id: 'e1', outputs: [{ name: 'attribution', shape: [1], datatype: 'FP32', data: [1] }] });
  });

  it('validates the request and maps user errors; models without explain answer 501', async () => {
    expectError(await post(`${url}/v1/models/shift:explain`, { instances: ['a'] }), 400);
    expectError(await post(`${url}/v1/models/faulty:explain`, { instances: [1] }), 501, /^Model faulty does not support explain$/);
    expectError(await post(`${url}/v1/models/identity:explain`, { instances: [[1]] }), 501, /does not support explain/);
    expectError(await post(`${url}/v1/models/nope:explain`, { instances: [1] }), 404);
  });
});

describe('lifecycle', () => {
  it('reload through the repository API loads the model again; stop unloads it once', async () => {
    expect((await post(`${url}/v2/repository/models/shift/load`, {})).status).toBe(200);
    expect(shift.loads).toBe(2);
    expect(shift.unloads).toBe(0);
    expect(json(await post(`${url}/v1/models/shift:predict`, { instances: [0] }))).toEqual({ predictions: [10] });
    expect((await post(`${url}/v2/repository/models/shift/unload`, {})).status).toBe(200);
    expect(shift.unloads).toBe(1);
    expect(shift.ready).toBe(false);
    expectError(await post(`${url}/v1/models/shift:predict`, { instances: [0] }), 404);
  });
});

describe('InferInput / InferOutput helpers', () => {
  it('build and read every storage kind without a second representation', () => {
    expect(new InferInput('b', [2], 'BOOL', [true, false]).asArray()).toEqual([true, false]);
    expect(new InferInput('i', [2], 'INT64', [1, 2]).data).toEqual(BigInt64Array.from([1n, 2n]));
    expect(new InferInput('h', [2], 'FP16', [1.5, -2]).asArray()).toEqual([1.5, -2]);
    expect(new InferInput('s', [2], 'BYTES', ['a', 'é']).asStrings()).toEqual(['a', 'é']);
    const f = Float32Array.from([1, 2, 3, 4]);
    const t = new InferOutput('f', [2, 2], 'FP32', f);
    expect(t.data).toBe(f);
    expect(t.reshape([4]).toTensor()).toMatchObject({ name: 'f', datatype: 'FP32', shape: [4], data: f });
    expect(() => new InferInput('bad', [3], 'FP32', [1, 2])).toThrow(InvalidInput);
  });
});
