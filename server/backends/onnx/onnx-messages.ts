/**
 * Messages between the main thread and an ONNX session worker. Tensor storage travels as
 * typed arrays whose buffers are transferred, never serialised element by element.
 */
import type { NumericArray } from '../../../protocols/datatypes.js';

export interface WireTensor {
  readonly name: string;
  /** onnxruntime type name, e.g. "float32". */
  readonly type: string;
  readonly dims: readonly number[];
  /** Typed array, or UTF-8 strings for "string" tensors. */
  readonly data: NumericArray | string[];
}

export interface WireValueInfo {
  readonly name: string;
  readonly type: string | undefined;
  /** Dimension sizes; strings or -1 mark symbolic/unknown dims. */
  readonly shape: ReadonlyArray<number | string>;
}

export interface SessionSettings {
  readonly modelPath: string;
  readonly executionProviders: readonly string[];
  readonly intraOpThreads: number;
  readonly interOpThreads: number;
}

export interface RunJob {
  readonly id: number;
  readonly feeds: WireTensor[];
  readonly fetches: readonly string[];
}

export type JobResult =
  | { readonly id: number; readonly outputs: WireTensor[] }
  | { readonly id: number; readonly error: string };

/**
 * Jobs that arrive in the same event-loop turn travel in one message, and results come back
 * in batches: one thread hand-off per batch instead of two per request. Jobs still run one
 * at a time, in order.
 */
export type ToWorker = { readonly op: 'run'; readonly jobs: RunJob[] } | { readonly op: 'close' };

export type FromWorker =
  | {
      readonly op: 'loaded';
      readonly inputs: WireValueInfo[];
      readonly outputs: WireValueInfo[];
      readonly executionProviders: readonly string[];
      readonly warnings: string[];
    }
  | { readonly op: 'load-failed'; readonly message: string }
  | { readonly op: 'results'; readonly results: JobResult[] };
