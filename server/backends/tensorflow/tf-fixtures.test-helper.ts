/** TensorFlow fixture models (test/fixtures/tf) laid out as a model repository for tests. */
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from '../../../test/helpers/server.js';

export const TF_FIXTURES = path.join(ROOT, 'test/fixtures/tf');

export interface Expected {
  x: number[][];
  probabilities: number[][];
  logits: number[][];
  bucket: number[];
}
export const expected = JSON.parse(readFileSync(path.join(TF_FIXTURES, 'expected.json'), 'utf8')) as Expected;

/** Copies fixture folders into a temporary repository: { servedName: fixtureFolder }. */
export function tfRepository(models: Record<string, string>): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'kserve-ts-tf-'));
  for (const [name, fixture] of Object.entries(models)) cpSync(path.join(TF_FIXTURES, fixture), path.join(dir, name), { recursive: true });
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
