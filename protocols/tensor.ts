/**
 * The one transport-neutral request/response representation. Every wire codec (V1 JSON,
 * V2 JSON, V2 binary extension, V2 gRPC) decodes into and encodes from these types; the
 * data plane and the backends see nothing else.
 *
 * Ownership: a decoded request owns its tensors' storage. Typed arrays may be views on a
 * transport buffer (zero-copy); consumers must treat them as read-only and must not retain
 * them after the response is sent.
 */
import type { Datatype, TensorData } from './datatypes.js';

export type ParameterValue = string | number | boolean | bigint;
/** Flat key/value parameters, as the protocol allows (no nested objects or arrays). */
export type Parameters = Record<string, ParameterValue>;

export interface Tensor {
  readonly name: string;
  readonly datatype: Datatype;
  /** Concrete dimensions; every entry is a non-negative integer. */
  readonly shape: readonly number[];
  /** Row-major elements; see datatypes.ts for the storage of each datatype. */
  readonly data: TensorData;
  readonly parameters?: Parameters | undefined;
}

export interface RequestedOutput {
  readonly name: string;
  readonly parameters?: Parameters | undefined;
}

export interface InferRequest {
  readonly id?: string | undefined;
  readonly parameters?: Parameters | undefined;
  readonly inputs: readonly Tensor[];
  /** When present, only these outputs are returned, in this order. */
  readonly outputs?: readonly RequestedOutput[] | undefined;
}

export interface InferResponse {
  readonly id?: string | undefined;
  readonly modelName: string;
  readonly modelVersion?: string | undefined;
  readonly parameters?: Parameters | undefined;
  readonly outputs: readonly Tensor[];
}

/** Declared shape of a model input or output: -1 marks a dynamic dimension. */
export interface TensorSpec {
  readonly name: string;
  readonly datatype: Datatype;
  readonly shape: readonly number[];
}

/**
 * A signature tensor: the V2 view, plus the runtime's own dtype and graph tensor name where
 * it has them (TensorFlow's DT_* and e.g. "serving_default_x:0").
 */
export interface SignatureTensor extends TensorSpec {
  readonly tfDtype?: string;
  readonly tensorName?: string;
}

/**
 * A named signature (TensorFlow's SignatureDef): one set of inputs and outputs a model can
 * be run with. A model's list puts its default first.
 */
export interface SignatureDef {
  readonly name: string;
  readonly inputs: readonly SignatureTensor[];
  readonly outputs: readonly SignatureTensor[];
}

/**
 * What a schema-dependent codec (V1 dialects) may know about the model version a request
 * runs against: the version the request's lease holds, so decode and inference never see
 * two different schemas across a reload.
 */
export interface ModelView {
  readonly name: string;
  readonly version: string | undefined;
  readonly platform: string;
  readonly inputs: readonly TensorSpec[];
  readonly outputs: readonly TensorSpec[];
  /** Present for models with named signatures (TensorFlow); the default first. */
  readonly signatures: readonly SignatureDef[] | undefined;
}

export interface ModelMetadata {
  readonly name: string;
  readonly versions: readonly string[];
  readonly platform: string;
  readonly inputs: readonly TensorSpec[];
  readonly outputs: readonly TensorSpec[];
}
