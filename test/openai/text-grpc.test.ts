/**
 * One text model serves both worlds: the embedding model and the cross-encoder over gRPC
 * ModelInfer (BYTES in, FP32 out) give the Python reference's numbers, as over the OpenAI
 * routes and V2 REST (openai-routes.test.ts).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type GrpcTestClient, grpcClient } from '../grpc/client.js';
import { type TestServer, startServer } from '../helpers/server.js';
import { type TextFixtures, textEncoderFixtures } from '../helpers/text-encoders.js';

let fx: TextFixtures;
let srv: TestServer;
let client: GrpcTestClient;

beforeAll(async () => {
  fx = await textEncoderFixtures();
  srv = await startServer(['--model_repository', fx.dir], { grpc: true });
  client = grpcClient(srv.grpcAddress as string);
}, 600_000);

afterAll(async () => {
  client?.close();
  await srv?.close();
});

const bytes = (texts: readonly string[]) => texts.map((t) => Buffer.from(t, 'utf8'));

it('embeds BYTES text over gRPC as the Python reference does', async () => {
  const texts = fx.expected.texts;
  const res = await client.infer({ model_name: 'encoder-mean', inputs: [{ name: 'text', datatype: 'BYTES', shape: [texts.length], contents: { bytes_contents: bytes(texts) } }] });
  const emb = res.outputs.find((o) => o.name === 'embedding');
  expect(emb?.shape.map(Number)).toEqual([texts.length, fx.expected.hidden]);
  const values = Array.from(emb?.contents?.fp32_contents ?? []);
  const expected = fx.expected.embeddings['encoder-mean'].flat();
  expect(values).toHaveLength(expected.length);
  expect(Math.max(...values.map((v, i) => Math.abs(v - (expected[i] as number))))).toBeLessThan(1e-5);
  const tokens = res.outputs.find((o) => o.name === 'prompt_tokens');
  expect(Array.from(tokens?.contents?.int64_contents ?? [], Number)).toEqual(fx.expected.ids.map((l) => l.length));
});

it('scores query-document pairs over gRPC', async () => {
  const { query, documents, logits } = fx.expected.rerank;
  const res = await client.infer({
    model_name: 'reranker',
    inputs: [
      { name: 'query', datatype: 'BYTES', shape: [1], contents: { bytes_contents: bytes([query]) } },
      { name: 'documents', datatype: 'BYTES', shape: [documents.length], contents: { bytes_contents: bytes(documents) } },
    ],
    outputs: [{ name: 'score' }],
  });
  const scores = Array.from(res.outputs[0]?.contents?.fp32_contents ?? []);
  expect(scores).toHaveLength(documents.length);
  scores.forEach((s, i) => expect(s).toBeCloseTo(1 / (1 + Math.exp(-(logits[i] as number))), 6));
});
