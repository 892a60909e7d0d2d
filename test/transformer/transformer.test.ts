/**
 * Transformer mode end to end on loopback: the example transformer
 * (examples/transformer/iris-transformer.ts, served with --model_module and the
 * --predictor_* flags) in front of our ONNX iris predictor, forwarding over V1, V2 REST and
 * V2 gRPC. Its answers carry the same numbers as asking the predictor directly with the
 * converted measurements, whichever protocol the client and the hop speak.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, post } from '../helpers/http.js';
import { IRIS_DIR, ROOT, type TestServer, startServer } from '../helpers/server.js';
import { type GrpcTestClient, grpcClient } from '../grpc/client.js';
import path from 'node:path';
import { pino } from 'pino';
import { Model, ModelServer } from '../../server/sdk/index.js';

const MODULE = path.join(ROOT, 'examples/transformer/iris-transformer.ts');
const MM = [
  [51, 35, 14, 2],
  [68, 28, 48, 14],
  [77, 30, 61, 23],
];
const CM = MM.map((r) => r.map((v) => v / 10));
const SPECIES = ['setosa', 'versicolor', 'virginica'];

interface V2Output {
  name: string;
  shape: number[];
  datatype: string;
  data: unknown[];
}

let predictor: TestServer;
let direct: { probabilities: number[]; labels: number[] };

beforeAll(async () => {
  predictor = await startServer(['--model_name', 'iris', '--model_dir', IRIS_DIR], { grpc: true });
  const r = await post(`${predictor.url}/v2/models/iris/infer`, { inputs: [{ name: 'input', shape: [3, 4], datatype: 'FP32', data: CM.flat() }] });
  const outputs = (json(r) as { outputs: V2Output[] }).outputs;
  direct = {
    probabilities: outputs.find((o) => o.name === 'probabilities')?.data as number[],
    labels: outputs.find((o) => o.name === 'label')?.data as number[],
  };
  expect(direct.labels).toEqual([0, 1, 2]);
});
afterAll(() => predictor?.close());

const HOPS = [
  { protocol: 'v1', target: () => predictor.url.replace('http://', '') },
  { protocol: 'v2', target: () => predictor.url.replace('http://', '') },
  { protocol: 'grpc-v2', target: () => predictor.grpcAddress as string },
] as const;

describe.each(HOPS)('transformer → predictor over $protocol', ({ protocol, target }) => {
  let transformer: TestServer;
  let grpc: GrpcTestClient;
  beforeAll(async () => {
    transformer = await startServer(['--model_name', 'iris', '--model_module', MODULE, '--predictor_host', target(), '--predictor_protocol', protocol], { grpc: true });
    grpc = grpcClient(transformer.grpcAddress as string);
  });
  afterAll(async () => {
    grpc?.close();
    await transformer?.close();
  });

  it('V2 REST: species and, over V2 hops, the predictor’s own probabilities', async () => {
    const r = await post(`${transformer.url}/v2/models/iris/infer`, { id: 'req-1', inputs: [{ name: 'measurements_mm', shape: [3, 4], datatype: 'FP32', data: MM.flat() }] });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-iris-rows')).toBe('3');
    const doc = json(r) as { id: string; model_name: string; outputs: V2Output[] };
    expect(doc.model_name).toBe('iris');
    expect(doc.id).toBe('req-1');
    expect(doc.outputs.find((o) => o.name === 'species')?.data).toEqual(SPECIES);
    const probabilities = doc.outputs.find((o) => o.name === 'probabilities');
    if (protocol === 'v1') expect(probabilities).toBeUndefined();
    else expect(probabilities?.data).toEqual(direct.probabilities);
  });

  it('V1: instances in, species names out', async () => {
    const r = await post(`${transformer.url}/v1/models/iris:predict`, { instances: MM });
    expect(r.status).toBe(200);
    expect(json(r)).toEqual({ predictions: SPECIES });
  });

  it('gRPC ModelInfer into the transformer', async () => {
    const res = await grpc.infer({
      model_name: 'iris',
      inputs: [{ name: 'measurements_mm', datatype: 'FP32', shape: [3, 4], contents: { fp32_contents: MM.flat() } }],
    });
    const species = res.outputs.find((o) => o.name === 'species');
    expect(species).toBeDefined();
    const i = res.outputs.indexOf(species as (typeof res.outputs)[number]);
    const names = species?.contents?.bytes_contents?.length
      ? species.contents.bytes_contents.map((b) => Buffer.from(b).toString())
      : rawStrings(res.raw_output_contents[i] as Uint8Array);
    expect(names).toEqual(SPECIES);
  });

  it('bad input is refused by the transformer with 400, before any hop', async () => {
    const r = await post(`${transformer.url}/v2/models/iris/infer`, { inputs: [{ name: 'measurements_mm', shape: [1, 4], datatype: 'FP32', data: [-1, 2, 3, 4] }] });
    expect(r.status).toBe(400);
    expect((json(r) as { error: string }).error).toMatch(/non-negative|between 0 and/);
  });
});

describe('a Model built by code with { predictor }, served by ModelServer', () => {
  it.each(['v1', 'v2', 'grpc-v2'] as const)('forwards over %s with no hook of its own: the predictor’s answer as it gives it', async (protocol) => {
    const host = protocol === 'grpc-v2' ? (predictor.grpcAddress as string) : predictor.url.replace('http://', '');
    const model = new Model('iris', { predictor: { host, protocol, requestTimeoutSeconds: 30 } });
    expect(model.predictorConfig?.host).toBe(host);
    const server = new ModelServer({ httpPort: 0, enableGrpc: false, httpHost: '127.0.0.1', logger: pino({ level: 'silent' }) });
    await server.start([model]);
    try {
      const r = await post(`http://127.0.0.1:${server.httpPort}/v2/models/iris/infer`, { inputs: [{ name: 'input', shape: [3, 4], datatype: 'FP32', data: CM.flat() }] });
      expect(r.status).toBe(200);
      const outputs = (json(r) as { outputs: V2Output[] }).outputs;
      if (protocol === 'v1') expect(outputs).toEqual([expect.objectContaining({ name: 'predictions', datatype: 'FP64', shape: [3], data: direct.labels })]);
      else {
        expect(outputs.find((o) => o.name === 'probabilities')?.data).toEqual(direct.probabilities);
        expect(outputs.find((o) => o.name === 'label')?.data).toEqual(direct.labels);
      }
    } finally {
      await server.stop();
    }
  });

  it('without a predictor, the default predict is NotImplemented (501), as KServe', async () => {
    const server = new ModelServer({ httpPort: 0, enableGrpc: false, httpHost: '127.0.0.1', logger: pino({ level: 'silent' }) });
    await server.start([new Model('plain')]);
    try {
      const r = await post(`http://127.0.0.1:${server.httpPort}/v2/models/plain/infer`, { inputs: [{ name: 'x', shape: [1], datatype: 'FP32', data: [1] }] });
      expect(r.status).toBe(501);
      expect((json(r) as { error: string }).error).toMatch(/does not implement predict/);
    } finally {
      await server.stop();
    }
  });
});

/** BYTES elements of a raw tensor: 4-byte little-endian length, then the bytes. */
function rawStrings(raw: Uint8Array): string[] {
  const b = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  const out: string[] = [];
  for (let at = 0; at < b.length;) {
    const n = b.readUInt32LE(at);
    out.push(b.subarray(at + 4, at + 4 + n).toString());
    at += 4 + n;
  }
  return out;
}
