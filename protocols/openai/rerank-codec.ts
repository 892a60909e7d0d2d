/**
 * The rerank API as KServe's huggingfaceserver, vLLM and Cohere shape it (`POST /v1/rerank`):
 * `query` and `documents` (strings, or objects with `text`) become a cross-encoder's `query`
 * and `documents` tensors (text-tasks.ts); the answer's scores come back as `results` sorted
 * by `relevance_score`, best first, cut to `top_n`, with each document's text unless
 * `return_documents` is false.
 */
import { randomUUID } from 'node:crypto';
import { errors } from '../errors.js';
import type { InferRequest, InferResponse, ModelView, Tensor } from '../tensor.js';
import { type OpenAiMessage, assertPlatform } from './embeddings-codec.js';
import { type JsonObject, optionalBoolean, optionalInteger, requiredString } from './request-fields.js';
import { TEXT_RERANK_PLATFORM, TEXT_TENSORS as T } from './text-tasks.js';

export interface RerankDecoded {
  readonly request: InferRequest;
  readonly documents: readonly string[];
  readonly topN: number | undefined;
  readonly returnDocuments: boolean;
}

const encoder = new TextEncoder();

function documentsOf(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0) throw errors.invalidParam('documents', "'documents' must be a non-empty array of strings or of objects with a 'text' string");
  return value.map((d: unknown, i) => {
    if (typeof d === 'string') return d;
    const text = typeof d === 'object' && d !== null ? (d as JsonObject)['text'] : undefined;
    if (typeof text !== 'string') throw errors.invalidParam(`documents[${i}]`, `documents[${i}] must be a string or an object with a 'text' string`);
    return text;
  });
}

export const rerankCodec = {
  decode(doc: JsonObject, model: ModelView): RerankDecoded {
    assertPlatform(model, TEXT_RERANK_PLATFORM, 'a rerank (cross-encoder) model');
    const query = requiredString(doc, 'query');
    const documents = documentsOf(doc['documents']);
    const topN = optionalInteger(doc, 'top_n', 1);
    const returnDocuments = optionalBoolean(doc, 'return_documents', true);
    const inputs: Tensor[] = [
      { name: T.query, datatype: 'BYTES', shape: [1], data: [encoder.encode(query)] },
      { name: T.documents, datatype: 'BYTES', shape: [documents.length], data: documents.map((d) => encoder.encode(d)) },
    ];
    return { request: { inputs }, documents, topN, returnDocuments };
  },

  encode(response: InferResponse, decoded: RerankDecoded): OpenAiMessage {
    const score = response.outputs.find((o) => o.name === T.score);
    const tokens = response.outputs.find((o) => o.name === T.promptTokens);
    if (score === undefined || tokens === undefined) throw errors.internal('the model answered without scores');
    const scores = score.data as Float32Array;
    const order = Array.from(scores.keys()).sort((a, b) => (scores[b] as number) - (scores[a] as number) || a - b);
    const results = order.slice(0, decoded.topN ?? order.length).map((index) => ({
      index,
      relevance_score: scores[index] as number,
      ...(decoded.returnDocuments ? { document: { text: decoded.documents[index] as string } } : {}),
    }));
    const promptTokens = (tokens.data as BigInt64Array).reduce((a, b) => a + Number(b), 0);
    const body = { id: `rerank-${randomUUID()}`, model: response.modelName, usage: { prompt_tokens: promptTokens, total_tokens: promptTokens }, results };
    return { body: JSON.stringify(body), contentType: 'application/json' };
  },
};
