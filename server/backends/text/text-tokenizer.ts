/**
 * A Hugging Face tokenizer (tokenizer.json + tokenizer_config.json) with the truncation that
 * Python's `tokenizers` applies: @huggingface/tokenizers tokenizes and adds special tokens but
 * never truncates, so this file truncates between the two steps, as the Rust library does
 * (`truncate_encodings`, longest-first for pairs), and maps tokens to ids exactly as the
 * library's own `encode`.
 */
import { Tokenizer } from '@huggingface/tokenizers';

/**
 * The part of the library's Tokenizer used here, declared here: its .d.ts files import each
 * other without extensions, which NodeNext resolution cannot follow, so its own types arrive
 * unresolved.
 */
interface LibraryTokenizer {
  tokenize(text: string): string[];
  get_vocab(withAddedTokens: boolean): Map<string, number>;
  get_added_tokens_decoder(): Map<number, { readonly content: string }>;
  readonly model: { readonly unk_token_id?: number | undefined } | null;
  readonly post_processor: {
    post_process(tokens: string[], pair: string[] | null, addSpecialTokens: boolean): { tokens: string[]; token_type_ids?: number[] | undefined };
  } | null;
}
const LibraryTokenizer = Tokenizer as unknown as new (tokenizerJson: object, tokenizerConfig: object) => LibraryTokenizer;

export interface Encoded {
  readonly ids: readonly number[];
  readonly typeIds: readonly number[];
}

/** Lengths two sequences keep under `budget` tokens: the Rust library's LongestFirst rule. */
export function longestFirst(n1: number, n2: number, budget: number): [number, number] {
  if (n1 + n2 <= budget) return [n1, n2];
  const swap = n1 > n2;
  // a is the shorter sequence's length; b what the longer may keep.
  let a = Math.min(n1, n2);
  let b = a > budget ? a : Math.max(a, budget - a);
  if (a + b > budget) {
    a = Math.floor(budget / 2);
    b = a + (budget % 2);
  }
  const [k1, k2] = swap ? [b, a] : [a, b];
  return [Math.min(n1, k1), Math.min(n2, k2)];
}

export class TextTokenizer {
  readonly #tokenizer: LibraryTokenizer;
  readonly #ids: ReadonlyMap<string, number>;
  readonly #unknownId: number;
  /** Special tokens the post-processor adds to one sequence and to a pair. */
  readonly #specialsSingle: number;
  readonly #specialsPair: number;
  /** Longest encoding, special tokens included (the model's max length). */
  readonly maxLength: number;
  /** Ids a model's embedding table has rows for: token ids a client sends must be below it. */
  readonly vocabularySize: number;
  readonly padId: number;

  constructor(tokenizerJson: object, tokenizerConfig: object, maxLength: number) {
    this.#tokenizer = new LibraryTokenizer(tokenizerJson, tokenizerConfig);
    const ids = new Map<string, number>();
    for (const [token, id] of this.#tokenizer.get_vocab(true)) ids.set(token, id);
    // Added tokens win over the model's vocabulary, as in the library's encode.
    for (const [id, added] of this.#tokenizer.get_added_tokens_decoder()) ids.set(added.content, id);
    this.#ids = ids;
    this.vocabularySize = Math.max(...ids.values()) + 1;
    const unknown = this.#tokenizer.model?.unk_token_id;
    this.#unknownId = unknown ?? 0;
    this.#specialsSingle = this.#postProcess([], null).ids.length;
    this.#specialsPair = this.#postProcess([], []).ids.length;
    if (maxLength <= this.#specialsPair) throw new Error(`max length ${maxLength} leaves no room for text beside ${this.#specialsPair} special tokens`);
    this.maxLength = maxLength;
    const pad = (tokenizerConfig as { pad_token?: unknown }).pad_token;
    this.padId = (typeof pad === 'string' ? ids.get(pad) : undefined) ?? 0;
  }

  /** One text with special tokens, truncated to maxLength. */
  encode(text: string): Encoded {
    const tokens = this.#tokenizer.tokenize(text);
    return this.#postProcess(tokens.slice(0, this.maxLength - this.#specialsSingle), null);
  }

  /** A text pair (query, document) with special tokens, truncated longest-first to maxLength. */
  encodePair(first: string, second: string): Encoded {
    const a = this.#tokenizer.tokenize(first);
    const b = this.#tokenizer.tokenize(second);
    const [n1, n2] = longestFirst(a.length, b.length, this.maxLength - this.#specialsPair);
    return this.#postProcess(a.slice(0, n1), b.slice(0, n2));
  }

  #postProcess(tokens: string[], pair: string[] | null): Encoded {
    const post = this.#tokenizer.post_processor;
    const out = post === null ? { tokens: [...tokens, ...(pair ?? [])], token_type_ids: undefined } : post.post_process(tokens, pair, true);
    const ids = out.tokens.map((t) => this.#ids.get(t) ?? this.#unknownId);
    const typeIds = out.token_type_ids ?? [...tokens.map(() => 0), ...(pair ?? []).map(() => 1)];
    return { ids, typeIds };
  }
}
