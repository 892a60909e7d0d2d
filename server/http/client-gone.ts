/**
 * A signal that aborts when the client goes away before its response is complete (the
 * connection closed, e.g. the caller timed out), so work queued for it can be dropped
 * (InferContext.signal). A response that finished normally never aborts it.
 */
import type { FastifyReply } from 'fastify';

export function clientGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  const res = reply.raw;
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}
