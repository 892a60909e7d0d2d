/**
 * Dynamic batching for text-encoder models: embeddings requests over the OpenAI route and V2
 * REST queue behind a request held at the model (test/helpers/model-gate.ts), are stacked
 * into batches of at most max_batch_size rows, padded per batch to the longest sequence, and
 * each caller gets its own rows equal (within 1e-5) to what the same request gets alone.
 * Batches are counted from the server's own /metrics; no timing decides anything.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, json, metricValue, post } from '../helpers/http.js';
import { ModelGate } from '../helpers/model-gate.js';
import { type TestServer, startServer } from '../helpers/server.js';
import { type TextFixtures, textEncoderFixtures } from '../helpers/text-encoders.js';

const MODEL = 'batched';

let fx: TextFixtures;
let repo: string;
let srv: TestServer;
const gate = new ModelGate();

beforeAll(async () => {
  fx = await textEncoderFixtures();
  repo = mkdtempSync(path.join(tmpdir(), 'kserve-ts-text-batching-'));
  // Mean pooling, normalised: every padded position would show if the mask were wrong.
  cpSync(path.join(fx.dir, 'encoder-mean'), path.join(repo, MODEL), { recursive: true });
  writeFileSync(path.join(repo, MODEL, 'config.pbtxt'), 'max_batch_size: 8\ndynamic_batching {}\n');
  srv = await startServer(['--model_repository', repo], { backends: gate.backends() });
}, 600_000);

afterAll(async () => {
  gate.release();
  await srv?.close();
  if (repo !== undefined) rmSync(repo, { recursive: true, force: true });
});

interface Answer {
  readonly vectors: number[][];
  readonly tokens: number[];
}

async function openai(input: string | string[] | number[][], dimensions?: number): Promise<Answer> {
  const r = await post(`${srv.url}/openai/v1/embeddings`, { model: MODEL, input, ...(dimensions === undefined ? {} : { dimensions }) });
  expect({ status: r.status, body: r.status === 200 ? '' : r.text }).toEqual({ status: 200, body: '' });
  const body = json(r) as { data: { index: number; embedding: number[] }[]; usage: { prompt_tokens: number } };
  expect(body.data.map((d) => d.index)).toEqual(body.data.map((_, i) => i));
  return { vectors: body.data.map((d) => d.embedding), tokens: [body.usage.prompt_tokens] };
}

async function v2(texts: string[]): Promise<Answer> {
  const r = await post(`${srv.url}/v2/models/${MODEL}/infer`, { inputs: [{ name: 'text', datatype: 'BYTES', shape: [texts.length], data: texts }] });
  expect({ status: r.status, body: r.status === 200 ? '' : r.text }).toEqual({ status: 200, body: '' });
  const outputs = (json(r) as { outputs: { name: string; shape: number[]; data: number[] }[] }).outputs;
  const emb = outputs.find((o) => o.name === 'embedding') as { shape: number[]; data: number[] };
  const dim = emb.shape[1] as number;
  const vectors = texts.map((_, i) => emb.data.slice(i * dim, (i + 1) * dim));
  const tokens = (outputs.find((o) => o.name === 'prompt_tokens') as { data: number[] }).data;
  // Summed as usage.prompt_tokens is, so that both routes compare alike.
  return { vectors, tokens: [tokens.reduce((a, b) => a + b, 0)] };
}

function expectSame(batched: Answer, alone: Answer): void {
  expect(batched.tokens).toEqual(alone.tokens);
  expect(batched.vectors.length).toBe(alone.vectors.length);
  batched.vectors.forEach((v, r) => {
    const w = alone.vectors[r] as number[];
    expect(v.length).toBe(w.length);
    expect(Math.max(...v.map((x, d) => Math.abs(x - (w[d] as number))))).toBeLessThan(1e-5);
  });
}

async function batchCounts(): Promise<{ count: number; sum: number }> {
  const text = (await get(`${srv.url}/metrics`)).text;
  return {
    count: metricValue(text, 'kserve_batch_size_count', { model_name: MODEL }),
    sum: metricValue(text, 'kserve_batch_size_sum', { model_name: MODEL }),
  };
}

/** Texts of many lengths (the fixture's, the long one truncated), each made distinct. */
const textsOf = (n: number, tag: string): string[] => Array.from({ length: n }, (_, i) => `${fx.expected.texts[i % fx.expected.texts.length] as string} ${tag}${i}`);

/** Runs `queued` behind a held request and returns their answers and how many batches (and rows) the model ran meanwhile. */
async function behindHeld<T>(queued: () => Array<Promise<T>>, others = 0): Promise<{ rest: T[]; batches: number; rows: number }> {
  const before = await batchCounts();
  const { rest } = await gate.behindHeld(srv.server, MODEL, () => openai('the held one'), queued, others);
  const after = await batchCounts();
  return { rest, batches: after.count - before.count, rows: after.sum - before.sum };
}

describe('dynamic batching of text-encoder models', () => {
  it('stacks single-text OpenAI and V2 requests into full batches; each caller gets its unbatched answer', async () => {
    const texts = textsOf(24, 'a');
    // Alone: the model is idle for each, so each runs in a batch of its own, padded to itself.
    const alone: Answer[] = [];
    for (const [i, t] of texts.entries()) alone.push(i < 20 ? await openai(t) : await v2([t]));
    const { rest, batches, rows } = await behindHeld(() => texts.map((t, i) => (i < 20 ? openai(t) : v2([t]))));
    rest.forEach((a, i) => expectSame(a, alone[i] as Answer));
    // The held one alone, then 24 rows in three full batches of 8: the last joins 4 OpenAI
    // requests with the 4 V2 ones, so both routes share batches.
    expect({ batches, rows }).toEqual({ batches: 4, rows: 25 });
  });

  it('stacks requests of several texts up to max_batch_size rows, each padded per batch', async () => {
    const requests = Array.from({ length: 6 }, (_, i) => textsOf(3, `b${i}-`).map((t, j) => `${t}${' more'.repeat(i + j)}`));
    const alone: Answer[] = [];
    for (const r of requests) alone.push(await openai(r));
    const { rest, batches, rows } = await behindHeld(() => requests.map((r) => openai(r)));
    rest.forEach((a, i) => expectSame(a, alone[i] as Answer));
    // 3 + 3 rows fit in 8; a third request would not: three batches of 6.
    expect({ batches, rows }).toEqual({ batches: 4, rows: 19 });
  });

  it('batches only requests that agree on dimensions; each gets the dimensions it asked for', async () => {
    const texts = textsOf(8, 'c');
    const dims = (i: number): number | undefined => (i % 2 === 0 ? 4 : undefined);
    const alone: Answer[] = [];
    for (const [i, t] of texts.entries()) alone.push(await openai(t, dims(i)));
    const { rest, batches, rows } = await behindHeld(() => texts.map((t, i) => openai(t, dims(i))));
    rest.forEach((a, i) => {
      expect(a.vectors[0]).toHaveLength(dims(i) ?? fx.expected.hidden);
      expectSame(a, alone[i] as Answer);
    });
    expect({ batches, rows }).toEqual({ batches: 3, rows: 9 });
  });

  it('stacks token-id requests too, and a request the batch fails on fails alone', async () => {
    const good = [[5], [6], [7]];
    const alone: Answer[] = [];
    for (const ids of good) alone.push(await openai([ids]));
    let bad: Promise<{ status: number; text: string }> | undefined;
    const { rest, batches } = await behindHeld(() => {
      const queued = good.map((ids) => openai([ids]));
      bad = post(`${srv.url}/openai/v1/embeddings`, { model: MODEL, input: [[1_000_000]] });
      return queued;
    }, 1);
    rest.forEach((a, i) => expectSame(a, alone[i] as Answer));
    const refused = await (bad as Promise<{ status: number; text: string }>);
    expect(refused.status).toBe(400);
    expect(refused.text).toMatch(/outside the model's vocabulary/);
    // The held one, the batch of four that failed, then each of the four alone.
    expect(batches).toBe(6);
  });
});
