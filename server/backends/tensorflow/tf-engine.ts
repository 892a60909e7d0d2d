/**
 * What the TensorFlow worker needs from an engine: the signatures of the loaded model and a
 * way to run one. Both engines speak the TF.js tensor API (tfjs-node is TF.js on the
 * libtensorflow backend), so the worker converts tensors once, in one place.
 */
import type * as tfjs from '@tensorflow/tfjs';
import type { WireSignature } from './tf-messages.js';

export type Tf = typeof tfjs;
export type TfTensor = tfjs.Tensor;

export interface Engine {
  /** The TF.js namespace whose backend runs this model (tensors must be made with it). */
  readonly tf: Tf;
  /** TF.js backend name: 'tensorflow' (libtensorflow), 'wasm' or 'cpu'. */
  readonly backend: string;
  /** The default signature first. */
  readonly signatures: readonly WireSignature[];
  /** Runs `signature` with feeds keyed by input alias; returns `fetches` (output aliases) in order. */
  run(signature: WireSignature, feeds: Record<string, TfTensor>, fetches: readonly string[]): Promise<TfTensor[]>;
  dispose(): void;
}

export const DEFAULT_SIGNATURE = 'serving_default';

/** Orders signatures with the default first (else the first by name). */
export function defaultFirst(signatures: WireSignature[]): WireSignature[] {
  return signatures.sort((a, b) => (a.name === DEFAULT_SIGNATURE ? -1 : b.name === DEFAULT_SIGNATURE ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
