/**
 * Tokenization runs off the event loop: while a large embeddings request's tokenization is
 * held in the tokenizer's own thread (test/helpers/tokenizer-gate.ts: the worker waits
 * synchronously, as a long tokenization would), the server answers other requests; once
 * released, the large request's answer is the one the same input gets unheld, row for row,
 * and its rows equal the Python reference. No timing: the gate decides what is in progress.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, json, post } from '../helpers/http.js';
import { type TestServer, startServer } from '../helpers/server.js';
import { type TextFixtures, textEncoderFixtures } from '../helpers/text-encoders.js';
import { TokenizerGate } from '../helpers/tokenizer-gate.js';

let fx: TextFixtures;
let repo: string;
let srv: TestServer;
const gate = new TokenizerGate();

beforeAll(async () => {
  fx = await textEncoderFixtures();
  repo = mkdtempSync(path.join(tmpdir(), 'kserve-ts-tokenizer-'));
  cpSync(path.join(fx.dir, 'encoder-mean'), path.join(repo, 'encoder-mean'), { recursive: true });
  srv = await startServer(['--model_repository', repo], { backends: gate.backends() });
}, 600_000);

afterAll(async () => {
  gate.release();
  await srv?.close();
  if (repo !== undefined) rmSync(repo, { recursive: true, force: true });
});

interface EmbeddingList {
  data: { index: number; embedding: number[] }[];
  usage: { prompt_tokens: number };
}

/** Many inputs: the fixture texts over and over, each made distinct. */
const manyInputs = (): string[] => Array.from({ length: 2000 }, (_, i) => `${fx.expected.texts[i % fx.expected.texts.length] as string} ${i}`);

describe('tokenization off the event loop', () => {
  it('answers health and other routes while a large request is held in tokenization, then answers it unchanged', async () => {
    const LARGE = manyInputs();
    const unheld = json(await post(`${srv.url}/openai/v1/embeddings`, { model: 'encoder-mean', input: LARGE })) as EmbeddingList;
    expect(unheld.data).toHaveLength(LARGE.length);

    gate.hold();
    let settled = false;
    const large = post(`${srv.url}/openai/v1/embeddings`, { model: 'encoder-mean', input: LARGE }).finally(() => {
      settled = true;
    });
    await gate.untilHeld(1);
    // The event loop is free: these are answered while the tokenizer's thread is held.
    expect((await get(`${srv.url}/v2/health/ready`)).status).toBe(200);
    expect((await get(`${srv.url}/v2/models/encoder-mean/ready`)).status).toBe(200);
    expect((json(await get(`${srv.url}/openai/v1/models`)) as { data: { id: string }[] }).data.map((m) => m.id)).toEqual(['encoder-mean']);
    expect({ settled, waiting: gate.waiting }).toEqual({ settled: false, waiting: 1 });
    gate.release();

    const r = await large;
    expect(r.status).toBe(200);
    expect(gate.timedOut).toBe(0);
    const held = json(r) as EmbeddingList;
    expect(held.data.map((d) => d.index)).toEqual(LARGE.map((_, i) => i));
    expect(held.data).toEqual(unheld.data);
    expect(held.usage).toEqual(unheld.usage);
  });

  it('keeps tokenization, truncation and order: rows equal the Python reference', async () => {
    const body = json(await post(`${srv.url}/openai/v1/embeddings`, { model: 'encoder-mean', input: fx.expected.texts })) as EmbeddingList;
    expect(body.usage.prompt_tokens).toBe(fx.expected.ids.reduce((n, ids) => n + ids.length, 0));
    body.data.forEach((d, i) => {
      const expected = fx.expected.embeddings['encoder-mean'][i] as readonly number[];
      expect(Math.max(...d.embedding.map((v, j) => Math.abs(v - (expected[j] as number))))).toBeLessThan(1e-5);
    });
  });
});
