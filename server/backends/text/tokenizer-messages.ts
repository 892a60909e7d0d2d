/** What the main thread and a text model's tokenizer worker (tokenizer-worker.ts) exchange. */
import type { PaddedChunk } from './padded-chunk.js';

/** The tokenizer files as read at load (text-model-files.ts): the worker builds its tokenizer from them. */
export interface TokenizerSource {
  readonly tokenizerJson: object;
  /** tokenizer_config.json over special_tokens_map.json. */
  readonly tokenizerConfig: object;
  /** The model's max length, special tokens included. */
  readonly maxLength: number;
}

export interface TokenizerWorkerData {
  readonly source: TokenizerSource;
  /** Rows per ONNX run: the worker pads each chunk of this many rows to its own longest sequence. */
  readonly chunkRows: number;
  /**
   * A test's hold (test/helpers/tokenizer-gate.ts): while its word 0 is 1, each job waits in
   * the worker thread, synchronously, as a long tokenization would; absent in production.
   */
  readonly hold?: SharedArrayBuffer | undefined;
}

/** What the main thread learns about the tokenizer once the worker has built it. */
export interface TokenizerLoaded {
  readonly maxLength: number;
  readonly vocabularySize: number;
  readonly padId: number;
}

/** Texts to embed, or query-document pairs to score (a cross-encoder's input). */
export type TokenizeJob = { readonly texts: string[] } | { readonly query: string; readonly documents: string[] };

/** The job's rows, in order, in padded chunks. */
export type TokenizeResult = PaddedChunk[];
