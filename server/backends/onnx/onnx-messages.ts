/**
 * What an ONNX session worker and the main thread exchange inside the shared envelope
 * (server/workers/worker-messages.ts). Tensor storage travels as typed arrays whose buffers are
 * transferred, never serialised element by element.
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
  /** What onnxruntime-node receives for `cuda` in the providers list (cuda-options.ts). */
  readonly cudaProvider: { readonly name: 'cuda'; readonly deviceId: number };
  readonly intraOpThreads: number;
  readonly interOpThreads: number;
}

/** One inference: feeds in, the named outputs back (as WireTensor[]) in `fetches` order. */
export interface OnnxJob {
  readonly feeds: WireTensor[];
  readonly fetches: readonly string[];
}

/** What a worker reports once its session is ready. */
export interface OnnxLoaded {
  readonly inputs: WireValueInfo[];
  readonly outputs: WireValueInfo[];
  readonly executionProviders: readonly string[];
}
