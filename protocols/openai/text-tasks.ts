/**
 * The tensor contract of text models (server/backends/text/), shared by the backend and the
 * codecs that speak to it (the OpenAI routes; V2 and gRPC need nothing beyond the names):
 *
 * - Embedding models (platform TEXT_EMBEDDING_PLATFORM) take `text` (BYTES [n], UTF-8), or
 *   token ids already made by a client as `token_ids` (INT64, every sequence one after the
 *   other) with `token_counts` (INT64 [n], each sequence's length); they answer `embedding`
 *   (FP32 [n, dim]) and `prompt_tokens` (INT64 [n], tokens each input counted after
 *   truncation). The request parameter `dimensions` keeps the first that many dimensions.
 * - Cross-encoders (platform TEXT_RERANK_PLATFORM) take `query` (BYTES [1]) and `documents`
 *   (BYTES [n]); they answer `score` (FP32 [n], the sigmoid of the model's logit, as
 *   sentence-transformers' CrossEncoder) and `prompt_tokens` (INT64 [n], per pair).
 */
export const TEXT_EMBEDDING_PLATFORM = 'text_embedding_onnx';
export const TEXT_RERANK_PLATFORM = 'text_rerank_onnx';

export const TEXT_TENSORS = {
  text: 'text',
  tokenIds: 'token_ids',
  tokenCounts: 'token_counts',
  embedding: 'embedding',
  query: 'query',
  documents: 'documents',
  score: 'score',
  promptTokens: 'prompt_tokens',
} as const;

/** Request parameter: how many leading dimensions of each embedding to keep. */
export const DIMENSIONS_PARAMETER = 'dimensions';
