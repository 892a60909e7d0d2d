/**
 * The REST codecs as pipeline values (server/pipeline/codec.ts): V2 infer (JSON and the
 * binary tensor extension), V1 predict in the model's dialect, and V1 explain. Each binds the
 * protocols/ functions to the server's decode limits once, when the routes are built.
 */
import type { DecodeLimits } from '../../protocols/limits.js';
import type { InferResponse, ModelView } from '../../protocols/tensor.js';
import type { V1Decoded, V1Dialect } from '../../protocols/v1/dialect.js';
import { v1DialectFor } from '../../protocols/v1/dialects.js';
import { decodeRestInferRequest, parseHeaderLength, parseJson } from '../../protocols/v2/rest-request.js';
import { encodeRestInferResponse } from '../../protocols/v2/rest-response.js';
import type { Codec, Decoded, WireMessage } from '../pipeline/codec.js';

const JSON_TYPE = 'application/json';
const BINARY_TYPE = 'application/octet-stream';

/** A REST request body with the V2 binary extension's header, as received. */
export interface RestInput {
  readonly body: Buffer;
  /** `inference-header-content-length`, unparsed. */
  readonly headerLength?: string | string[] | undefined;
}

/** A REST response body; `headerLength` is set when it carries binary outputs. */
export interface RestMessage extends WireMessage {
  readonly body: Buffer | string;
  readonly headerLength?: number | undefined;
}

interface V2Decoded extends Decoded {
  readonly binary: boolean;
}

export function v2InferCodec(limits: DecodeLimits | undefined): Codec<RestInput, V2Decoded, InferResponse, RestMessage> {
  return {
    decode(input) {
      const headerLength = parseHeaderLength(input.headerLength, input.body.byteLength);
      return { request: decodeRestInferRequest(input.body, headerLength, limits), binary: headerLength !== undefined };
    },
    wire: (input, decoded) => ({ body: input.body, contentType: decoded.binary ? BINARY_TYPE : JSON_TYPE }),
    encode(response, decoded) {
      const encoded = encodeRestInferResponse(response, decoded.request);
      return { body: encoded.body, contentType: encoded.headerLength === undefined ? JSON_TYPE : BINARY_TYPE, headerLength: encoded.headerLength };
    },
  };
}

interface V1Request extends Decoded {
  readonly dialect: V1Dialect;
  readonly decoded: V1Decoded;
}

/** The body in the model's V1 dialect (KServe's, or TF Serving's for TensorFlow models). */
function decodeV1(body: Buffer, model: ModelView, limits: DecodeLimits | undefined): V1Request {
  const dialect = v1DialectFor(model.platform);
  const decoded = dialect.decode(parseJson(body.toString('utf8')), model, limits);
  return { request: decoded.request, dialect, decoded };
}

export function v1PredictCodec(limits: DecodeLimits | undefined): Codec<Buffer, V1Request, InferResponse, RestMessage> {
  return {
    decode: (body, model) => decodeV1(body, model, limits),
    wire: (body) => ({ body, contentType: JSON_TYPE }),
    encode: (response, request) => ({ body: request.dialect.encode(response, request.decoded), contentType: JSON_TYPE }),
  };
}

/** Explanations are not request-logged (no `wire`), as before the pipeline. */
export function v1ExplainCodec(limits: DecodeLimits | undefined): Codec<Buffer, V1Request, unknown, RestMessage> {
  return {
    decode: (body, model) => decodeV1(body, model, limits),
    encode: (result) => ({ body: JSON.stringify(result), contentType: JSON_TYPE }),
  };
}
