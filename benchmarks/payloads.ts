/**
 * The requests every benchmark sends: one FP32 input tensor, encoded once up front for each
 * protocol (V2 JSON, V2 binary extension, gRPC typed contents, gRPC raw contents), and a
 * `Probe` per protocol that checks one answer and then drives load at a given concurrency.
 */
import type { ModelInferRequestMessage } from '../protocols/grpc/messages.js';
import { CALLS_PER_CONNECTION, type InferConnections, encodeInfer, inferConnections } from './grpc/pre-encoded-client.js';
import { type LoadResult, closedLoop, runLoad } from './load.js';

/** A model and the shape of the one FP32 input each request carries. */
export interface TensorSpec {
  readonly model: string;
  readonly input: string;
  readonly shape: readonly number[];
}

export interface HttpPayload {
  readonly path: string;
  readonly body: Buffer | string;
  readonly headers: Record<string, string>;
}

/** Deterministic values in [0, 1) for a tensor of `shape`. */
export function sampleData(shape: readonly number[]): Float32Array {
  const n = shape.reduce((a, b) => a * b, 1);
  return new Float32Array(n).map((_, i) => ((i * 7919) % 255) / 255);
}

const inferPath = (t: TensorSpec) => `/v2/models/${t.model}/infer`;

export function v2Json(t: TensorSpec, data: Float32Array): HttpPayload {
  return {
    path: inferPath(t),
    body: JSON.stringify({ inputs: [{ name: t.input, shape: t.shape, datatype: 'FP32', data: Array.from(data) }] }),
    headers: { 'content-type': 'application/json' },
  };
}

/** The binary extension in both directions: raw input bytes after the JSON header, binary outputs. */
export function v2Binary(t: TensorSpec, data: Float32Array): HttpPayload {
  const header = Buffer.from(
    JSON.stringify({
      inputs: [{ name: t.input, shape: t.shape, datatype: 'FP32', parameters: { binary_data_size: data.byteLength } }],
      parameters: { binary_data_output: true },
    }),
  );
  return {
    path: inferPath(t),
    body: Buffer.concat([header, Buffer.from(data.buffer, data.byteOffset, data.byteLength)]),
    headers: { 'content-type': 'application/octet-stream', 'inference-header-content-length': String(header.byteLength) },
  };
}

export function grpcTyped(t: TensorSpec, data: Float32Array): ModelInferRequestMessage {
  return { model_name: t.model, inputs: [{ name: t.input, datatype: 'FP32', shape: [...t.shape], contents: { fp32_contents: Array.from(data) } }] };
}

export function grpcRaw(t: TensorSpec, data: Float32Array): ModelInferRequestMessage {
  return {
    model_name: t.model,
    inputs: [{ name: t.input, datatype: 'FP32', shape: [...t.shape] }],
    raw_input_contents: [Buffer.from(data.buffer, data.byteOffset, data.byteLength)],
  };
}

export const PROTOCOLS = ['V2 JSON', 'V2 binary', 'gRPC typed', 'gRPC raw'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

/** One protocol's prepared request against one server. */
export interface Probe {
  readonly protocol: Protocol;
  /** Sends the request once; rejects unless the server answered it successfully. */
  check(): Promise<void>;
  load(concurrency: number, seconds: number): Promise<LoadResult>;
}

/**
 * A probe for each protocol (gRPC ones only when `grpcPort` is set) sending `data` as `t`
 * to the server at `base` (`adjust.binary` may rewrite the binary request). HTTP load runs through autocannon; gRPC load through
 * pre-encoded calls on as many HTTP/2 connections as `CALLS_PER_CONNECTION` calls per
 * connection need, opened for the run and closed after it.
 */
export function probes(server: { base: string; grpcPort: number }, t: TensorSpec, data: Float32Array, adjust: { binary?: (p: HttpPayload) => HttpPayload } = {}): Probe[] {
  const http = (protocol: Protocol, p: HttpPayload): Probe => ({
    protocol,
    check: async () => {
      const r = await fetch(`${server.base}${p.path}`, { method: 'POST', body: p.body, headers: p.headers });
      const text = await r.text();
      if (r.status !== 200) throw new Error(`${protocol} ${t.model}: HTTP ${r.status} ${text.slice(0, 200)}`);
    },
    load: (connections, seconds) => runLoad({ name: protocol, url: `${server.base}${p.path}`, method: 'POST', body: p.body, headers: p.headers, connections, seconds }),
  });
  const binary = v2Binary(t, data);
  const out = [http('V2 JSON', v2Json(t, data)), http('V2 binary', adjust.binary?.(binary) ?? binary)];
  if (server.grpcPort === 0) return out;
  const address = `127.0.0.1:${server.grpcPort}`;
  const withConnections = async <T>(n: number, body: (c: InferConnections) => Promise<T>): Promise<T> => {
    const c = inferConnections(address, n);
    try {
      return await body(c);
    } finally {
      c.close();
    }
  };
  const grpc = (protocol: Protocol, message: Buffer): Probe => ({
    protocol,
    check: () =>
      withConnections(1, async (c) => {
        await c.call(message).catch((e: Error) => {
          throw new Error(`${protocol} ${t.model}: ${e.message}`);
        });
      }),
    load: (concurrency, seconds) => withConnections(Math.ceil(concurrency / CALLS_PER_CONNECTION), (c) => closedLoop(protocol, concurrency, seconds, () => c.call(message))),
  });
  out.push(grpc('gRPC typed', encodeInfer(grpcTyped(t, data))), grpc('gRPC raw', encodeInfer(grpcRaw(t, data))));
  return out;
}
