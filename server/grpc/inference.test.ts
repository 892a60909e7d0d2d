/**
 * inference.GRPCInferenceService end to end: a real server on a loopback port with real
 * onnxruntime sessions, called by a real @grpc/grpc-js client built from the project's
 * .proto.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GrpcTestClient, grpc, grpcClient, grpcError } from '../../test/grpc/client.js';
import { DATATYPE_CASES, bytesRaw } from '../../test/grpc/tensors.js';
import { type TestServer, makeRepository, startServer } from '../../test/helpers/server.js';

const MiB = 1024 * 1024;
const f32 = (values: number[]) => Buffer.from(Float32Array.from(values).buffer);
const fromF32 = (b: Uint8Array) => Array.from(new Float32Array(Uint8Array.from(b).buffer));

let repo: ReturnType<typeof makeRepository>;
let t: TestServer;
let c: GrpcTestClient;

beforeAll(async () => {
  repo = makeRepository({
    ...Object.fromEntries(DATATYPE_CASES.map((d) => [d.model, d.model])),
    add_sub: 'add_sub',
    add_free_dims: 'add_free_dims',
    versioned: { versions: { '1': 'identity_fp32', '2': 'scale2_fp32' } },
  });
  t = await startServer(['--model_repository', repo.dir, '--grpc_max_receive_message_length', String(64 * MiB), '--grpc_max_send_message_length', String(64 * MiB)], {
    grpc: true,
  });
  c = grpcClient(t.grpcAddress as string, { 'grpc.max_receive_message_length': 64 * MiB });
});

afterAll(async () => {
  c?.close();
  await t?.close();
  repo?.cleanup();
});

describe('server and model RPCs', () => {
  it('ServerLive and ServerReady are true once the startup models are loaded', async () => {
    expect(await c.call('ServerLive')).toEqual({ live: true });
    expect(await c.call('ServerReady')).toEqual({ ready: true });
  });

  it('ServerMetadata names the server and its extensions', async () => {
    expect(await c.call('ServerMetadata')).toEqual({
      name: 'kserve-ts',
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      extensions: ['model_repository_extension', 'binary_tensor_data', 'model_configuration', 'statistics'],
    });
  });

  it('ModelReady is true for a loaded model and version, NOT_FOUND otherwise', async () => {
    expect(await c.call('ModelReady', { name: 'add_sub' })).toEqual({ ready: true });
    expect(await c.call('ModelReady', { name: 'versioned', version: '1' })).toEqual({ ready: true });
    const unknown = await grpcError(c.call('ModelReady', { name: 'nope' }));
    expect(unknown.code).toBe(grpc.status.NOT_FOUND);
    expect(unknown.details).toBe('Model with name nope does not exist.');
    const version = await grpcError(c.call('ModelReady', { name: 'versioned', version: '9' }));
    expect(version.code).toBe(grpc.status.NOT_FOUND);
    expect(version.details).toBe('Model with name versioned and version 9 does not exist.');
  });

  it('ModelMetadata returns the signature, platform and versions', async () => {
    expect(await c.call('ModelMetadata', { name: 'add_sub' })).toEqual({
      name: 'add_sub',
      versions: [],
      platform: 'onnxruntime_onnx',
      inputs: [
        { name: 'INPUT0', datatype: 'FP32', shape: ['-1', '16'] },
        { name: 'INPUT1', datatype: 'FP32', shape: ['-1', '16'] },
      ],
      outputs: [
        { name: 'OUTPUT0', datatype: 'FP32', shape: ['-1', '16'] },
        { name: 'OUTPUT1', datatype: 'FP32', shape: ['-1', '16'] },
      ],
    });
    const versioned = await c.call<{ versions: string[] }>('ModelMetadata', { name: 'versioned', version: '1' });
    expect(versioned.versions).toEqual(['1', '2']);
    const err = await grpcError(c.call('ModelMetadata', { name: 'nope' }));
    expect(err.code).toBe(grpc.status.NOT_FOUND);
  });

  it('answers UNIMPLEMENTED for RPCs of the wider Triton service it does not serve', async () => {
    const Generic = grpc.makeGenericClientConstructor(
      {
        SystemSharedMemoryStatus: {
          path: '/inference.GRPCInferenceService/SystemSharedMemoryStatus',
          requestStream: false,
          responseStream: false,
          requestSerialize: (v: Buffer) => v,
          requestDeserialize: (v: Buffer) => v,
          responseSerialize: (v: Buffer) => v,
          responseDeserialize: (v: Buffer) => v,
        },
      },
      'GRPCInferenceService',
    );
    const client = new Generic(t.grpcAddress as string, grpc.credentials.createInsecure());
    const err = await new Promise<grpc.ServiceError>((resolve) => {
      (client as unknown as { SystemSharedMemoryStatus(b: Buffer, cb: (e: grpc.ServiceError) => void): void }).SystemSharedMemoryStatus(Buffer.alloc(0), resolve);
    });
    client.close();
    expect(err.code).toBe(grpc.status.UNIMPLEMENTED);
  });
});

describe('ModelInfer datatypes', () => {
  const typed = DATATYPE_CASES.filter((d) => d.field !== undefined);

  it.each(typed.map((d) => [d.datatype, d] as const))('%s round-trips through typed contents', async (_, d) => {
    const field = d.field as string;
    const res = await c.infer({
      model_name: d.model,
      inputs: [{ name: 'INPUT0', datatype: d.datatype, shape: [2, 3], contents: { [field]: d.values } }],
    });
    expect(res.raw_output_contents).toEqual([]);
    expect(res.outputs).toHaveLength(1);
    const out = res.outputs[0];
    expect(out?.name).toBe('OUTPUT0');
    expect(out?.datatype).toBe(d.datatype);
    expect(out?.shape).toEqual(['2', '3']);
    expect((out?.contents as Record<string, unknown>)[field]).toEqual(d.values);
  });

  it.each(DATATYPE_CASES.map((d) => [d.datatype, d] as const))('%s round-trips through raw contents', async (_, d) => {
    const res = await c.infer({
      model_name: d.model,
      inputs: [{ name: 'INPUT0', datatype: d.datatype, shape: [2, 3] }],
      raw_input_contents: [d.raw],
    });
    expect(res.outputs.map((o) => [o.name, o.datatype, o.shape, o.contents])).toEqual([['OUTPUT0', d.datatype, ['2', '3'], null]]);
    expect(res.raw_output_contents).toHaveLength(1);
    expect(Buffer.from(res.raw_output_contents[0] as Uint8Array).equals(d.raw)).toBe(true);
    // Raw outputs carry their size, as the anchor's server sets it.
    expect(res.outputs[0]?.parameters).toMatchObject({ binary_data_size: { int64_param: String(d.raw.byteLength) } });
  });

  it('decodes BYTES raw length prefixes, including empty elements', async () => {
    const elements = [Buffer.from(''), Buffer.from('cat'), Buffer.from('')];
    const res = await c.infer({
      model_name: 'identity_bytes',
      inputs: [{ name: 'INPUT0', datatype: 'BYTES', shape: [1, 3] }],
      raw_input_contents: [bytesRaw(elements)],
    });
    const raw = Buffer.from(res.raw_output_contents[0] as Uint8Array);
    expect(raw.toString('hex')).toBe('00000000' + '03000000' + Buffer.from('cat').toString('hex') + '00000000');
  });

  it('returns FP16 outputs raw, with the exact bit patterns', async () => {
    const bits = Uint16Array.from([0x3c00, 0x3555, 0xfbff]);
    const res = await c.infer({
      model_name: 'identity_fp16',
      inputs: [{ name: 'INPUT0', datatype: 'FP16', shape: [1, 3] }],
      raw_input_contents: [Buffer.from(bits.buffer)],
    });
    const out = Uint8Array.from(res.raw_output_contents[0] as Uint8Array);
    expect(Array.from(new Uint16Array(out.buffer))).toEqual([0x3c00, 0x3555, 0xfbff]);
  });

  it('round-trips a 16 MiB raw FP32 tensor when the limits allow it', async () => {
    const n = 4 * MiB;
    const input = new Float32Array(n);
    for (let i = 0; i < n; i++) input[i] = i * 0.5 - 1000;
    const raw = Buffer.from(input.buffer);
    expect(raw.byteLength).toBe(16 * MiB);
    const res = await c.infer({
      model_name: 'identity_fp32',
      inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, n] }],
      raw_input_contents: [raw],
    });
    expect(res.outputs[0]?.shape).toEqual(['1', String(n)]);
    expect(Buffer.from(res.raw_output_contents[0] as Uint8Array).equals(raw)).toBe(true);
  });
});

describe('ModelInfer semantics', () => {
  const a = Array.from({ length: 16 }, (_, i) => i + 0.5);
  const b = Array.from({ length: 16 }, (_, i) => 2 * i);
  const addSubTyped = (extra: object = {}) => ({
    model_name: 'add_sub',
    inputs: [
      { name: 'INPUT0', datatype: 'FP32', shape: [1, 16], contents: { fp32_contents: a } },
      { name: 'INPUT1', datatype: 'FP32', shape: [1, 16], contents: { fp32_contents: b } },
    ],
    ...extra,
  });
  const addSubRaw = (extra: object = {}) => ({
    model_name: 'add_sub',
    inputs: [
      { name: 'INPUT0', datatype: 'FP32', shape: [1, 16] },
      { name: 'INPUT1', datatype: 'FP32', shape: [1, 16] },
    ],
    raw_input_contents: [f32(a), f32(b)],
    ...extra,
  });

  it('echoes the request id and answers with the model name and version', async () => {
    const res = await c.infer(addSubTyped({ id: 'req-42' }));
    expect(res.id).toBe('req-42');
    expect(res.model_name).toBe('add_sub');
    expect(res.outputs.map((o) => o.name)).toEqual(['OUTPUT0', 'OUTPUT1']);
    expect(res.outputs[0]?.contents?.fp32_contents).toEqual(a.map((x, i) => x + (b[i] as number)));
    expect(res.outputs[1]?.contents?.fp32_contents).toEqual(a.map((x, i) => x - (b[i] as number)));
  });

  it('generates an id when the request has none', async () => {
    const res = await c.infer(addSubTyped());
    expect(res.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('returns only the requested outputs, in the requested order (typed and raw)', async () => {
    const typed = await c.infer(addSubTyped({ outputs: [{ name: 'OUTPUT1' }, { name: 'OUTPUT0' }] }));
    expect(typed.outputs.map((o) => o.name)).toEqual(['OUTPUT1', 'OUTPUT0']);
    expect(typed.outputs[0]?.contents?.fp32_contents).toEqual(a.map((x, i) => x - (b[i] as number)));

    const raw = await c.infer(addSubRaw({ outputs: [{ name: 'OUTPUT1' }] }));
    expect(raw.outputs.map((o) => o.name)).toEqual(['OUTPUT1']);
    expect(raw.raw_output_contents).toHaveLength(1);
    expect(fromF32(raw.raw_output_contents[0] as Uint8Array)).toEqual(a.map((x, i) => x - (b[i] as number)));
  });

  it('accepts request, input and output parameters of every kind', async () => {
    const params = {
      flag: { bool_param: true },
      count: { int64_param: '-9007199254740993' },
      label: { string_param: 'x' },
      ratio: { double_param: 0.25 },
      big: { uint64_param: '18446744073709551615' },
    };
    const req = addSubTyped({ parameters: params, outputs: [{ name: 'OUTPUT0', parameters: { label: { string_param: 'y' } } }] });
    (req.inputs[0] as Record<string, unknown>)['parameters'] = { note: { string_param: 'n' } };
    const res = await c.infer(req);
    expect(res.outputs.map((o) => o.name)).toEqual(['OUTPUT0']);
  });

  it('routes model_version to that version; empty means the default (highest)', async () => {
    const req = (version: string) => ({
      model_name: 'versioned',
      model_version: version,
      inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 2], contents: { fp32_contents: [1, 3] } }],
    });
    const v1 = await c.infer(req('1'));
    expect([v1.model_version, v1.outputs[0]?.contents?.fp32_contents]).toEqual(['1', [1, 3]]);
    const v2 = await c.infer(req('2'));
    expect([v2.model_version, v2.outputs[0]?.contents?.fp32_contents]).toEqual(['2', [2, 6]]);
    const dflt = await c.infer(req(''));
    expect(dflt.model_version).toBe('2');
    const err = await grpcError(c.infer(req('3')));
    expect([err.code, err.details]).toEqual([grpc.status.NOT_FOUND, 'Model with name versioned and version 3 does not exist.']);
  });

  it('counts requests by model and status in the metrics', async () => {
    await grpcError(c.infer({ model_name: 'no_such_model' }));
    await grpcError(c.infer({ model_name: 'add_sub', inputs: [] }));
    const text = await t.server.metrics.render();
    expect(text).toMatch(/kserve_inference_requests_total\{model_name="add_sub",protocol="grpc",status_code="200"\} \d+/);
    expect(text).toMatch(/kserve_inference_requests_total\{model_name="add_sub",protocol="grpc",status_code="400"\} [1-9]/);
    // Names of models that do not exist come from clients: they must not create series.
    expect(text).not.toContain('no_such_model');
    expect(text).toMatch(/request_preprocess_seconds_count\{model_name="add_sub"\} [1-9]/);
    expect(text).toMatch(/request_postprocess_seconds_count\{model_name="add_sub"\} [1-9]/);
  });
});

describe('ModelInfer errors', () => {
  const fp32Input = (extra: object = {}) => ({ name: 'INPUT0', datatype: 'FP32', shape: [1, 2], ...extra });
  const cases: Array<[string, object, number, RegExp | string]> = [
    ['unknown model', { model_name: 'nope', inputs: [] }, grpc.status.NOT_FOUND, 'Model with name nope does not exist.'],
    [
      'fewer raw_input_contents than inputs',
      {
        model_name: 'add_sub',
        inputs: [
          { name: 'INPUT0', datatype: 'FP32', shape: [1, 16] },
          { name: 'INPUT1', datatype: 'FP32', shape: [1, 16] },
        ],
        raw_input_contents: [Buffer.alloc(64)],
      },
      grpc.status.INVALID_ARGUMENT,
      "raw_input_contents has 1 entries but the request has 2 inputs; send one entry per input, in the order of 'inputs'",
    ],
    [
      'an input mixing contents and raw_input_contents',
      {
        model_name: 'identity_fp32',
        inputs: [fp32Input({ contents: { fp32_contents: [1, 2] } })],
        raw_input_contents: [f32([1, 2])],
      },
      grpc.status.INVALID_ARGUMENT,
      "input 'INPUT0' sets contents although the request uses raw_input_contents; use raw_input_contents or contents for all inputs, not both",
    ],
    [
      'a raw size that does not match shape × datatype',
      { model_name: 'identity_fp32', inputs: [fp32Input()], raw_input_contents: [Buffer.alloc(7)] },
      grpc.status.INVALID_ARGUMENT,
      "input 'INPUT0': expected 8 bytes of FP32 data for shape [1,2] but got 7",
    ],
    [
      'a BYTES element longer than the data left',
      {
        model_name: 'identity_bytes',
        inputs: [{ name: 'INPUT0', datatype: 'BYTES', shape: [1, 1] }],
        raw_input_contents: [Buffer.from([100, 0, 0, 0, 97, 98])],
      },
      grpc.status.INVALID_ARGUMENT,
      "input 'INPUT0': BYTES element 0 declares 100 bytes but only 2 remain",
    ],
    [
      'a truncated BYTES length prefix',
      {
        model_name: 'identity_bytes',
        inputs: [{ name: 'INPUT0', datatype: 'BYTES', shape: [1, 2] }],
        raw_input_contents: [Buffer.from([2, 0, 0, 0, 97, 98, 1, 0])],
      },
      grpc.status.INVALID_ARGUMENT,
      /BYTES data ends after 1 of 2 elements/,
    ],
    [
      'a datatype the model does not take',
      { model_name: 'identity_fp32', inputs: [{ name: 'INPUT0', datatype: 'INT32', shape: [1, 2], contents: { int_contents: [1, 2] } }] },
      grpc.status.INVALID_ARGUMENT,
      "input 'INPUT0': datatype INT32 does not match the model's FP32",
    ],
    [
      'an unknown datatype',
      { model_name: 'identity_fp32', inputs: [{ name: 'INPUT0', datatype: 'FLOAT', shape: [1, 2] }] },
      grpc.status.INVALID_ARGUMENT,
      'input \'INPUT0\': invalid datatype "FLOAT"',
    ],
    [
      'typed contents that do not match the shape',
      { model_name: 'identity_fp32', inputs: [fp32Input({ contents: { fp32_contents: [1, 2, 3] } })] },
      grpc.status.INVALID_ARGUMENT,
      "input 'INPUT0': shape [1,2] has 2 elements but fp32_contents has 3",
    ],
    [
      "typed contents in another datatype's field",
      { model_name: 'identity_fp32', inputs: [fp32Input({ contents: { fp64_contents: [1, 2] } })] },
      grpc.status.INVALID_ARGUMENT,
      "input 'INPUT0': FP32 data belongs in fp32_contents, but the request set fp64_contents",
    ],
    [
      'FP16 sent as typed contents',
      { model_name: 'identity_fp16', inputs: [{ name: 'INPUT0', datatype: 'FP16', shape: [1, 1] }] },
      grpc.status.INVALID_ARGUMENT,
      "input 'INPUT0': FP16 has no typed contents field; send its data in raw_input_contents",
    ],
    [
      'an INT8 value out of range',
      { model_name: 'identity_int8', inputs: [{ name: 'INPUT0', datatype: 'INT8', shape: [1, 2], contents: { int_contents: [1, 300] } }] },
      grpc.status.INVALID_ARGUMENT,
      "input 'INPUT0': element 1 (300) is out of range for INT8",
    ],
    [
      'a shape that does not fit the model',
      { model_name: 'add_sub', inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 2], contents: { fp32_contents: [1, 2] } }] },
      grpc.status.INVALID_ARGUMENT,
      "input 'INPUT0': shape [1,2] does not match the model's [-1,16] (-1 is any size)",
    ],
    [
      'an unknown requested output',
      {
        model_name: 'identity_fp32',
        inputs: [fp32Input({ contents: { fp32_contents: [1, 2] } })],
        outputs: [{ name: 'OUTPUT9' }],
      },
      grpc.status.INVALID_ARGUMENT,
      /^Unexpected inference output 'OUTPUT9' for model identity_fp32/,
    ],
    [
      'a parameter without a value',
      { model_name: 'identity_fp32', parameters: { empty: {} }, inputs: [fp32Input({ contents: { fp32_contents: [1, 2] } })] },
      grpc.status.INVALID_ARGUMENT,
      /^request: parameter 'empty' has no value/,
    ],
    [
      'inputs that give the dimension both are declared with two sizes (add_sub [batch,16]: [2,16] and [3,16])',
      {
        model_name: 'add_sub',
        inputs: [
          { name: 'INPUT0', datatype: 'FP32', shape: [2, 16], contents: { fp32_contents: new Array(32).fill(1) } },
          { name: 'INPUT1', datatype: 'FP32', shape: [3, 16], contents: { fp32_contents: new Array(48).fill(1) } },
        ],
      },
      grpc.status.INVALID_ARGUMENT,
      "input 'INPUT1' has 3 along dimension 'batch' (axis 0) but input 'INPUT0' has 2 (axis 0): the model gives them one size",
    ],
    [
      'inputs only the runtime finds it cannot combine (add_free_dims: [2,16] and [3,16])',
      {
        model_name: 'add_free_dims',
        inputs: [
          { name: 'INPUT0', datatype: 'FP32', shape: [2, 16], contents: { fp32_contents: new Array(32).fill(1) } },
          { name: 'INPUT1', datatype: 'FP32', shape: [3, 16], contents: { fp32_contents: new Array(48).fill(1) } },
        ],
      },
      grpc.status.INTERNAL,
      /./,
    ],
  ];

  it.each(cases)('rejects %s', async (_, request, code, message) => {
    const err = await grpcError(c.infer(request));
    expect(grpc.status[err.code]).toBe(grpc.status[code]);
    if (typeof message === 'string') expect(err.details).toBe(message);
    else expect(err.details).toMatch(message);
    // Never a stack trace.
    expect(err.details).not.toMatch(/\n\s+at /);
  });
});
