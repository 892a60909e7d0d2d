/**
 * The OpenAI-compatible routes and the text backend on a real server, with the real model
 * folders of test/fixtures/generate-text-encoders.sh: embeddings equal the Python reference
 * (onnxruntime + numpy pooling) for each pooling mode, rerank orders as the Python logits,
 * the official `openai` client reads the answers, and every refusal is OpenAI's error shape.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FlagError } from '../../cli/flags.js';
import { parseServeArgs } from '../../server/config.js';
import { type HttpResult, get, json, metricValue, post } from '../helpers/http.js';
import { type TestServer, fixture, startServer } from '../helpers/server.js';
import { TEXT_ENCODERS as ENCODERS, type TextFixtures, textEncoderFixtures } from '../helpers/text-encoders.js';

let fx: TextFixtures;
let repo: string;
let srv: TestServer;

beforeAll(async () => {
  fx = await textEncoderFixtures();
  repo = mkdtempSync(path.join(tmpdir(), 'kserve-ts-openai-'));
  for (const name of [...ENCODERS, 'reranker']) cpSync(path.join(fx.dir, name), path.join(repo, name), { recursive: true });
  // A plain ONNX graph beside them: served, but not an OpenAI model.
  mkdirSync(path.join(repo, 'plain'));
  cpSync(fixture('identity_fp32'), path.join(repo, 'plain', 'model.onnx'));
  // Folders a text model cannot load from: each fails its own load, naming the cause.
  // Embedding models batch (test/openai/text-batching.test.ts); a rerank request does not stack.
  cpSync(path.join(fx.dir, 'reranker'), path.join(repo, 'batched-rerank'), { recursive: true });
  writeFileSync(path.join(repo, 'batched-rerank', 'config.pbtxt'), 'max_batch_size: 8\ndynamic_batching {}\n');
  cpSync(path.join(fx.dir, 'encoder-cls'), path.join(repo, 'no-pooling'), { recursive: true });
  rmSync(path.join(repo, 'no-pooling', '1_Pooling'), { recursive: true });
  cpSync(path.join(fx.dir, 'encoder-cls'), path.join(repo, 'not-an-encoder'), { recursive: true });
  cpSync(fixture('add_sub'), path.join(repo, 'not-an-encoder', 'model.onnx'));
  cpSync(path.join(fx.dir, 'reranker'), path.join(repo, 'two-labels'), { recursive: true });
  writeFileSync(
    path.join(repo, 'two-labels', 'config.json'),
    JSON.stringify({ architectures: ['BertForSequenceClassification'], id2label: { 0: 'a', 1: 'b' }, max_position_embeddings: 64 }),
  );
  srv = await startServer(['--model_repository', repo]);
}, 600_000);

afterAll(async () => {
  await srv?.close();
  if (repo !== undefined) rmSync(repo, { recursive: true, force: true });
});

interface EmbeddingList {
  object: string;
  model: string;
  data: { object: string; index: number; embedding: number[] }[];
  usage: { prompt_tokens: number; total_tokens: number };
}

function expectClose(actual: readonly number[], expected: readonly number[], tolerance = 1e-5): void {
  expect(actual.length).toBe(expected.length);
  const worst = Math.max(...actual.map((v, i) => Math.abs(v - (expected[i] as number))));
  expect(worst).toBeLessThan(tolerance);
}

/** OpenAI's error body, exactly: the status, the four fields, the type and code asked for. */
function expectOpenAiError(r: HttpResult, status: number, type: string, code: string, param: string | null = null, message?: RegExp): string {
  expect({ status: r.status, body: r.text }).toMatchObject({ status });
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  const body = json(r) as { error: Record<string, unknown> };
  expect(Object.keys(body)).toEqual(['error']);
  expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
  expect(body.error).toMatchObject({ type, code, param });
  if (message !== undefined) expect(body.error['message']).toMatch(message);
  return body.error['message'] as string;
}

const embeddings = (body: object) => post(`${srv.url}/openai/v1/embeddings`, body);

describe('POST /openai/v1/embeddings', () => {
  it.each(ENCODERS)('%s: the batch equals the Python reference to 1e-5, with usage', async (model) => {
    const r = await embeddings({ model, input: fx.expected.texts });
    expect(r.status).toBe(200);
    const body = json(r) as EmbeddingList;
    expect(body).toMatchObject({ object: 'list', model });
    expect(body.data.map((d) => [d.object, d.index])).toEqual(fx.expected.texts.map((_, i) => ['embedding', i]));
    body.data.forEach((d, i) => expectClose(d.embedding, fx.expected.embeddings[model][i] as number[]));
    const tokens = fx.expected.ids.reduce((a, ids) => a + ids.length, 0);
    expect(body.usage).toEqual({ prompt_tokens: tokens, total_tokens: tokens });
  });

  it('one string alone, padded in a batch of its own, gives the same vector', async () => {
    const r = await embeddings({ model: 'encoder-mean', input: fx.expected.texts[1] });
    const body = json(r) as EmbeddingList;
    expect(body.data).toHaveLength(1);
    expectClose(body.data[0]?.embedding ?? [], fx.expected.embeddings['encoder-mean'][1] as number[]);
    expect(body.usage.prompt_tokens).toBe(fx.expected.ids[1]?.length);
  });

  it('normalises where modules.json says so, and not elsewhere', async () => {
    const norm = (v: number[]) => Math.hypot(...v);
    const mean = json(await embeddings({ model: 'encoder-mean', input: 'hello world' })) as EmbeddingList;
    const cls = json(await embeddings({ model: 'encoder-cls', input: 'hello world' })) as EmbeddingList;
    expect(norm(mean.data[0]?.embedding ?? [])).toBeCloseTo(1, 5);
    expect(Math.abs(norm(cls.data[0]?.embedding ?? []) - 1)).toBeGreaterThan(1e-3);
  });

  it('token ids are embedded as given: the ids Python made give the vectors of their text', async () => {
    const ids = fx.expected.ids.slice(0, 4);
    const r = await embeddings({ model: 'encoder-mean', input: ids });
    expect(r.status).toBe(200);
    const body = json(r) as EmbeddingList;
    body.data.forEach((d, i) => expectClose(d.embedding, fx.expected.embeddings['encoder-mean'][i] as number[]));
    expect(body.usage.prompt_tokens).toBe(ids.reduce((a, l) => a + l.length, 0));
    // One flat list is one input.
    const one = json(await embeddings({ model: 'encoder-mean', input: ids[0] })) as EmbeddingList;
    expect(one.data).toHaveLength(1);
    expectClose(one.data[0]?.embedding ?? [], fx.expected.embeddings['encoder-mean'][0] as number[]);
  });

  it('encoding_format base64 is the little-endian float32 bytes of the float answer', async () => {
    const floats = json(await embeddings({ model: 'encoder-cls', input: ['hello world', 'cats'] })) as EmbeddingList;
    const r = await embeddings({ model: 'encoder-cls', input: ['hello world', 'cats'], encoding_format: 'base64' });
    const b64 = json(r) as { data: { embedding: string }[] };
    b64.data.forEach((d, i) => {
      const bytes = Buffer.from(d.embedding, 'base64');
      expect(Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4))).toEqual(floats.data[i]?.embedding);
    });
  });

  it('dimensions keeps the leading dimensions, renormalised for a normalised model', async () => {
    const full = json(await embeddings({ model: 'encoder-mean', input: 'hello world' })) as EmbeddingList;
    const cut = json(await embeddings({ model: 'encoder-mean', input: 'hello world', dimensions: 8 })) as EmbeddingList;
    const head = (full.data[0]?.embedding ?? []).slice(0, 8);
    const n = Math.hypot(...head);
    expectClose(
      cut.data[0]?.embedding ?? [],
      head.map((v) => v / n),
    );
    const raw = json(await embeddings({ model: 'encoder-cls', input: 'hello world', dimensions: 8 })) as EmbeddingList;
    const rawFull = json(await embeddings({ model: 'encoder-cls', input: 'hello world' })) as EmbeddingList;
    expect(raw.data[0]?.embedding).toEqual(rawFull.data[0]?.embedding.slice(0, 8));
  });

  it('more inputs than one ONNX run takes come back whole and in order', async () => {
    const input = Array.from({ length: 70 }, (_, i) => fx.expected.texts[i % fx.expected.texts.length] as string);
    const body = json(await embeddings({ model: 'encoder-max', input })) as EmbeddingList;
    expect(body.data).toHaveLength(70);
    body.data.forEach((d, i) => expectClose(d.embedding, fx.expected.embeddings['encoder-max'][i % fx.expected.texts.length] as number[]));
  });

  it('the official openai client reads the answer (its default base64 and float)', async () => {
    const client = new OpenAI({ baseURL: `${srv.url}/openai/v1`, apiKey: 'unused', maxRetries: 0 });
    const r = await client.embeddings.create({ model: 'encoder-mean', input: fx.expected.texts.slice(0, 3) });
    expect(r.data).toHaveLength(3);
    r.data.forEach((d, i) => expectClose(d.embedding, fx.expected.embeddings['encoder-mean'][i] as number[]));
    expect(r.usage.prompt_tokens).toBe(fx.expected.ids.slice(0, 3).reduce((a, l) => a + l.length, 0));
    const f = await client.embeddings.create({ model: 'encoder-cls', input: 'hello world', encoding_format: 'float', dimensions: 4 });
    expect(f.data[0]?.embedding).toHaveLength(4);
    const models = await client.models.list();
    expect(models.data.map((m) => m.id).sort()).toEqual([...ENCODERS, 'reranker'].sort());
    expect((await client.models.retrieve('reranker')).id).toBe('reranker');
    await expect(client.embeddings.create({ model: 'nope', input: 'x' })).rejects.toMatchObject({ status: 404, code: 'model_not_found', type: 'not_found_error' });
    await expect(client.completions.create({ model: 'encoder-mean', prompt: 'hi' })).rejects.toMatchObject({ status: 404 });
  });
});

describe('POST /openai/v1/rerank', () => {
  const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

  it('orders documents as the Python logits, best first, with their text and usage', async () => {
    const { query, documents, logits, pair_ids } = fx.expected.rerank;
    const r = await post(`${srv.url}/openai/v1/rerank`, { model: 'reranker', query, documents });
    expect(r.status).toBe(200);
    const body = json(r) as { id: string; model: string; results: { index: number; relevance_score: number; document: { text: string } }[]; usage: { total_tokens: number } };
    const order = logits.map((l, i) => [l, i] as const).sort((a, b) => b[0] - a[0]);
    expect(body.results.map((x) => x.index)).toEqual(order.map(([, i]) => i));
    body.results.forEach((x) => {
      expect(x.relevance_score).toBeCloseTo(sigmoid(logits[x.index] as number), 6);
      expect(x.document.text).toBe(documents[x.index]);
    });
    expect(body.model).toBe('reranker');
    expect(body.id).toMatch(/^rerank-/);
    expect(body.usage.total_tokens).toBe(pair_ids.reduce((a, l) => a + l.length, 0));
  });

  it('top_n cuts the list; return_documents false leaves the text out; documents may be {text} objects', async () => {
    const { query, documents } = fx.expected.rerank;
    const all = json(await post(`${srv.url}/openai/v1/rerank`, { model: 'reranker', query, documents })) as { results: { index: number }[] };
    const r = await post(`${srv.url}/openai/v1/rerank`, { model: 'reranker', query, documents: documents.map((text) => ({ text })), top_n: 2, return_documents: false });
    const body = json(r) as { results: Record<string, unknown>[] };
    expect(body.results.map((x) => x['index'])).toEqual(all.results.slice(0, 2).map((x) => x.index));
    expect(body.results.every((x) => !('document' in x))).toBe(true);
  });
});

describe('folders a text model cannot load from', () => {
  it.each([
    ['batched-rerank', /dynamic_batching is not supported for rerank models/],
    ['no-pooling', /cannot read 1_Pooling\/config\.json/],
    ['two-labels', /a cross-encoder for rerank has one label; config\.json has 2/],
    ['not-an-encoder', /the ONNX graph has no input 'input_ids'/],
  ])('%s fails its load, naming the cause, and is not listed', async (name, reason) => {
    const st = srv.server.repository.state(name);
    expect(st?.state).toBe('FAILED');
    expect(st?.reason).toMatch(reason);
    expectOpenAiError(await get(`${srv.url}/openai/v1/models/${name}`), 404, 'not_found_error', 'model_not_found');
  });
});

describe('the models routes and generation', () => {
  it('lists the text models in OpenAI shape and answers one by id', async () => {
    const list = json(await get(`${srv.url}/openai/v1/models`)) as { object: string; data: { id: string; object: string; owned_by: string }[] };
    expect(list.object).toBe('list');
    expect(list.data.map((m) => m.id).sort()).toEqual([...ENCODERS, 'reranker'].sort());
    expect(list.data.every((m) => m.object === 'model')).toBe(true);
    expect(json(await get(`${srv.url}/openai/v1/models/encoder-cls`))).toMatchObject({ id: 'encoder-cls', object: 'model' });
    expectOpenAiError(await get(`${srv.url}/openai/v1/models/nope`), 404, 'not_found_error', 'model_not_found');
    expect(srv.server.repository.state('plain')?.state).toBe('READY');
    expectOpenAiError(await get(`${srv.url}/openai/v1/models/plain`), 404, 'not_found_error', 'model_not_found');
  });

  it.each(['/openai/v1/completions', '/openai/v1/chat/completions'])('%s answers 404 naming where generation belongs', async (route) => {
    const r = await post(`${srv.url}${route}`, { model: 'encoder-mean', prompt: 'hi', messages: [] });
    expectOpenAiError(r, 404, 'not_found_error', 'route_not_found', null, /serves encoder models.*vLLM/);
  });
});

describe('errors under the prefix are in OpenAI shape, elsewhere in KServe shape', () => {
  it('a wrong method is 405 with Allow; an unknown route 404', async () => {
    const r = await get(`${srv.url}/openai/v1/embeddings`);
    expectOpenAiError(r, 405, 'invalid_request_error', 'method_not_allowed');
    expect(r.headers.get('allow')).toBe('POST');
    expectOpenAiError(await post(`${srv.url}/openai/v1/images/generations`, { prompt: 'x' }), 404, 'not_found_error', 'route_not_found');
    const v2 = await get(`${srv.url}/v2/models/nope`);
    expect(v2.status).toBe(404);
    expect(Object.keys(json(v2) as object)).toEqual(['error']);
    expect(typeof (json(v2) as { error: unknown }).error).toBe('string');
  });
});

describe('bad requests are 400s in OpenAI shape, never a crash', () => {
  it.each([
    ['no model', { input: 'x' }, 'model'],
    ['model not a string', { model: 3, input: 'x' }, 'model'],
    ['no input', { model: 'encoder-mean' }, 'input'],
    ['empty list', { model: 'encoder-mean', input: [] }, 'input'],
    ['input a number', { model: 'encoder-mean', input: 5 }, 'input'],
    ['mixed list', { model: 'encoder-mean', input: ['a', 1] }, 'input'],
    ['an empty token list', { model: 'encoder-mean', input: [[]] }, 'input'],
    ['a negative token id', { model: 'encoder-mean', input: [[1, -2]] }, 'input'],
    ['a fractional token id', { model: 'encoder-mean', input: [1.5] }, 'input'],
    ['a token id past the vocabulary', { model: 'encoder-mean', input: [[2, 100000, 3]] }, 'input'],
    ['more token ids than the max length', { model: 'encoder-mean', input: [Array.from({ length: 100 }, () => 5)] }, 'input'],
    ['encoding_format unknown', { model: 'encoder-mean', input: 'x', encoding_format: 'int8' }, 'encoding_format'],
    ['dimensions 0', { model: 'encoder-mean', input: 'x', dimensions: 0 }, 'dimensions'],
    ['dimensions past the model', { model: 'encoder-mean', input: 'x', dimensions: 33 }, 'dimensions'],
    ['user not a string', { model: 'encoder-mean', input: 'x', user: 5 }, 'user'],
    ['a rerank model for embeddings', { model: 'reranker', input: 'x' }, 'model'],
    ['a plain ONNX model', { model: 'plain', input: 'x' }, 'model'],
  ])('embeddings: %s', async (_case, body, param) => {
    expectOpenAiError(await embeddings(body), 400, 'invalid_request_error', 'invalid_input', param);
  });

  it.each([
    ['no query', { model: 'reranker', documents: ['a'] }, 'query'],
    ['no documents', { model: 'reranker', query: 'q' }, 'documents'],
    ['empty documents', { model: 'reranker', query: 'q', documents: [] }, 'documents'],
    ['a document of the wrong type', { model: 'reranker', query: 'q', documents: ['a', 7] }, 'documents[1]'],
    ['top_n 0', { model: 'reranker', query: 'q', documents: ['a'], top_n: 0 }, 'top_n'],
    ['return_documents not a boolean', { model: 'reranker', query: 'q', documents: ['a'], return_documents: 'yes' }, 'return_documents'],
    ['an embedding model for rerank', { model: 'encoder-mean', query: 'q', documents: ['a'] }, 'model'],
  ])('rerank: %s', async (_case, body, param) => {
    expectOpenAiError(await post(`${srv.url}/openai/v1/rerank`, body), 400, 'invalid_request_error', 'invalid_input', param);
  });

  it('a body that is not JSON, or not an object', async () => {
    expectOpenAiError(await post(`${srv.url}/openai/v1/embeddings`, '{"model":', { 'content-type': 'application/json' }), 400, 'invalid_request_error', 'invalid_input');
    expectOpenAiError(await post(`${srv.url}/openai/v1/embeddings`, '[1,2]', { 'content-type': 'application/json' }), 400, 'invalid_request_error', 'invalid_input');
  });

  it('an unknown model is 404 model_not_found', async () => {
    expectOpenAiError(await embeddings({ model: 'nope', input: 'x' }), 404, 'not_found_error', 'model_not_found', null, /Model with name nope does not exist/);
  });

  it('are counted in kserve_inference_requests_total under protocol openai, as successes are', async () => {
    const count = async (status: string) =>
      metricValue((await get(`${srv.url}/metrics`)).text, 'kserve_inference_requests_total', { model_name: 'encoder-mean', protocol: 'openai', status_code: status });
    const [ok, bad] = [await count('200'), await count('400')];
    await embeddings({ model: 'encoder-mean', input: 'x' });
    await embeddings({ model: 'encoder-mean', input: [] });
    expect([await count('200'), await count('400')]).toEqual([ok + 1, bad + 1]);
  });

  it('the server still serves after all of them', async () => {
    expect((await embeddings({ model: 'encoder-mean', input: 'still here' })).status).toBe(200);
  });
});

describe('the same models over V2', () => {
  it('BYTES text in, FP32 embedding and INT64 prompt_tokens out, equal to the OpenAI answer', async () => {
    const texts = fx.expected.texts.slice(0, 3);
    const meta = json(await get(`${srv.url}/v2/models/encoder-mean`)) as { platform: string; inputs: unknown[]; outputs: unknown[] };
    expect(meta.platform).toBe('text_embedding_onnx');
    expect(meta.inputs).toEqual([{ name: 'text', datatype: 'BYTES', shape: [-1] }]);
    const r = await post(`${srv.url}/v2/models/encoder-mean/infer`, { inputs: [{ name: 'text', datatype: 'BYTES', shape: [texts.length], data: texts }] });
    expect(r.status).toBe(200);
    const body = json(r) as { outputs: { name: string; datatype: string; shape: number[]; data: number[] }[] };
    const emb = body.outputs.find((o) => o.name === 'embedding');
    expect(emb).toMatchObject({ datatype: 'FP32', shape: [3, fx.expected.hidden] });
    texts.forEach((_, i) => expectClose(emb?.data.slice(i * fx.expected.hidden, (i + 1) * fx.expected.hidden) ?? [], fx.expected.embeddings['encoder-mean'][i] as number[]));
    expect(body.outputs.find((o) => o.name === 'prompt_tokens')).toMatchObject({ datatype: 'INT64', data: fx.expected.ids.slice(0, 3).map((l) => l.length) });
  });

  it('rerank scores over V2: query and documents in, score out', async () => {
    const { query, documents, logits } = fx.expected.rerank;
    const r = await post(`${srv.url}/v2/models/reranker/infer`, {
      inputs: [
        { name: 'query', datatype: 'BYTES', shape: [1], data: [query] },
        { name: 'documents', datatype: 'BYTES', shape: [documents.length], data: documents },
      ],
      outputs: [{ name: 'score' }],
    });
    expect(r.status).toBe(200);
    const body = json(r) as { outputs: { name: string; data: number[] }[] };
    expect(body.outputs.map((o) => o.name)).toEqual(['score']);
    body.outputs[0]?.data.forEach((s, i) => expect(s).toBeCloseTo(1 / (1 + Math.exp(-(logits[i] as number))), 6));
  });

  it('a V2 request with a wrong input is a 400 in V2 shape', async () => {
    const r = await post(`${srv.url}/v2/models/encoder-mean/infer`, { inputs: [{ name: 'texts', datatype: 'BYTES', shape: [1], data: ['x'] }] });
    expect(r.status).toBe(400);
    expect(Object.keys(json(r) as object)).toEqual(['error']);
  });
});

describe('the route prefix (--openai_route_prefix, env KSERVE_OPENAI_ROUTE_PREFIX)', () => {
  const prefixOf = (argv: string[], env: NodeJS.ProcessEnv = {}) => parseServeArgs(argv, env, []).config.openaiRoutePrefix;

  it.each([
    [[], {}, '/openai'],
    [[], { KSERVE_OPENAI_ROUTE_PREFIX: 'v/oai' }, '/v/oai'],
    [['--openai_route_prefix', '/mine/'], { KSERVE_OPENAI_ROUTE_PREFIX: 'v/oai' }, '/mine'],
    [['--openai_route_prefix', 'none'], {}, undefined],
  ] as const)('%j with %j is %s', (argv, env, prefix) => {
    expect(prefixOf([...argv], env)).toBe(prefix);
  });

  it.each(['', '/', 'a b', 'x?y'])("'%s' is refused at start-up", (value) => {
    expect(() => prefixOf(['--openai_route_prefix', value])).toThrow(FlagError);
  });

  it('serves the routes under another prefix, and none under /openai', async () => {
    const other = await startServer(['--model_dir', path.join(repo, 'encoder-cls'), '--model_name', 'enc', '--openai_route_prefix', 'v/oai']);
    try {
      const r = await post(`${other.url}/v/oai/v1/embeddings`, { model: 'enc', input: 'hello world' });
      expect(r.status).toBe(200);
      expectClose((json(r) as EmbeddingList).data[0]?.embedding ?? [], fx.expected.embeddings['encoder-cls'][0] as number[]);
      expect((await post(`${other.url}/openai/v1/embeddings`, { model: 'enc', input: 'x' })).status).toBe(404);
    } finally {
      await other.close();
    }
  });
});
