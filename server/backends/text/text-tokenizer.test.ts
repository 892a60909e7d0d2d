/** The in-process tokenizer against Python's `tokenizers` (ids made by the fixture generator). */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type TextFixtures, textEncoderFixtures } from '../../../test/helpers/text-encoders.js';
import { readTextModel } from './text-model-files.js';
import { TextTokenizer, longestFirst } from './text-tokenizer.js';

let fx: TextFixtures;
let tokenizer: TextTokenizer;

beforeAll(async () => {
  fx = await textEncoderFixtures();
  // Built here from the files as the tokenizer worker builds it (tokenizer-worker.ts).
  const { tokenizerJson, tokenizerConfig, maxLength } = (await readTextModel(path.join(fx.dir, 'encoder-mean'))).tokenizer;
  tokenizer = new TextTokenizer(tokenizerJson, tokenizerConfig, maxLength);
}, 600_000);

describe('text tokenizer', () => {
  it('gives the ids of Python tokenizers, special tokens and truncation included', () => {
    expect(fx.expected.texts.map((t) => tokenizer.encode(t).ids)).toEqual(fx.expected.ids);
    // The long text really is cut: the case proves truncation, not just equality.
    expect(Math.max(...fx.expected.ids.map((ids) => ids.length))).toBe(fx.expected.max_seq_length);
    expect(tokenizer.maxLength).toBe(fx.expected.max_seq_length);
  });

  it('encodes query-document pairs as Python does: type ids and longest-first truncation', () => {
    const { query, documents, pair_ids, pair_type_ids } = fx.expected.rerank;
    const pairs = documents.map((d) => tokenizer.encodePair(query, d));
    expect(pairs.map((p) => p.ids)).toEqual(pair_ids);
    expect(pairs.map((p) => p.typeIds)).toEqual(pair_type_ids);
  });

  it.each([
    // [n1, n2, budget, kept1, kept2]: the Rust library's truncate_encodings, LongestFirst
    [3, 4, 10, 3, 4],
    [9, 30, 21, 9, 12],
    [30, 9, 21, 12, 9],
    [20, 20, 21, 10, 11],
    [30, 5, 10, 5, 5],
    [11, 12, 21, 10, 11],
  ])('longestFirst(%i, %i, %i) keeps %i and %i', (n1, n2, budget, k1, k2) => {
    expect(longestFirst(n1, n2, budget)).toEqual([k1, k2]);
  });

  it('reads the vocabulary size and pad id from the files', () => {
    const vocab = (JSON.parse(readFileSync(path.join(fx.dir, 'encoder-mean', 'tokenizer.json'), 'utf8')) as { model: { vocab: Record<string, number> } }).model.vocab;
    expect(tokenizer.vocabularySize).toBe(Object.keys(vocab).length);
    expect(tokenizer.padId).toBe(vocab['[PAD]']);
  });
});
