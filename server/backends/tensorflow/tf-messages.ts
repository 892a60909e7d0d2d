/**
 * What a TensorFlow worker and the main thread exchange inside the shared envelope
 * (server/workers/worker-messages.ts). Numeric storage travels as typed arrays whose buffers are
 * transferred; BYTES as arrays of Uint8Array (copied once).
 */
import type { Datatype, TensorData } from '../../../protocols/datatypes.js';

/** Which engine runs a model: libtensorflow through tfjs-node, or TF.js on WASM. */
export type TfPath = 'native' | 'portable';

export interface WorkerSettings {
  readonly path: TfPath;
  /** saved_model.pb's folder (native) or model.json (portable). */
  readonly modelPath: string;
  /** SavedModel MetaGraph tags, e.g. ['serve']. */
  readonly tags: readonly string[];
  /** Folder holding the tfjs-backend-wasm .wasm files (portable). */
  readonly wasmDir: string;
  readonly threads: number;
}

/** One signature tensor as the model declares it. */
export interface WireSpec {
  /** Signature alias (the name clients use). */
  readonly name: string;
  /** TensorFlow dtype, e.g. DT_FLOAT. */
  readonly dtype: string;
  /** -1 for unknown dimensions. */
  readonly shape: readonly number[];
  /** Graph tensor name, e.g. serving_default_x:0. */
  readonly tensor: string;
}

export interface WireSignature {
  readonly name: string;
  readonly inputs: readonly WireSpec[];
  readonly outputs: readonly WireSpec[];
}

export interface WireTensor {
  readonly name: string;
  readonly datatype: Datatype;
  readonly dims: readonly number[];
  readonly data: TensorData;
}

/** One inference of one signature; the result is a WireTensor per fetch, in order. */
export interface TfJob {
  readonly signature: string;
  readonly feeds: WireTensor[];
  /** Signature output aliases, in the order the results must come back. */
  readonly fetches: readonly string[];
  /** Declared datatypes of `fetches`, in the same order. */
  readonly fetchTypes: readonly Datatype[];
}

/** What a worker reports once its model is loaded. */
export interface TfLoaded {
  readonly signatures: WireSignature[];
  /** The TF.js backend that runs the model: 'tensorflow' (native), 'wasm' or 'cpu'. */
  readonly backend: string;
}
