/**
 * A text model version: tokenizes in process, runs the ONNX graph (an onnx-backend instance,
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
import type { Encoded } from './text-tokenizer.js';

/** The graph inputs a text model makes from its tokenizer's output. */
const FED_INPUTS: ReadonlySet<string> = new Set(['input_ids', 'attention_mask', 'token_type_ids']);

/** Rows per ONNX run: bounds the padded batch a large request builds at once. */
const CHUNK_ROWS = 32;

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
  readonly executionProvider: string | undefined;
  readonly #files: TextModelFiles;
  readonly #inner: ModelInstance;
  readonly #graphOutput: string;
  readonly #typeIds: boolean;

  constructor(files: TextModelFiles, inner: ModelInstance) {
    this.#files = files;
    this.#inner = inner;
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
      this.inputs = [{ name: T.text, datatype: 'BYTES', shape: [-1] }];
      this.outputs = [
        { name: T.embedding, datatype: 'FP32', shape: [-1, width > 0 ? width : -1] },
        { name: T.promptTokens, datatype: 'INT64', shape: [-1] },
      ];
    } else {
      this.platform = TEXT_RERANK_PLATFORM;
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

  #encodeInputs(inputs: readonly Tensor[]): Encoded[] {
    const allowed: ReadonlySet<string> = new Set([T.text, T.tokenIds, T.tokenCounts]);
    const unexpected = inputs.find((t) => !allowed.has(t.name));
    if (unexpected !== undefined)
      throw errors.invalidInput(`Unexpected input '${unexpected.name}'; an embedding model takes '${T.text}', or '${T.tokenIds}' with '${T.tokenCounts}'`);
    const text = find(inputs, T.text);
    const ids = find(inputs, T.tokenIds);
    const counts = find(inputs, T.tokenCounts);
    if (text !== undefined && ids === undefined && counts === undefined) return texts(text).map((s) => this.#files.tokenizer.encode(s));
    if (text === undefined && ids !== undefined && counts !== undefined) return this.#tokenInputs(int64s(ids), int64s(counts));
    throw errors.invalidInput(`an embedding model takes '${T.text}' (BYTES), or '${T.tokenIds}' with '${T.tokenCounts}' (INT64)`);
  }

  /** Token ids a client made: used as given (no special tokens added), within the vocabulary and max length. */
  #tokenInputs(ids: number[], counts: number[]): Encoded[] {
    const { maxLength, vocabularySize } = this.#files.tokenizer;
    const total = counts.reduce((a, b) => a + b, 0);
    if (counts.some((c) => c < 1) || total !== ids.length) throw errors.invalidParam('input', `'${T.tokenCounts}' must be positive and add up to the ${ids.length} token ids`);
    const bad = ids.findIndex((id) => !(id >= 0 && id < vocabularySize));
    if (bad >= 0) throw errors.invalidParam('input', `token id ${ids[bad]} is outside the model's vocabulary (0 to ${vocabularySize - 1})`);
    let at = 0;
    return counts.map((count, i) => {
      if (count > maxLength) throw errors.invalidParam('input', `input ${i} has ${count} tokens; this model's maximum is ${maxLength}`);
      const slice = ids.slice(at, (at += count));
      return { ids: slice, typeIds: slice.map(() => 0) };
    });
  }

  async #embed(inputs: readonly Tensor[], context: InferContext | undefined): Promise<Map<string, Tensor>> {
    const encoded = this.#encodeInputs(inputs);
    if (encoded.length === 0) throw errors.invalidParam('input', 'no input to embed');
    let out: Float32Array | undefined;
    let dim = 0;
    for (let start = 0; start < encoded.length; start += CHUNK_ROWS) {
      const chunk = encoded.slice(start, start + CHUNK_ROWS);
      const { tensors, seq, mask } = this.#batch(chunk);
      const [hidden] = await this.#inner.infer(tensors, [this.#graphOutput], undefined, context);
      if (hidden === undefined || hidden.shape.length !== 3) throw errors.inferenceError(`the ONNX graph's '${this.#graphOutput}' is not [batch, sequence, hidden]`);
      dim = hidden.shape[2] as number;
      out ??= new Float32Array(encoded.length * dim);
      pool(this.#files.pooling, hidden.data as Float32Array, mask, seq, dim, out, start);
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
      [T.embedding, { name: T.embedding, datatype: 'FP32', shape: [encoded.length, keep], data: vectors }],
      [T.promptTokens, promptTokens(encoded)],
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
    const encoded = documents.map((d) => this.#files.tokenizer.encodePair(query[0] as string, d));
    const scores = new Float32Array(encoded.length);
    for (let start = 0; start < encoded.length; start += CHUNK_ROWS) {
      const { tensors } = this.#batch(encoded.slice(start, start + CHUNK_ROWS));
      const [logits] = await this.#inner.infer(tensors, [this.#graphOutput], undefined, context);
      if (logits === undefined || logits.shape.length !== 2 || logits.shape[1] !== 1) throw errors.inferenceError(`the ONNX graph's '${this.#graphOutput}' is not [batch, 1]`);
      const data = logits.data as Float32Array;
      for (let i = 0; i < data.length; i++) scores[start + i] = 1 / (1 + Math.exp(-(data[i] as number)));
    }
    return new Map([
      [T.score, { name: T.score, datatype: 'FP32', shape: [encoded.length], data: scores }],
      [T.promptTokens, promptTokens(encoded)],
    ]);
  }

  /** The graph's inputs for one chunk, padded to its longest sequence. */
  #batch(chunk: readonly Encoded[]): { tensors: Tensor[]; seq: number; mask: number[][] } {
    const seq = Math.max(...chunk.map((e) => e.ids.length));
    const rows = chunk.length;
    const ids = new BigInt64Array(rows * seq).fill(BigInt(this.#files.tokenizer.padId));
    const attention = new BigInt64Array(rows * seq);
    const types = new BigInt64Array(rows * seq);
    const mask = chunk.map((e, r) => {
      e.ids.forEach((id, t) => {
        ids[r * seq + t] = BigInt(id);
        attention[r * seq + t] = 1n;
        types[r * seq + t] = BigInt(e.typeIds[t] ?? 0);
      });
      return Array.from({ length: seq }, (_, t) => (t < e.ids.length ? 1 : 0));
    });
    const shape = [rows, seq];
    const tensors: Tensor[] = [
      { name: 'input_ids', datatype: 'INT64', shape, data: ids },
      { name: 'attention_mask', datatype: 'INT64', shape, data: attention },
    ];
    if (this.#typeIds) tensors.push({ name: 'token_type_ids', datatype: 'INT64', shape, data: types });
    return { tensors, seq, mask };
  }

  healthy(): boolean {
    return this.#inner.healthy?.() ?? true;
  }

  unload(): Promise<void> {
    return this.#inner.unload();
  }

  onFailure(listener: (err: Error) => void): void {
    this.#inner.onFailure(listener);
  }
}

function truncateRows(rows: Float32Array, dim: number, keep: number): Float32Array {
  const n = rows.length / dim;
  const out = new Float32Array(n * keep);
  for (let r = 0; r < n; r++) out.set(rows.subarray(r * dim, r * dim + keep), r * keep);
  return out;
}

function promptTokens(encoded: readonly Encoded[]): Tensor {
  return { name: T.promptTokens, datatype: 'INT64', shape: [encoded.length], data: BigInt64Array.from(encoded, (e) => BigInt(e.ids.length)) };
}
