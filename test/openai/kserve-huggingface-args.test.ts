/**
 * An InferenceService written for KServe's huggingfaceserver, end to end through kserve-ts:
 * the controller's runtime selection and pod plan (controller/reconcile/predictor-resolution.ts
 * with the shipped kserve-ts-text runtime) give the container's args; the real server parses
 * exactly those args (only /mnt/models and the ports swapped for the fixture folder and
 * loopback port 0) and answers /openai/v1/embeddings and /openai/v1/rerank as the Python
 * reference does. KServe's flags kserve-ts does not use are warned about, with why; a task or
 * backend it does not serve stops the start.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InferenceService, ModelSpec } from '../../controller/api/inference-service.js';
import type { ServingRuntime } from '../../controller/api/serving-runtime.js';
import { parseInferenceServiceConfig } from '../../controller/config/inferenceservice-config.js';
import { resolvePredictor } from '../../controller/reconcile/predictor-resolution.js';
import { FlagError } from '../../cli/flags.js';
import { parseServeArgs } from '../../server/config.js';
import { defaultBackends } from '../../server/server.js';
import { ROOT, type TestServer, startServer } from '../helpers/server.js';
import { type TextFixtures, textEncoderFixtures } from '../helpers/text-encoders.js';

const runtimes = parseAllDocuments(readFileSync(path.join(ROOT, 'controller/runtimes/kserve-ts.yaml'), 'utf8')).map((d) => d.toJS() as ServingRuntime);
const config = parseInferenceServiceConfig({ storageInitializer: '{"image": "kserve-ts-storage-initializer:0.1.0"}' });

/** The kserve-container args the controller renders for `model`, on the shipped runtimes. */
function renderedArgs(name: string, model: ModelSpec): string[] {
  const isvc: InferenceService = { apiVersion: 'serving.kserve.io/v1beta1', kind: 'InferenceService', metadata: { name, namespace: 'ns' }, spec: { predictor: { model } } };
  const r = resolvePredictor(isvc, config, { namespaced: [], cluster: runtimes });
  if (!r.ok) throw new Error(r.message);
  expect(r.runtime?.name).toBe('kserve-ts-text');
  return r.plan.podSpec.containers[0]?.args ?? [];
}

/** The pod's args with the model folder and ports of this test. */
function localArgs(args: readonly string[], modelDir: string): string[] {
  return args.filter((a) => !/^--(http|grpc)_port=/.test(a)).map((a) => (a === '--model_dir=/mnt/models' ? `--model_dir=${modelDir}` : a));
}

const post = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

// KServe's text-embedding example's args, and the huggingfaceserver flags a user may carry over.
const EMBEDDING_ARGS = [
  '--model_name=bge',
  '--model_id=BAAI/bge-small-en-v1.5',
  '--task=text_embedding',
  '--backend=huggingface',
  '--max_length=128',
  '--dtype=float32',
  '--trust_remote_code',
  '--disable_lower_case',
];

let fx: TextFixtures;
let embedder: TestServer;
let reranker: TestServer;
let embedArgs: string[];

beforeAll(async () => {
  fx = await textEncoderFixtures();
  embedArgs = localArgs(
    renderedArgs('emb', { modelFormat: { name: 'huggingface' }, storageUri: 'hf://BAAI/bge-small-en-v1.5', args: EMBEDDING_ARGS }),
    path.join(fx.dir, 'encoder-mean'),
  );
  embedder = await startServer(embedArgs);
  const rerankArgs = renderedArgs('rr', { modelFormat: { name: 'huggingface' }, storageUri: 'hf://org/reranker', args: ['--model_name=rr', '--task=sequence_classification'] });
  reranker = await startServer(localArgs(rerankArgs, path.join(fx.dir, 'reranker')));
}, 600_000);

afterAll(async () => {
  await embedder?.close();
  await reranker?.close();
});

describe("KServe huggingfaceserver's InferenceService args on kserve-ts-text", () => {
  it('the rendered args are the runtime flags then the model args', () => {
    expect(embedArgs.slice(0, 2)).toEqual(['--model_name=emb', `--model_dir=${path.join(fx.dir, 'encoder-mean')}`]);
    expect(embedArgs.slice(2)).toEqual(EMBEDDING_ARGS);
  });

  it('serves /openai/v1/embeddings under the model name the args give, as the Python reference', async () => {
    const r = await post(`${embedder.url}/openai/v1/embeddings`, { model: 'bge', input: fx.expected.texts });
    expect(r.status).toBe(200);
    const body = (await r.json()) as { model: string; data: { embedding: number[] }[]; usage: { prompt_tokens: number } };
    expect(body.model).toBe('bge');
    const expected = fx.expected.embeddings['encoder-mean'];
    expect(body.data).toHaveLength(expected.length);
    body.data.forEach((d, i) => {
      const want = expected[i] as readonly number[];
      expect(d.embedding).toHaveLength(want.length);
      expect(Math.max(...d.embedding.map((v, j) => Math.abs(v - (want[j] as number))))).toBeLessThan(1e-5);
    });
    expect(body.usage.prompt_tokens).toBe(fx.expected.ids.reduce((n, ids) => n + ids.length, 0));
  });

  it('a cross-encoder with --task=sequence_classification serves /openai/v1/rerank', async () => {
    const { query, documents, logits } = fx.expected.rerank;
    const r = await post(`${reranker.url}/openai/v1/rerank`, { model: 'rr', query, documents });
    expect(r.status).toBe(200);
    const body = (await r.json()) as { results: { index: number; relevance_score: number }[] };
    expect(body.results).toHaveLength(documents.length);
    for (const res of body.results) expect(res.relevance_score).toBeCloseTo(1 / (1 + Math.exp(-(logits[res.index] as number))), 6);
  });

  it('warns once about each huggingfaceserver flag it does not use, with why; --task and --backend are its own', () => {
    const { warnings } = parseServeArgs(embedArgs, {}, defaultBackends().flags());
    expect(warnings).toEqual([
      '--model_id is accepted for KServe compatibility and has no effect: the model is read from --model_dir; the controller turns --model_id into storageUri hf://ID for the storage-initializer',
      "--max_length is accepted for KServe compatibility and has no effect: the max length is the model folder's (sentence_bert_config.json max_seq_length, else tokenizer_config.json model_max_length)",
      "--dtype is accepted for KServe compatibility and has no effect: the ONNX graph's own types are used",
      '--trust_remote_code is accepted for KServe compatibility and has no effect: no model code is run: the ONNX graph is the model',
      "--disable_lower_case is accepted for KServe compatibility and has no effect: tokenizer.json's normalizer decides lower-casing",
    ]);
  });

  it.each([
    [
      ['--task=text_generation'],
      "--task 'text_generation' is not served by kserve-ts, which serves text_embedding (an embedding model folder, on /openai/v1/embeddings and V2), sequence_classification (a one-label cross-encoder folder, on /openai/v1/rerank and V2); generation and the other Hugging Face tasks belong on KServe's huggingfaceserver or a vLLM runtime",
    ],
    [['--task', 'fill_mask'], "--task 'fill_mask' is not served by kserve-ts"],
    [['--backend=vllm'], "--backend 'vllm' is KServe huggingfaceserver's; kserve-ts runs the model with ONNX Runtime in process (--backend auto or huggingface)"],
  ])('%j stops the start with a message that says where it belongs', (argv, message) => {
    expect(() => parseServeArgs(['--model_dir=/mnt/models', ...argv], {}, defaultBackends().flags())).toThrow(FlagError);
    expect(() => parseServeArgs(['--model_dir=/mnt/models', ...argv], {}, defaultBackends().flags())).toThrow(message);
  });
});
