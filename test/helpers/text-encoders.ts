/**
 * The text-encoder fixtures built by test/fixtures/generate-text-encoders.sh (cached under
 * ~/.cache/kserve-ts, keyed by the generator's hash): TEXT_ENCODERS, reranker, and the
 * Python side's answers in expected.json. A cold build makes
 * a virtualenv from PyPI (about a minute): call from a beforeAll with a long timeout.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { memoised } from '../controller/harness/bin-script.js';
import { ROOT } from './server.js';

/** The embedding folders, one per pooling mode (mean and lasttoken normalised). */
export const TEXT_ENCODERS = ['encoder-mean', 'encoder-cls', 'encoder-max', 'encoder-sqrt', 'encoder-last'] as const;
export type TextEncoderName = (typeof TEXT_ENCODERS)[number];

export interface TextExpected {
  readonly max_seq_length: number;
  readonly hidden: number;
  readonly texts: readonly string[];
  readonly ids: readonly (readonly number[])[];
  readonly plain_ids: readonly (readonly number[])[];
  readonly embeddings: Readonly<Record<TextEncoderName, readonly (readonly number[])[]>>;
  readonly rerank: {
    readonly query: string;
    readonly documents: readonly string[];
    readonly pair_ids: readonly (readonly number[])[];
    readonly pair_type_ids: readonly (readonly number[])[];
    readonly logits: readonly number[];
  };
}

export interface TextFixtures {
  readonly dir: string;
  readonly expected: TextExpected;
}

export const textEncoderFixtures: () => Promise<TextFixtures> = memoised(async () => {
  const { stdout } = await promisify(execFile)('bash', [path.join(ROOT, 'test/fixtures/generate-text-encoders.sh')], { maxBuffer: 16 << 20 });
  const dir = stdout.trim().split('\n').pop() ?? '';
  return { dir, expected: JSON.parse(readFileSync(path.join(dir, 'expected.json'), 'utf8')) as TextExpected };
});
