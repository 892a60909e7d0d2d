/**
 * V1 dialects: how a V1 body maps to tensors and back depends on the model's platform.
 * KServe's convention (codec.ts) serves every model by default; TF Serving's (tf-serving.ts)
 * serves TensorFlow models, as TF Serving does for the anchor. The registry is in dialects.ts.
 */
import type { DecodeLimits } from '../limits.js';
import type { InferRequest, InferResponse, ModelView } from '../tensor.js';

export type { SignatureDef, SignatureTensor } from '../tensor.js';

/** What a dialect may know about the model it decodes for: the neutral model view. */
export type V1Model = ModelView;

export interface V1Decoded {
  readonly request: InferRequest;
  /** Dialect-specific state that shapes the response (e.g. row or columnar). */
  readonly format?: string;
}

export interface V1Dialect {
  readonly name: string;
  /** `limits` bounds what the body may make the decoder allocate (defaults: limits.ts). */
  decode(doc: unknown, model: V1Model, limits?: DecodeLimits): V1Decoded;
  /** The response body (JSON text). */
  encode(response: InferResponse, decoded: V1Decoded): string;
  /** `GET /v1/models/{name}/metadata`, where the dialect has it. */
  metadata?(model: V1Model): unknown;
}
