/**
 * OpenAI's embeddings API (`POST /v1/embeddings`) as a codec of the neutral request: `input`
 * (a string, strings, one token-id list or token-id lists) becomes the text model's `text`
 * or `token_ids` + `token_counts` tensors (text-tasks.ts), `dimensions` a request parameter;
 * the answer's `embedding` rows become `data[i].embedding` (floats, or base64 of the
 * little-endian float32 bytes, as OpenAI sends them) and `prompt_tokens` the usage.
 */
import { errors } from '../errors.js';
import type { InferRequest, InferResponse, ModelView, Parameters, Tensor } from '../tensor.js';
import { type JsonObject, optionalChoice, optionalInteger, requiredString } from './request-fields.js';
import { DIMENSIONS_PARAMETER, TEXT_EMBEDDING_PLATFORM, TEXT_TENSORS as T } from './text-tasks.js';

export type EncodingFormat = 'float' | 'base64';

export interface EmbeddingsDecoded {
  readonly request: InferRequest;
  readonly encodingFormat: EncodingFormat;
}

export interface OpenAiMessage {
  readonly body: string;
  readonly contentType: string;
}

const encoder = new TextEncoder();

const isTokenId = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

function inputTensors(input: unknown): Tensor[] {
  const bad = () => errors.invalidParam('input', "'input' must be a string, an array of strings, an array of token ids or an array of token-id arrays");
  if (typeof input === 'string') return [textTensor([input])];
  if (!Array.isArray(input)) throw bad();
  if (input.length === 0) throw errors.invalidParam('input', "'input' must not be empty");
  if (input.every((v) => typeof v === 'string')) return [textTensor(input)];
  if (input.every(isTokenId)) return tokenTensors([input]);
  if (input.every((v) => Array.isArray(v))) {
    const lists = input as unknown[][];
    if (lists.some((l) => l.length === 0)) throw errors.invalidParam('input', "a token-id array in 'input' must not be empty");
    if (!lists.every((l) => l.every(isTokenId))) throw errors.invalidParam('input', "token ids in 'input' must be non-negative integers");
    return tokenTensors(lists);
  }
  throw bad();
}

function textTensor(texts: readonly string[]): Tensor {
  return { name: T.text, datatype: 'BYTES', shape: [texts.length], data: texts.map((s) => encoder.encode(s)) };
}

function tokenTensors(lists: readonly (readonly number[])[]): Tensor[] {
  const ids = BigInt64Array.from(lists.flat(), BigInt);
  return [
    { name: T.tokenIds, datatype: 'INT64', shape: [ids.length], data: ids },
    { name: T.tokenCounts, datatype: 'INT64', shape: [lists.length], data: BigInt64Array.from(lists, (l) => BigInt(l.length)) },
  ];
}

export function assertPlatform(model: ModelView, platform: string, what: string): void {
  if (model.platform !== platform) throw errors.invalidParam('model', `Model ${model.name} is not ${what} (its platform is ${model.platform})`);
}

export const embeddingsCodec = {
  decode(doc: JsonObject, model: ModelView): EmbeddingsDecoded {
    assertPlatform(model, TEXT_EMBEDDING_PLATFORM, 'an embedding model');
    requiredString(doc, 'model');
    if (doc['user'] !== undefined && typeof doc['user'] !== 'string') throw errors.invalidParam('user', "'user' must be a string");
    const encodingFormat = optionalChoice(doc, 'encoding_format', ['float', 'base64'] as const, 'float');
    const dimensions = optionalInteger(doc, 'dimensions', 1);
    const parameters: Parameters | undefined = dimensions === undefined ? undefined : { [DIMENSIONS_PARAMETER]: dimensions };
    return { request: { inputs: inputTensors(doc['input']), parameters }, encodingFormat };
  },

  encode(response: InferResponse, decoded: EmbeddingsDecoded): OpenAiMessage {
    const embedding = response.outputs.find((o) => o.name === T.embedding);
    const tokens = response.outputs.find((o) => o.name === T.promptTokens);
    if (embedding === undefined || tokens === undefined) throw errors.internal('the model answered without embeddings');
    const [rows = 0, dim = 0] = embedding.shape;
    const data = embedding.data as Float32Array;
    const promptTokens = (tokens.data as BigInt64Array).reduce((a, b) => a + Number(b), 0);
    const vectors = Array.from({ length: rows }, (_, index) => {
      const row = data.subarray(index * dim, (index + 1) * dim);
      const vector = decoded.encodingFormat === 'base64' ? Buffer.from(row.buffer, row.byteOffset, row.byteLength).toString('base64') : Array.from(row);
      return { object: 'embedding', index, embedding: vector };
    });
    const body = { object: 'list', data: vectors, model: response.modelName, usage: { prompt_tokens: promptTokens, total_tokens: promptTokens } };
    return { body: JSON.stringify(body), contentType: 'application/json' };
  },
};
