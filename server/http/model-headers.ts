/**
 * Headers between REST and a model's hooks (SDK models): request headers as one string per
 * lower-case name, and the headers a model set for its response, without the framing
 * headers the server owns (a model cannot change how the body is delimited or typed).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply } from 'fastify';

const SERVER_OWNED = new Set(['content-length', 'content-type', 'transfer-encoding', 'connection', 'keep-alive', 'inference-header-content-length']);

export function requestHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

export function sendModelHeaders(reply: FastifyReply, headers: Readonly<Record<string, string>>): void {
  for (const [k, v] of Object.entries(headers)) if (!SERVER_OWNED.has(k.toLowerCase())) void reply.header(k, v);
}
