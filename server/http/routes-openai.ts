/**
 * OpenAI-compatible routes for text models, under a configurable prefix (KServe's
 * KSERVE_OPENAI_ROUTE_PREFIX, `/openai` by default): embeddings, rerank and the model list.
 * Generation routes answer 404 saying where generation belongs. Errors under the prefix are
 * sent in OpenAI's shape by the app's one error handler (error-body.ts), from the same
 * catalogue as the KServe routes.
 *
 * A request names its model in the body, so the body is parsed here (to find the lease)
 * and the rest is the pipeline's, as for V1 and V2: the codecs turn the document into the
 * neutral request and the model's tensors back into OpenAI's answer.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../../protocols/errors.js';
import { embeddingsCodec } from '../../protocols/openai/embeddings-codec.js';
import { rerankCodec } from '../../protocols/openai/rerank-codec.js';
import { type JsonObject, parseJsonObject, requiredString } from '../../protocols/openai/request-fields.js';
import { TEXT_EMBEDDING_PLATFORM, TEXT_RERANK_PLATFORM } from '../../protocols/openai/text-tasks.js';
import type { Codec, Decoded, WireMessage } from '../pipeline/codec.js';
import { infer } from '../pipeline/verbs.js';
import type { InferResponse } from '../../protocols/tensor.js';
import { bodyBytes } from './body-parsers.js';
import { clientGone } from './client-gone.js';
import type { HttpContext } from './context.js';
import { pathOf } from './errors.js';
import { requestHeaders } from './model-headers.js';
import { tagParsedInference } from './request-metrics.js';

const TEXT_PLATFORMS: ReadonlySet<string> = new Set([TEXT_EMBEDDING_PLATFORM, TEXT_RERANK_PLATFORM]);

/** The routes OpenAI's clients call for generation: answered 404 with where to go instead. */
const GENERATION_ROUTES = ['/v1/completions', '/v1/chat/completions'] as const;

export function openAiRoutes(ctx: HttpContext) {
  const { dataplane } = ctx;
  // OpenAI's `created` is when the model was made; the server's start is the nearest fact it has.
  const created = Math.floor(Date.now() / 1000);

  async function run<D extends Decoded>(req: FastifyRequest, reply: FastifyReply, codec: Codec<JsonObject, D, InferResponse, WireMessage>) {
    const doc = parseJsonObject(bodyBytes(req.body));
    const name = requiredString(doc, 'model');
    tagParsedInference(req, 'openai', name);
    const answer = await dataplane.run({
      name,
      version: undefined,
      transport: 'rest',
      verb: infer,
      codec,
      input: doc,
      headers: requestHeaders(req.headers),
      signal: clientGone(reply),
    });
    return reply.type(answer.message.contentType).send(answer.message.body);
  }

  /** Text models that are loaded; others (a plain ONNX graph, a model still loading) are not OpenAI's models. */
  function textModels(): string[] {
    return dataplane.modelStates().flatMap(({ name, state }) => (state === 'READY' && TEXT_PLATFORMS.has(dataplane.modelMetadata(name).platform) ? [name] : []));
  }

  const modelCard = (id: string) => ({ id, object: 'model', created, owned_by: 'kserve-ts' });

  return async (app: FastifyInstance): Promise<void> => {
    app.post('/v1/embeddings', { schema: { summary: 'Embeddings (OpenAI)' } }, (req, reply) => run(req, reply, embeddingsCodec));
    app.post('/v1/rerank', { schema: { summary: 'Rerank (KServe, vLLM, Cohere)' } }, (req, reply) => run(req, reply, rerankCodec));
    app.get('/v1/models', { schema: { summary: 'List text models (OpenAI)' } }, async () => ({ object: 'list', data: textModels().map(modelCard) }));
    app.get<{ Params: { id: string } }>('/v1/models/:id', { schema: { summary: 'One text model (OpenAI)' } }, async (req) => {
      const { id } = req.params;
      if (!textModels().includes(id)) throw errors.modelNotFound(id);
      return modelCard(id);
    });
    for (const route of GENERATION_ROUTES) {
      app.post(route, { schema: { summary: 'Not served: this server serves encoders' } }, async (req) => {
        throw errors.generationNotServed(pathOf(req.url));
      });
    }
  };
}
