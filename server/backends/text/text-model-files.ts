/**
 * Reads a Hugging Face / sentence-transformers model folder once, at load: what kind of text
 * model it is, its tokenizer and max length, and (for embedding models) its pooling. A folder
 * that says something this server cannot honour fails the load, naming the file.
 *
 * - Embedding model: modules.json (sentence-transformers) with a Pooling module, optionally a
 *   Normalize module.
 * - Cross-encoder (rerank): no modules.json, and config.json's `architectures` names a
 *   `...ForSequenceClassification` with one label.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { type PoolingMode, poolingModeOf } from './pooling.js';
import { TOKENIZER_FILE } from './text-layout.js';
import type { TokenizerSource } from './tokenizer-messages.js';

export type TextModelKind = 'embedding' | 'rerank';

export interface TextModelFiles {
  readonly kind: TextModelKind;
  /** Built into a tokenizer where it runs (tokenizer-worker.ts), off the main thread. */
  readonly tokenizer: TokenizerSource;
  readonly pooling: PoolingMode;
  readonly normalize: boolean;
}

/** Hugging Face writes this for "no limit" (int(1e30)); anything that large is no limit. */
const NO_LIMIT = 1e12;

type Json = Record<string, unknown>;

async function readJson(dir: string, file: string, required: boolean): Promise<Json | undefined> {
  let text: string;
  try {
    text = await readFile(path.join(dir, file), 'utf8');
  } catch (err) {
    if (!required && (err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`cannot read ${file}: ${(err as Error).message}`, { cause: err });
  }
  try {
    const doc: unknown = JSON.parse(text);
    if (typeof doc !== 'object' || doc === null) throw new Error('not a JSON object or array');
    return doc as Json;
  } catch (err) {
    throw new Error(`${file} is not valid JSON: ${(err as Error).message}`, { cause: err });
  }
}

const positive = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) && v > 0 && v < NO_LIMIT ? v : undefined);

/** The longest input the model takes: sentence-transformers' max_seq_length, else the tokenizer's, within the position table. */
function maxLengthOf(sbert: Json | undefined, tokenizerConfig: Json, config: Json | undefined): number {
  const positions = positive(config?.['max_position_embeddings']);
  const declared = positive(sbert?.['max_seq_length']) ?? positive(tokenizerConfig['model_max_length']);
  const length = declared === undefined ? positions : positions === undefined ? declared : Math.min(declared, positions);
  if (length === undefined)
    throw new Error('no max length: none of sentence_bert_config.json max_seq_length, tokenizer_config.json model_max_length, config.json max_position_embeddings');
  return length;
}

interface Module {
  readonly type: string;
  readonly path: string;
}

function modulesOf(doc: Json): Module[] {
  if (!Array.isArray(doc)) throw new Error('modules.json is not a list');
  return (doc as unknown[]).map((m, i) => {
    const { type, path: p } = (m ?? {}) as Json;
    if (typeof type !== 'string' || typeof p !== 'string') throw new Error(`modules.json entry ${i} lacks a string type and path`);
    return { type, path: p };
  });
}

export async function readTextModel(dir: string): Promise<TextModelFiles> {
  const tokenizerJson = await readJson(dir, TOKENIZER_FILE, true);
  const tokenizerConfig = (await readJson(dir, 'tokenizer_config.json', false)) ?? {};
  const specials = (await readJson(dir, 'special_tokens_map.json', false)) ?? {};
  const config = await readJson(dir, 'config.json', false);
  const sbert = await readJson(dir, 'sentence_bert_config.json', false);
  const modules = await readJson(dir, 'modules.json', false);
  const maxLength = maxLengthOf(sbert, tokenizerConfig, config);
  // special_tokens_map.json fills what tokenizer_config.json leaves out (older exports).
  const tokenizer: TokenizerSource = { tokenizerJson: tokenizerJson as object, tokenizerConfig: { ...specials, ...tokenizerConfig }, maxLength };

  if (modules !== undefined) {
    const list = modulesOf(modules);
    const poolingModule = list.find((m) => m.type.endsWith('.Pooling'));
    if (poolingModule === undefined) throw new Error('modules.json has no Pooling module');
    const poolingConfig = await readJson(dir, path.join(poolingModule.path, 'config.json'), true);
    const unknown = list.filter((m) => !/\.(Transformer|Pooling|Normalize)$/.test(m.type));
    if (unknown.length > 0) throw new Error(`modules.json: modules ${unknown.map((m) => m.type).join(', ')} are not supported (Transformer, Pooling, Normalize are)`);
    return { kind: 'embedding', tokenizer, pooling: poolingModeOf(poolingConfig ?? {}), normalize: list.some((m) => m.type.endsWith('.Normalize')) };
  }
  const architectures = config?.['architectures'];
  const classifier = Array.isArray(architectures) && architectures.some((a) => typeof a === 'string' && a.endsWith('ForSequenceClassification'));
  if (!classifier) throw new Error('neither modules.json (an embedding model) nor a ...ForSequenceClassification in config.json architectures (a cross-encoder)');
  const labels = config?.['id2label'];
  const count = typeof labels === 'object' && labels !== null ? Object.keys(labels).length : (positive(config?.['num_labels']) ?? 1);
  if (count !== 1) throw new Error(`a cross-encoder for rerank has one label; config.json has ${count}`);
  return { kind: 'rerank', tokenizer, pooling: 'cls', normalize: false };
}
