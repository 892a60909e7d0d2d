/**
 * The tensorflow backend through a real server on loopback, on every available path: the
 * portable path (TF.js graph models on WASM) always, the native path (SavedModels through
 * tfjs-node) when its binding is installed (scripts/build-tfjs-node.sh). The same requests
 * run against both, over V1 (TF Serving's dialect), V2 JSON, V2 binary and gRPC.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GrpcTestClient, grpcClient, grpcError, grpc } from '../../../test/grpc/client.js';
import { bytesOf, bytesTensor, expectError, get, json, post, postBinary, splitBinaryResponse } from '../../../test/helpers/http.js';
import { type TestServer, makeRepository, startServer } from '../../../test/helpers/server.js';
import { nativeStatus } from './tf-backend.js';
import { expected, tfRepository } from './tf-fixtures.test-helper.js';
import { listFiles } from '../../backend/backend-registry.js';

const native = nativeStatus();
const PATHS = [
  { path: 'portable', platform: 'tensorflow_tfjs', suffix: '_tfjs', enabled: true },
  { path: 'native', platform: 'tensorflow_savedmodel', suffix: '', enabled: native.available },
] as const;

type V2Out = { name: string; datatype: string; shape: number[]; data: unknown[] };
const outputsOf = (r: { text: string }) => (JSON.parse(r.text) as { outputs: V2Out[] }).outputs;

function expectClose(actual: unknown, want: number[][] | number[], digits = 5): void {
  const a = (actual as unknown[]).flat(2) as number[];
  const w: number[] = want.flat(2);
  expect(a).toHaveLength(w.length);
  w.forEach((v, i) => expect(a[i]).toBeCloseTo(v, digits));
}

const B64_BIN = Buffer.from([0xff, 0x00, 0x62, 0x69, 0x6e]); // "\xff\x00bin": not UTF-8

for (const p of PATHS) {
  describe.skipIf(!p.enabled)(`tensorflow backend, ${p.path} path`, () => {
    let s: TestServer;
    let repo: ReturnType<typeof tfRepository>;
    let c: GrpcTestClient;
    const url = (model: string, verb = '') => `${s.url}/v1/models/${model}${verb}`;
    beforeAll(async () => {
      repo = tfRepository({
        dense: `dense_classifier${p.suffix}`,
        multi: `multi_io${p.suffix}`,
        strings: `string_input${p.suffix}`,
        two: `two_signatures${p.suffix}`,
      });
      s = await startServer(['--model_repository', repo.dir], { grpc: true });
      c = grpcClient(s.grpcAddress as string);
    });
    afterAll(async () => {
      c?.close();
      await s?.close();
      repo?.cleanup();
    });

    describe('V2', () => {
      it('metadata describes the default signature with V2 datatypes and shapes', async () => {
        expect(json(await get(`${s.url}/v2/models/dense`))).toMatchObject({
          name: 'dense',
          platform: p.platform,
          inputs: [{ name: 'x', datatype: 'FP32', shape: [-1, 4] }],
          outputs: [{ name: 'probabilities', datatype: 'FP32', shape: [-1, 3] }],
        });
        const multi = json(await get(`${s.url}/v2/models/multi`)) as { inputs: unknown[]; outputs: Array<{ name: string }> };
        expect(multi.inputs).toEqual([
          { name: 'a', datatype: 'FP32', shape: [-1, 3] },
          { name: 'b', datatype: 'FP32', shape: [-1, 3] },
        ]);
        expect(multi.outputs.map((o) => o.name).sort()).toEqual(['dot', 'sum']);
        expect(json(await get(`${s.url}/v2/models/strings`))).toMatchObject({ inputs: [{ name: 'text', datatype: 'BYTES', shape: [-1] }] });
      });

      it('JSON inference gives the numbers TensorFlow computes', async () => {
        const r = await post(`${s.url}/v2/models/dense/infer`, { inputs: [{ name: 'x', datatype: 'FP32', shape: [2, 4], data: expected.x.flat() }] });
        expect(r.status).toBe(200);
        const [out] = outputsOf(r);
        expect(out).toMatchObject({ name: 'probabilities', datatype: 'FP32', shape: [2, 3] });
        expectClose(out?.data, expected.probabilities);
      });

      it('binary-extension inference, FP32 in and out', async () => {
        const x = Float32Array.from(expected.x.flat());
        const r = await postBinary(
          `${s.url}/v2/models/dense/infer`,
          { inputs: [{ name: 'x', datatype: 'FP32', shape: [2, 4], parameters: { binary_data_size: x.byteLength } }], parameters: { binary_data_output: true } },
          [bytesOf(x)],
        );
        expect(r.status).toBe(200);
        const raw = splitBinaryResponse(r).raw.get('probabilities') as Buffer;
        expectClose(Array.from(new Float32Array(Uint8Array.from(raw).buffer)), expected.probabilities);
      });

      it('BYTES inputs are tf.string; INT64 outputs keep their type', async () => {
        const r = await postBinary(
          `${s.url}/v2/models/strings/infer`,
          { inputs: [{ name: 'text', datatype: 'BYTES', shape: [2], parameters: { binary_data_size: 18 } }], outputs: [{ name: 'bucket' }] },
          [bytesTensor(['hello', B64_BIN])],
        );
        expect(r.status).toBe(200);
        expect(outputsOf(r)).toEqual(
          [{ name: 'bucket', datatype: 'INT64', shape: [2], data: expected.bucket, parameters: null }].map(({ parameters, ...o }) => expect.objectContaining(o)),
        );
        const j = await post(`${s.url}/v2/models/strings/infer`, {
          inputs: [{ name: 'text', datatype: 'BYTES', shape: [1], data: ['hello'] }],
          outputs: [{ name: 'echo_bytes' }],
        });
        expect(outputsOf(j)[0]).toMatchObject({ name: 'echo_bytes', datatype: 'BYTES', shape: [1], data: ['hello'] });
      });

      it('the signature_name parameter selects a signature; an unknown one is a 400', async () => {
        const body = (params?: object) => ({ inputs: [{ name: 'x', datatype: 'FP32', shape: [2, 4], data: expected.x.flat() }], ...(params ? { parameters: params } : {}) });
        const r = await post(`${s.url}/v2/models/two/infer`, body({ signature_name: 'logits' }));
        expect(r.status).toBe(200);
        expect(outputsOf(r).map((o) => o.name)).toEqual(['logits']);
        expectClose(outputsOf(r)[0]?.data, expected.logits);
        const d = await post(`${s.url}/v2/models/two/infer`, body({ signature_name: 'serving_default' }));
        expectClose(outputsOf(d)[0]?.data, expected.probabilities);
        expectError(await post(`${s.url}/v2/models/two/infer`, body({ signature_name: 'nope' })), 400, /Serving signature name: "nope" not found/);
      });

      it('requested outputs are checked against the selected signature, not the default', async () => {
        const x = [{ name: 'x', datatype: 'FP32', shape: [2, 4], data: expected.x.flat() }];
        const r = await post(`${s.url}/v2/models/two/infer`, { inputs: x, parameters: { signature_name: 'logits' }, outputs: [{ name: 'logits' }] });
        expect(r.status).toBe(200);
        expect(outputsOf(r).map((o) => o.name)).toEqual(['logits']);
        expectClose(outputsOf(r)[0]?.data, expected.logits);
        // 'logits' is no output of the default signature, and 'probabilities' none of 'logits'.
        expectError(await post(`${s.url}/v2/models/two/infer`, { inputs: x, outputs: [{ name: 'logits' }] }), 400, /Unexpected inference output 'logits'/);
        expectError(
          await post(`${s.url}/v2/models/two/infer`, { inputs: x, parameters: { signature_name: 'logits' }, outputs: [{ name: 'probabilities' }] }),
          400,
          /Unexpected inference output 'probabilities' for model two; model outputs: logits/,
        );
        expectError(
          await post(`${s.url}/v2/models/two/infer`, { inputs: x, parameters: { signature_name: 'nope' }, outputs: [{ name: 'logits' }] }),
          400,
          /Serving signature name: "nope" not found in signature def; signatures: serving_default, logits/,
        );
      });

      it('wrong input names and shapes are 400s naming the input', async () => {
        expectError(await post(`${s.url}/v2/models/dense/infer`, { inputs: [{ name: 'y', datatype: 'FP32', shape: [1, 4], data: [1, 2, 3, 4] }] }), 400, /Unexpected input 'y'/);
        expectError(await post(`${s.url}/v2/models/dense/infer`, { inputs: [{ name: 'x', datatype: 'FP32', shape: [1, 3], data: [1, 2, 3] }] }), 400, /input 'x': shape \[1,3\]/);
      });
    });

    describe('gRPC', () => {
      it('infers with typed contents and selects signatures by parameter', async () => {
        const request = (params?: Record<string, { string_param: string }>) => ({
          model_name: 'two',
          inputs: [{ name: 'x', datatype: 'FP32', shape: [2, 4], contents: { fp32_contents: expected.x.flat() } }],
          ...(params ? { parameters: params } : {}),
        });
        const d = await c.infer(request());
        expect(d.outputs.map((o) => o.name)).toEqual(['probabilities']);
        expectClose(d.outputs[0]?.contents?.fp32_contents, expected.probabilities);
        const l = await c.infer(request({ signature_name: { string_param: 'logits' } }));
        expectClose(l.outputs[0]?.contents?.fp32_contents, expected.logits);
        const e = await grpcError(c.infer(request({ signature_name: { string_param: 'nope' } })));
        expect(e.code).toBe(grpc.status.INVALID_ARGUMENT);
      });

      it('requested outputs of a non-default signature', async () => {
        const request = (signature: string, output: string) => ({
          model_name: 'two',
          inputs: [{ name: 'x', datatype: 'FP32', shape: [2, 4], contents: { fp32_contents: expected.x.flat() } }],
          parameters: { signature_name: { string_param: signature } },
          outputs: [{ name: output }],
        });
        const l = await c.infer(request('logits', 'logits'));
        expect(l.outputs.map((o) => o.name)).toEqual(['logits']);
        expectClose(l.outputs[0]?.contents?.fp32_contents, expected.logits);
        const wrong = await grpcError(c.infer(request('logits', 'probabilities')));
        expect([wrong.code, wrong.details]).toEqual([grpc.status.INVALID_ARGUMENT, expect.stringMatching(/Unexpected inference output 'probabilities'/)]);
        const unknown = await grpcError(c.infer(request('nope', 'logits')));
        expect([unknown.code, unknown.details]).toEqual([grpc.status.INVALID_ARGUMENT, expect.stringMatching(/Serving signature name: "nope" not found/)]);
      });
    });

    describe("V1 (TF Serving's dialect)", () => {
      it('row format: instances in, predictions out', async () => {
        const r = await post(url('dense', ':predict'), { instances: expected.x });
        expect(r.status).toBe(200);
        const body = json(r) as { predictions: number[][] };
        expect(Object.keys(body)).toEqual(['predictions']);
        expectClose(body.predictions, expected.probabilities);
        expect(body.predictions).toHaveLength(2);
      });

      it('columnar format: inputs in, outputs out', async () => {
        const r = await post(url('dense', ':predict'), { inputs: expected.x });
        const body = json(r) as { outputs: number[][] };
        expect(Object.keys(body)).toEqual(['outputs']);
        expectClose(body.outputs, expected.probabilities);
        const named = json(await post(url('dense', ':predict'), { inputs: { x: expected.x } })) as { outputs: number[][] };
        expectClose(named.outputs, expected.probabilities);
      });

      it('several inputs and outputs: objects per instance (row) or per tensor (columnar)', async () => {
        const row = json(
          await post(url('multi', ':predict'), {
            instances: [
              { a: [1, 2, 3], b: [1, 1, 1] },
              { a: [0, 1, 0], b: [2, 2, 2] },
            ],
          }),
        );
        expect(row).toEqual({
          predictions: [
            { sum: [2, 3, 4], dot: 6 },
            { sum: [2, 3, 2], dot: 2 },
          ].map((o) => expect.objectContaining(o)),
        });
        const col = json(await post(url('multi', ':predict'), { inputs: { a: [[1, 2, 3]], b: [[1, 1, 1]] } }));
        expect(col).toEqual({ outputs: expect.objectContaining({ sum: [[2, 3, 4]], dot: [6] }) });
      });

      it('binary strings travel as {"b64": ...}; *_bytes outputs come back that way', async () => {
        const r = await post(url('strings', ':predict'), { instances: ['hello', { b64: B64_BIN.toString('base64') }] });
        expect(r.status).toBe(200);
        const body = json(r) as { predictions: Array<{ echo_bytes: { b64: string }; bucket: number }> };
        expect(body.predictions.map((p) => Buffer.from(p.echo_bytes.b64, 'base64'))).toEqual([Buffer.from('hello'), B64_BIN]);
        expect(body.predictions.map((p) => p.bucket)).toEqual(expected.bucket);
        const col = json(await post(url('strings', ':predict'), { inputs: { text: [{ b64: 'aGVsbG8=' }] } })) as { outputs: { bucket: number[] } };
        expect(col.outputs.bucket).toEqual([expected.bucket[0]]);
        expectError(await post(url('strings', ':predict'), { instances: [{ b64: '%%%' }] }), 400, /not valid base64/);
      });

      it('signature_name selects a signature; an unknown one is a 400 {"error"}', async () => {
        const l = json(await post(url('two', ':predict'), { signature_name: 'logits', instances: expected.x })) as { predictions: number[][] };
        expectClose(l.predictions, expected.logits);
        const d = json(await post(url('two', ':predict'), { signature_name: 'serving_default', instances: expected.x })) as { predictions: number[][] };
        expectClose(d.predictions, expected.probabilities);
        expectError(await post(url('two', ':predict'), { signature_name: 'nope', instances: expected.x }), 400, /Serving signature name: "nope" not found in signature def/);
      });

      it('wrong input names, shapes and bodies are 400 {"error"}', async () => {
        expectError(await post(url('multi', ':predict'), { instances: [{ a: [1, 2, 3], c: [1, 1, 1] }] }), 400, /input 'c' is not in signature 'serving_default'/);
        expectError(await post(url('multi', ':predict'), { inputs: { a: [[1, 2, 3]] } }), 400, /requires input 'b'/);
        expectError(await post(url('dense', ':predict'), { instances: [[1, 2, 3]] }), 400, /input 'x': shape \[1,3\] does not match/);
        expectError(await post(url('dense', ':predict'), { instances: [[1, 2, 3, 4]], inputs: [[1, 2, 3, 4]] }), 400, /Only one of "instances" or "inputs"/);
        expectError(await post(url('dense', ':predict'), { rows: [] }), 400, /Missing "instances" or "inputs"/);
        expectError(await post(url('multi', ':predict'), { instances: [[1, 2, 3]] }), 400, /has 2 inputs/);
      });

      it('GET /v1/models/{name}/metadata gives the signature defs', async () => {
        const r = await get(url('two', '/metadata'));
        expect(r.status).toBe(200);
        const body = json(r) as {
          model_spec: object;
          metadata: { signature_def: { signature_def: Record<string, { inputs: Record<string, unknown>; outputs: Record<string, unknown>; method_name: string }> } };
        };
        // TF.js fixtures sit unversioned in their folder; the SavedModels under version 1.
        expect(body.model_spec).toEqual({ name: 'two', signature_name: '', version: p.path === 'native' ? '1' : '' });
        const defs = body.metadata.signature_def.signature_def;
        expect(Object.keys(defs).sort()).toEqual(['logits', 'serving_default']);
        expect(defs['serving_default']?.inputs['x']).toMatchObject({
          dtype: 'DT_FLOAT',
          tensor_shape: {
            dim: [
              { size: '-1', name: '' },
              { size: '4', name: '' },
            ],
            unknown_rank: false,
          },
        });
        expect(Object.keys(defs['logits']?.outputs ?? {})).toEqual(['logits']);
        expect(defs['serving_default']?.method_name).toBe('tensorflow/serving/predict');
        expect(json(await get(url('strings', '/metadata')))).toMatchObject({
          metadata: { signature_def: { signature_def: { serving_default: { inputs: { text: { dtype: 'DT_STRING' } } } } } },
        });
      });
    });
  });
}

describe('the V1 dialect is chosen per platform', () => {
  let s: TestServer;
  let repo: ReturnType<typeof makeRepository>;
  beforeAll(async () => {
    repo = makeRepository({ onnx: 'add_sub' });
    s = await startServer(['--model_repository', repo.dir]);
  });
  afterAll(async () => {
    await s?.close();
    repo?.cleanup();
  });

  it("ONNX models keep KServe's V1 behaviour and have no TF Serving metadata route", async () => {
    const ones = new Array<number>(16).fill(1);
    const r = await post(`${s.url}/v1/models/onnx:predict`, { instances: [{ INPUT0: ones, INPUT1: ones }] });
    expect(r.text).toBe(`{"predictions":[[${new Array<string>(16).fill('2.0').join(',')}]]}`);
    expectError(await get(`${s.url}/v1/models/onnx/metadata`), 404, /Route GET:\/v1\/models\/onnx\/metadata not found/);
  });
});

describe.skipIf(native.available)('without the native binding', () => {
  let s: TestServer;
  let repo: ReturnType<typeof tfRepository>;
  beforeAll(async () => {
    repo = tfRepository({ saved: 'dense_classifier', tfjs: 'dense_classifier_tfjs' });
    s = await startServer(['--model_repository', repo.dir]);
  });
  afterAll(async () => {
    await s?.close();
    repo?.cleanup();
  });

  it('a SavedModel fails its load saying why and what to do; TF.js models still serve', async () => {
    expectError(await get(`${s.url}/v2/models/saved/ready`), 503, /native TensorFlow path, which is unavailable: .*scripts\/build-tfjs-node\.sh|not installed/);
    expect((await get(`${s.url}/v2/models/tfjs/ready`)).status).toBe(200);
  });
});

describe.skipIf(!native.available)('native and portable paths agree', () => {
  let s: TestServer;
  let repo: ReturnType<typeof tfRepository>;
  beforeAll(async () => {
    repo = tfRepository({ saved: 'two_signatures', tfjs: 'two_signatures_tfjs' });
    s = await startServer(['--model_repository', repo.dir]);
  });
  afterAll(async () => {
    await s?.close();
    repo?.cleanup();
  });

  it('a SavedModel and the same network exported as TF.js give the same outputs, per signature', async () => {
    const x = Array.from({ length: 32 }, (_, i) => Array.from({ length: 4 }, (_, j) => Math.fround(Math.sin(i * 4 + j) * 3)));
    for (const signature_name of ['serving_default', 'logits']) {
      const [a, b] = await Promise.all(
        ['saved', 'tfjs'].map(async (m) => json(await post(`${s.url}/v1/models/${m}:predict`, { signature_name, instances: x })) as { predictions: number[][] }),
      );
      expect(a?.predictions).toHaveLength(32);
      expectClose(a?.predictions, b?.predictions ?? []);
    }
  });

  it('the load log names the path that serves each model and why', async () => {
    const { Writable } = await import('node:stream');
    const { pino } = await import('pino');
    const { tensorflowBackend } = await import('./tf-backend.js');
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, new Writable({ write: (c: Buffer, _e, cb) => (lines.push(c.toString()), cb()) }));
    for (const dir of [`${repo.dir}/saved/1`, `${repo.dir}/tfjs`]) {
      const file = (await tensorflowBackend.detect(dir, await listFiles(dir))) as string;
      const m = await tensorflowBackend.load({ modelName: 'm', version: undefined, dir, file, config: undefined }, { tags: ['serve'] }, { threads: 1, logger });
      await m.unload();
    }
    const msgs = lines.map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(msgs.some((m) => /loaded on the native path: SavedModel, served by libtensorflow through @tensorflow\/tfjs-node/.test(m))).toBe(true);
    expect(msgs.some((m) => /loaded on the portable path: TF\.js graph model, served by @tensorflow\/tfjs on its wasm backend/.test(m))).toBe(true);
  });
});
