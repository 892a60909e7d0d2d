/**
 * Tensor stacking and splitting along dim 0, for dynamic batching. Pure functions on the
 * neutral tensor types: no scheduling, no backend.
 */
import { datatypeInfo } from '../../protocols/datatypes.js';
import type { NumericArray, TensorData } from '../../protocols/datatypes.js';
import type { Parameters, Tensor } from '../../protocols/tensor.js';
import type { InferContext } from '../backend/backend.js';

/**
 * Rows of a request (its dim 0), or undefined when it cannot be batched: an input without a
 * batch dimension, or inputs that disagree on dim 0.
 */
export function batchRows(inputs: readonly Tensor[]): number | undefined {
  let rows: number | undefined;
  for (const t of inputs) {
    const d = t.shape[0];
    if (d === undefined) return undefined;
    if (rows !== undefined && rows !== d) return undefined;
    rows = d;
  }
  return rows;
}

/**
 * Requests with equal keys can be stacked: the same inputs with the same datatypes and the
 * same dims after the first, the same outputs in the same order, the same signature, and
 * the same values of the parameters the instance computes with (`batchParameters`).
 */
export function batchKey(
  inputs: readonly Tensor[],
  outputNames: readonly string[],
  signature: string | undefined,
  parameters?: Parameters,
  batchParameters: readonly string[] = [],
): string {
  const ins = inputs.map((t) => `${t.name}\u0001${t.datatype}\u0001${t.shape.slice(1).join(',')}`).sort();
  // Typed, so that 8 (a JSON number) and 8n (a gRPC int64) are one key and '8' another.
  const params = batchParameters.map((name) => {
    const v = parameters?.[name];
    return v === undefined ? '' : `${typeof v === 'bigint' ? 'number' : typeof v}:${String(v)}`;
  });
  return `${ins.join('\u0002')}\u0003${outputNames.join('\u0002')}\u0003${signature ?? ''}\u0003${params.join('\u0002')}`;
}

/**
 * The context a batch of several requests runs with: the parameters they agree on (their
 * shared `batchParameters`, by batchKey), nothing of any one request's own (headers, signal).
 * Undefined when the instance computes with none, as batches ran before there were any.
 */
export function batchContext(parameters: Parameters | undefined, batchParameters: readonly string[] = []): InferContext | undefined {
  if (batchParameters.length === 0) return undefined;
  const shared: Parameters = {};
  for (const name of batchParameters) {
    const v = parameters?.[name];
    if (v !== undefined) shared[name] = v;
  }
  return { id: undefined, parameters: shared, headers: {}, responseHeaders: {} };
}

function concat(datatype: Tensor['datatype'], parts: readonly TensorData[], length: number): TensorData {
  const info = datatypeInfo(datatype);
  if (info?.arrayType === undefined) return (parts as readonly Uint8Array[][]).flat();
  const out = new info.arrayType(length);
  let offset = 0;
  for (const p of parts as readonly NumericArray[]) {
    // Same datatype on every part, hence the same typed array type.
    (out as Float64Array).set(p as Float64Array, offset);
    offset += p.length;
  }
  return out;
}

/**
 * Stacks requests that share a `batchKey` into one set of inputs, in the first request's
 * input order. Copies: the requests' own inputs stay intact (a failed batch retries them).
 */
export function stackInputs(requests: readonly (readonly Tensor[])[]): Tensor[] {
  const first = requests[0];
  if (first === undefined) return [];
  return first.map((t) => {
    const parts = requests.map((r) => (r.find((x) => x.name === t.name) as Tensor).data);
    const rows = requests.reduce((n, r) => n + ((r.find((x) => x.name === t.name) as Tensor).shape[0] ?? 0), 0);
    const length = parts.reduce((n, p) => n + p.length, 0);
    return { name: t.name, datatype: t.datatype, shape: [rows, ...t.shape.slice(1)], data: concat(t.datatype, parts, length) };
  });
}

/**
 * Splits batched outputs back into per-request outputs of `rows[i]` rows each. Each piece is
 * a copy the caller owns. Throws when an output's dim 0 is not the batch's total rows (the
 * model did not keep the batch dimension), so the caller can fall back to single requests.
 */
export function splitOutputs(outputs: readonly Tensor[], rows: readonly number[]): Tensor[][] {
  const total = rows.reduce((a, b) => a + b, 0);
  const result: Tensor[][] = rows.map(() => []);
  for (const o of outputs) {
    if (o.shape[0] !== total) {
      throw new Error(`output '${o.name}' has dim 0 of ${String(o.shape[0])}, not the batch's ${total} rows`);
    }
    const perRow = total === 0 ? 0 : o.data.length / total;
    let start = 0;
    rows.forEach((n, i) => {
      const end = start + n * perRow;
      (result[i] as Tensor[]).push({ name: o.name, datatype: o.datatype, shape: [n, ...o.shape.slice(1)], data: o.data.slice(start, end) });
      start = end;
    });
  }
  return result;
}
