/**
 * A text model version: tokenizes in its own worker thread (tokenizer-session.ts; the
 * worker also truncates and pads), runs the ONNX graph (an onnx-backend instance,
 * so sessions, threads and providers are that backend's) in chunks padded to their longest
 * sequence, and pools (embedding models) or scores pairs (cross-encoders). It speaks the
 * tensor contract of protocols/openai/text-tasks.ts, so V2 REST, gRPC and the OpenAI routes
 * all reach it the same way.
 */
import { errors } from '../../../protocols/errors.js';
import { DIMENSIONS_PARAMETER, TEXT_EMBEDDING_PLATFORM, TEXT_RERANK_PLATFORM, TEXT_TENSORS as T } from '../../../protocols/openai/text-tasks.js';
import type { Tensor, TensorSpec } from '../../../protocols/tensor.js';
import type { InferContext, ModelInstance } from '../../backend/backend.js';
import { normalizeRows, pool } from './pooling.js';
import type { TextModelFiles } from './text-model-files.js';
import type { ClientSignal } from '../../client-signal.js';
import { type PaddedChunk, padChunks } from './padded-chunk.js';
import type { Encoded } from './text-tokenizer.js';
import type { TokenizerSession } from './tokenizer-session.js';

/** The graph inputs a text model makes from its tokenizer's output. */
const FED_INPUTS: ReadonlySet<string> = new Set(['input_ids', 'attention_mask', 'token_type_ids']);

/** Rows per ONNX run: bounds the padded batch a large request builds at once. */
export const CHUNK_ROWS = 32;

const utf8 = new TextDecoder('utf-8', { fatal: true });

function texts(tensor: Tensor): string[] {
  if (tensor.datatype !== 'BYTES' || tensor.shape.length !== 1) throw errors.invalidParam(tensor.name, `input '${tensor.name}' must be BYTES of shape [n]`);
  return (tensor.data as Uint8Array[]).map((b, i) => {
    try {
      return utf8.decode(b);
    } catch {
      throw errors.invalidParam(tensor.name, `input '${tensor.name}' element ${i} is not valid UTF-8`);
    }
  });
}

function int64s(tensor: Tensor): number[] {
  if (tensor.datatype !== 'INT64' || tensor.shape.length !== 1) throw errors.invalidParam(tensor.name, `input '${tensor.name}' must be INT64 of shape [n]`);
  return Array.from(tensor.data as BigInt64Array, Number);
}

function find(inputs: readonly Tensor[], name: string): Tensor | undefined {
  return inputs.find((t) => t.name === name);
}

/** The inner graph's output a text model reads: the named one where present, else the first of `rank`. */
function graphOutput(inner: ModelInstance, names: readonly string[], rank: number): string {
  const named = inner.outputs.find((o) => names.includes(o.name)) ?? inner.outputs.find((o) => o.shape.length === rank);
  if (named === undefined) throw new Error(`the ONNX graph has none of the outputs ${names.join(', ')} nor one of rank ${rank}`);
  return named.name;
}

export class TextInstance implements ModelInstance {
  readonly platform: string;
  readonly inputs: readonly TensorSpec[];
  readonly outputs: readonly TensorSpec[];
  /** Takes `text` or `token_ids` + `token_counts` (embedding models): checked here, not against `inputs`. */
  readonly validatesOwnInputs = true;
  /** An embedding batch shares its `dimensions` (server/batching stacks only requests that agree on it). */
  readonly batchParameters: readonly string[];
  readonly executionProvider: string | undefined;
  readonly #files: TextModelFiles;
  readonly #inner: ModelInstance;
  readonly #tokenizer: TokenizerSession;
  readonly #graphOutput: string;
  readonly #typeIds: boolean;

  constructor(files: TextModelFiles, inner: ModelInstance, tokenizer: TokenizerSession) {
    this.#files = files;
    this.#inner = inner;
    this.#tokenizer = tokenizer;
    this.executionProvider = inner.executionProvider;
    for (const required of ['input_ids', 'attention_mask']) {
      if (!inner.inputs.some((i) => i.name === required)) throw new Error(`the ONNX graph has no input '${required}'`);
    }
    const unfed = inner.inputs.filter((i) => !FED_INPUTS.has(i.name)).map((i) => i.name);
    if (unfed.length > 0) throw new Error(`the ONNX graph takes inputs a text model does not feed: ${unfed.join(', ')} (it feeds ${[...FED_INPUTS].join(', ')})`);
    this.#typeIds = inner.inputs.some((i) => i.name === 'token_type_ids');
    this.#graphOutput = files.kind === 'embedding' ? graphOutput(inner, ['last_hidden_state', 'token_embeddings'], 3) : graphOutput(inner, ['logits'], 2);
    const produced = inner.outputs.find((o) => o.name === this.#graphOutput);
    if (produced?.datatype !== 'FP32') throw new Error(`the ONNX graph's '${this.#graphOutput}' is ${produced?.datatype ?? 'missing'}; text models read FP32`);
    if (files.kind === 'embedding') {
      // The width where the graph declares it; -1 (any) where it leaves it dynamic.
      const width = produced.shape[2] ?? -1;
      this.platform = TEXT_EMBEDDING_PLATFORM;
      this.batchParameters = [DIMENSIONS_PARAMETER];
      this.inputs = [{ name: T.text, datatype: 'BYTES', shape: [-1] }];
      this.outputs = [
        { name: T.embedding, datatype: 'FP32', shape: [-1, width > 0 ? width : -1] },
        { name: T.promptTokens, datatype: 'INT64', shape: [-1] },
      ];
    } else {
      this.platform = TEXT_RERANK_PLATFORM;
      this.batchParameters = [];
      this.inputs = [
        { name: T.query, datatype: 'BYTES', shape: [1] },
        { name: T.documents, datatype: 'BYTES', shape: [-1] },
      ];
      this.outputs = [
        { name: T.score, datatype: 'FP32', shape: [-1] },
        { name: T.promptTokens, datatype: 'INT64', shape: [-1] },
      ];
    }
  }

  async infer(inputs: readonly Tensor[], outputNames: readonly string[], _signature?: string, context?: InferContext): Promise<Tensor[]> {
    for (const name of outputNames) {
      if (!this.outputs.some((o) => o.name === name))
        throw errors.invalidInput(`Unexpected inference output '${name}'; model outputs: ${this.outputs.map((o) => o.name).join(', ')}`);
    }
    const byName = this.#files.kind === 'embedding' ? await this.#embed(inputs, context) : await this.#rerank(inputs, context);
    return outputNames.map((n) => byName.get(n) as Tensor);
  }

  /** The request's rows, tokenized (off the main thread) or as the client's token ids, in padded chunks. */
  #encodeInputs(inputs: readonly Tensor[], signal: ClientSignal | undefined): Promise<PaddedChunk[]> {
    const allowed: ReadonlySet<string> = new Set([T.text, T.tokenIds, T.tokenCounts]);
    const unexpected = inputs.find((t) => !allowed.has(t.name));
    if (unexpected !== undefined)
      throw errors.invalidInput(`Unexpected input '${unexpected.name}'; an embedding model takes '${T.text}', or '${T.tokenIds}' with '${T.tokenCounts}'`);
    const text = find(inputs, T.text);
    const ids = find(inputs, T.tokenIds);
    const counts = find(inputs, T.tokenCounts);
    if (text !== undefined && ids === undefined && counts === undefined) {
      const list = texts(text);
      if (list.length === 0) throw errors.invalidParam('input', 'no input to embed');
      return this.#tokenizer.encode(list, signal);
    }
    if (text === undefined && ids !== undefined && counts !== undefined)
      return Promise.resolve(padChunks(this.#tokenInputs(int64s(ids), int64s(counts)), CHUNK_ROWS, this.#tokenizer.padId));
    throw errors.invalidInput(`an embedding model takes '${T.text}' (BYTES), or '${T.tokenIds}' with '${T.tokenCounts}' (INT64)`);
  }

  /** Token ids a client made: used as given (no special tokens added), within the vocabulary and max length. */
  #tokenInputs(ids: number[], counts: number[]): Encoded[] {
    const { maxLength, vocabularySize } = this.#tokenizer;
    const total = counts.reduce((a, b) => a + b, 0);
    if (counts.some((c) => c < 1) || total !== ids.length) throw errors.invalidParam('input', `'${T.tokenCounts}' must be positive and add up to the ${ids.length} token ids`);
    const bad = ids.findIndex((id) => !(id >= 0 && id < vocabularySize));
    if (bad >= 0) throw errors.invalidParam('input', `token id ${ids[bad]} is outside the model's vocabulary (0 to ${vocabularySize - 1})`);
    let at = 0;
    const encoded = counts.map((count, i) => {
      if (count > maxLength) throw errors.invalidParam('input', `input ${i} has ${count} tokens; this model's maximum is ${maxLength}`);
      const slice = ids.slice(at, (at += count));
      return { ids: slice, typeIds: slice.map(() => 0) };
    });
    if (encoded.length === 0) throw errors.invalidParam('input', 'no input to embed');
    return encoded;
  }

  async #embed(inputs: readonly Tensor[], context: InferContext | undefined): Promise<Map<string, Tensor>> {
    const chunks = await this.#encodeInputs(inputs, context?.signal);
    const rows = chunks.reduce((n, c) => n + c.rows, 0);
    let out: Float32Array | undefined;
    let dim = 0;
    let start = 0;
    for (const chunk of chunks) {
      const [hidden] = await this.#inner.infer(this.#tensors(chunk), [this.#graphOutput], undefined, context);
      if (hidden === undefined || hidden.shape.length !== 3) throw errors.inferenceError(`the ONNX graph's '${this.#graphOutput}' is not [batch, sequence, hidden]`);
      dim = hidden.shape[2] as number;
      out ??= new Float32Array(rows * dim);
      pool(this.#files.pooling, hidden.data as Float32Array, chunk.lengths, chunk.seq, dim, out, start);
      start += chunk.rows;
    }
    let vectors = out as Float32Array;
    if (this.#files.normalize) normalizeRows(vectors, dim);
    const keep = this.#dimensionsOf(context, dim);
    if (keep < dim) {
      vectors = truncateRows(vectors, dim, keep);
      // Matryoshka truncation: a normalised model's answer stays unit length.
      if (this.#files.normalize) normalizeRows(vectors, keep);
    }
    return new Map([
      [T.embedding, { name: T.embedding, datatype: 'FP32', shape: [rows, keep], data: vectors }],
      [T.promptTokens, promptTokens(chunks)],
    ]);
  }

  #dimensionsOf(context: InferContext | undefined, dim: number): number {
    const asked = context?.parameters?.[DIMENSIONS_PARAMETER];
    if (asked === undefined) return dim;
    const n = typeof asked === 'bigint' ? Number(asked) : asked;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > dim) {
      throw errors.invalidParam(DIMENSIONS_PARAMETER, `'${DIMENSIONS_PARAMETER}' must be an integer from 1 to ${dim} (this model's embedding size)`);
    }
    return n;
  }

  async #rerank(inputs: readonly Tensor[], context: InferContext | undefined): Promise<Map<string, Tensor>> {
    const queryTensor = find(inputs, T.query);
    const docsTensor = find(inputs, T.documents);
    if (queryTensor === undefined || docsTensor === undefined || inputs.length !== 2)
      throw errors.invalidInput(`a rerank model takes '${T.query}' (BYTES [1]) and '${T.documents}' (BYTES [n])`);
    const query = texts(queryTensor);
    if (query.length !== 1) throw errors.invalidParam('query', `'${T.query}' must hold one text`);
    const documents = texts(docsTensor);
    if (documents.length === 0) throw errors.invalidParam('documents', 'no documents to rank');
    const chunks = await this.#tokenizer.encodePairs(query[0] as string, documents, context?.signal);
    const scores = new Float32Array(documents.length);
    let start = 0;
    for (const chunk of chunks) {
      const [logits] = await this.#inner.infer(this.#tensors(chunk), [this.#graphOutput], undefined, context);
      if (logits === undefined || logits.shape.length !== 2 || logits.shape[1] !== 1) throw errors.inferenceError(`the ONNX graph's '${this.#graphOutput}' is not [batch, 1]`);
      const data = logits.data as Float32Array;
      for (let i = 0; i < data.length; i++) scores[start + i] = 1 / (1 + Math.exp(-(data[i] as number)));
      start += chunk.rows;
    }
    return new Map([
      [T.score, { name: T.score, datatype: 'FP32', shape: [documents.length], data: scores }],
      [T.promptTokens, promptTokens(chunks)],
    ]);
  }

  /** The graph's inputs for one padded chunk. */
  #tensors(chunk: PaddedChunk): Tensor[] {
    const shape = [chunk.rows, chunk.seq];
    const tensors: Tensor[] = [
      { name: 'input_ids', datatype: 'INT64', shape, data: chunk.ids },
      { name: 'attention_mask', datatype: 'INT64', shape, data: chunk.attention },
    ];
    if (this.#typeIds) tensors.push({ name: 'token_type_ids', datatype: 'INT64', shape, data: chunk.typeIds });
    return tensors;
  }

  healthy(): boolean {
    return this.#inner.healthy?.() ?? true;
  }

  async unload(): Promise<void> {
    await Promise.all([this.#inner.unload(), this.#tokenizer.unload()]);
  }

  /** Either worker dying breaks the version (the repository reloads it whole). */
  onFailure(listener: (err: Error) => void): void {
    let told = false;
    const once = (err: Error): void => {
      if (told) return;
      told = true;
      listener(err);
    };
    this.#inner.onFailure(once);
    this.#tokenizer.onFailure(once);
  }
}

function truncateRows(rows: Float32Array, dim: number, keep: number): Float32Array {
  const n = rows.length / dim;
  const out = new Float32Array(n * keep);
  for (let r = 0; r < n; r++) out.set(rows.subarray(r * dim, r * dim + keep), r * keep);
  return out;
}

/** Each row's token count (special tokens included), in order. */
function promptTokens(chunks: readonly PaddedChunk[]): Tensor {
  const counts = chunks.flatMap((c) => Array.from(c.lengths, (n) => BigInt(n)));
  return { name: T.promptTokens, datatype: 'INT64', shape: [counts.length], data: BigInt64Array.from(counts) };
}
