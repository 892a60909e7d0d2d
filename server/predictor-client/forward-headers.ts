/**
 * Which headers travel between the transformer's request and the predictor, as KServe's
 * Model does (`_FORWARDABLE_HEADERS`): the request id, the B3 trace id and the caller's
 * authorization go on; nothing else does (the client's host, lengths and encodings are the
 * transformer's, not the predictor's, and cookies or proxy headers are not meant for it).
 * gRPC adds KServe's `request_type` / `response_type` metadata (grpc-v2-client.ts).
 *
 * Back from the predictor: its request id and B3 trace headers, for callers that correlate
 * the hop; the transformer's own response headers set by hooks take precedence.
 */
export const FORWARDED_REQUEST_HEADERS: readonly string[] = ['x-request-id', 'x-b3-traceid', 'authorization'];

export const RETURNED_RESPONSE_HEADERS: readonly string[] = ['x-request-id', 'x-b3-traceid'];

function pick(from: Readonly<Record<string, string | string[] | undefined>>, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const v = from[name];
    const value = Array.isArray(v) ? v[0] : v;
    if (value !== undefined && value !== '') out[name] = value;
  }
  return out;
}

/** The headers of the transformer's request that go to the predictor (lower-case names). */
export function forwardedHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  return pick(headers, FORWARDED_REQUEST_HEADERS);
}

/** The predictor's response headers that come back to the transformer's client. */
export function returnedHeaders(headers: Readonly<Record<string, string | string[] | undefined>>): Record<string, string> {
  return pick(headers, RETURNED_RESPONSE_HEADERS);
}
