/** Sends a pipeline answer (server/pipeline/pipeline.ts) over REST, in the request's CloudEvents mode if it came as one. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HEADER_LENGTH_HEADER } from '../../protocols/v2/rest-request.js';
import type { Answer } from '../pipeline/pipeline.js';
import { replyInKind } from './cloud-events.js';
import type { RestMessage } from './infer-codecs.js';
import { sendModelHeaders } from './model-headers.js';

export function sendAnswer(req: FastifyRequest, reply: FastifyReply, model: string, answer: Answer<RestMessage>): FastifyReply {
  const { message } = answer;
  sendModelHeaders(reply, answer.responseHeaders);
  if (message.headerLength !== undefined) void reply.header(HEADER_LENGTH_HEADER, String(message.headerLength));
  return reply.send(replyInKind(req, reply, model, message.body, message.contentType));
}
