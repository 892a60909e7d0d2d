/**
 * The cross-protocol check: one add_sub request over V2 REST JSON, V2 REST with the binary
 * tensor extension, and gRPC with typed and with raw contents gives the same numbers.
 */
import { expect, it } from 'vitest';
import { useGrpcFixture } from '../helpers/grpc-fixture.js';

const f = useGrpcFixture({ add_sub: 'add_sub' });

// Values that are not exact in binary floating point, so any precision loss would show.
const A = Float32Array.from({ length: 32 }, (_, i) => Math.fround(i * 0.1 - 1.3));
const B = Float32Array.from({ length: 32 }, (_, i) => Math.fround(1 / (i + 3)));
const SHAPE = [2, 16];

type Outputs = Record<string, number[]>;

async function restJson(): Promise<Outputs> {
  const res = await fetch(`${f.server.url}/v2/models/add_sub/infer`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      inputs: [
        { name: 'INPUT0', datatype: 'FP32', shape: SHAPE, data: Array.from(A) },
        { name: 'INPUT1', datatype: 'FP32', shape: SHAPE, data: Array.from(B) },
      ],
    }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { outputs: Array<{ name: string; shape: number[]; data: number[] }> };
  return Object.fromEntries(body.outputs.map((o) => [o.name, o.data]));
}

async function restBinary(): Promise<Outputs> {
  const header = Buffer.from(
    JSON.stringify({
      inputs: [
        { name: 'INPUT0', datatype: 'FP32', shape: SHAPE, parameters: { binary_data_size: A.byteLength } },
        { name: 'INPUT1', datatype: 'FP32', shape: SHAPE, parameters: { binary_data_size: B.byteLength } },
      ],
      parameters: { binary_data_output: true },
    }),
  );
  const res = await fetch(`${f.server.url}/v2/models/add_sub/infer`, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream', 'inference-header-content-length': String(header.byteLength) },
    body: Buffer.concat([header, Buffer.from(A.buffer), Buffer.from(B.buffer)]),
  });
  expect(res.status).toBe(200);
  const body = Buffer.from(await res.arrayBuffer());
  const jsonLength = Number(res.headers.get('inference-header-content-length'));
  const doc = JSON.parse(body.subarray(0, jsonLength).toString()) as {
    outputs: Array<{ name: string; parameters: { binary_data_size: number } }>;
  };
  let offset = jsonLength;
  const out: Outputs = {};
  for (const o of doc.outputs) {
    const size = o.parameters.binary_data_size;
    out[o.name] = Array.from(new Float32Array(Uint8Array.from(body.subarray(offset, offset + size)).buffer));
    offset += size;
  }
  expect(offset).toBe(body.byteLength);
  return out;
}

async function grpcTyped(): Promise<Outputs> {
  const res = await f.client.infer({
    model_name: 'add_sub',
    inputs: [
      { name: 'INPUT0', datatype: 'FP32', shape: SHAPE, contents: { fp32_contents: Array.from(A) } },
      { name: 'INPUT1', datatype: 'FP32', shape: SHAPE, contents: { fp32_contents: Array.from(B) } },
    ],
  });
  return Object.fromEntries(res.outputs.map((o) => [o.name, Array.from(o.contents?.fp32_contents ?? [])]));
}

async function grpcRaw(): Promise<Outputs> {
  const res = await f.client.infer({
    model_name: 'add_sub',
    inputs: [
      { name: 'INPUT0', datatype: 'FP32', shape: SHAPE },
      { name: 'INPUT1', datatype: 'FP32', shape: SHAPE },
    ],
    raw_input_contents: [Buffer.from(A.buffer), Buffer.from(B.buffer)],
  });
  return Object.fromEntries(res.outputs.map((o, i) => [o.name, Array.from(new Float32Array(Uint8Array.from(res.raw_output_contents[i] as Uint8Array).buffer))]));
}

it('gives the same numbers over REST JSON, REST binary, gRPC typed and gRPC raw', async () => {
  const expected: Outputs = {
    OUTPUT0: Array.from(A, (a, i) => Math.fround(a + (B[i] as number))),
    OUTPUT1: Array.from(A, (a, i) => Math.fround(a - (B[i] as number))),
  };
  const results = {
    'REST JSON': await restJson(),
    'REST binary': await restBinary(),
    'gRPC typed': await grpcTyped(),
    'gRPC raw': await grpcRaw(),
  };
  for (const [protocol, outputs] of Object.entries(results)) {
    expect({ protocol, outputs }).toEqual({ protocol, outputs: expected });
  }
});
