/**
 * CloudEvents over REST, as KServe's Python server takes and answers them
 * (kserve/protocol/dataplane.py `decode`/`encode`, utils `create_response_cloudevent`):
 *
 * - Binary mode: the request carries `ce-specversion`, `ce-id`, `ce-source` and `ce-type`
 *   headers; the body is the event's data, handed to the protocol codec unchanged.
 * - Structured mode: `Content-Type: application/cloudevents+json`; the body is the event,
 *   its `data` (a JSON value) or `data_base64` is what the codec decodes.
 * - The answer comes in kind: a new id, `source` `io.kserve.inference.{model}`, `type`
 *   `io.kserve.inference.response`, `time` now; binary mode as `ce-*` headers around the
 *   codec's body, structured mode as an envelope whose `data` is the codec's JSON (or
 *   `data_base64` for a body that is not JSON, e.g. V2 binary tensor data).
 *
 * Only the wire changes: codecs, the data plane and backends see the event's data as an
 * ordinary request body. A body that is not a CloudEvent passes through untouched.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../../protocols/errors.js';
import { memberValue } from '../../protocols/json/json-member-span.js';
import { HEADER_LENGTH_HEADER } from '../../protocols/v2/rest-request.js';

export type CloudEventMode = 'binary' | 'structured';

export const STRUCTURED_CONTENT_TYPE = 'application/cloudevents+json';
export const RESPONSE_EVENT_TYPE = 'io.kserve.inference.response';

/** The spec versions the CloudEvents SDKs KServe uses read. */
const SPEC_VERSIONS = new Set(['1.0', '0.3']);
const REQUIRED = ['specversion', 'id', 'source', 'type'] as const;

/** Why an event is refused (400): one place for the messages clients see. */
const invalid = {
  missingHeaders: (names: readonly string[]) => errors.invalidInput(`Invalid CloudEvent: binary mode needs the headers ${names.map((n) => `ce-${n}`).join(', ')}`),
  specVersion: (v: string) => errors.invalidInput(`Invalid CloudEvent: specversion '${v}' is not supported (1.0 or 0.3)`),
  notJson: (reason: string) => errors.invalidInput(`Invalid CloudEvent: a structured event must be a JSON object (${reason})`),
  missingAttributes: (names: readonly string[]) => errors.invalidInput(`Invalid CloudEvent: the structured event lacks ${names.join(', ')}`),
  noData: () => errors.invalidInput('Invalid CloudEvent: the structured event has neither data nor data_base64'),
  badBase64: () => errors.invalidInput('Invalid CloudEvent: data_base64 is not a base64 string'),
} as const;

const headerOf = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/** Whether the media type (parameters ignored) is `type`. */
function isMediaType(contentType: string | undefined, type: string): boolean {
  if (contentType === undefined) return false;
  const semi = contentType.indexOf(';');
  return (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase() === type;
}

const isJsonMediaType = (contentType: string | undefined): boolean =>
  contentType === undefined || isMediaType(contentType, 'application/json') || /\+json\s*(;|$)/i.test(contentType) || isMediaType(contentType, 'text/json');

/**
 * The event a request body is, and its data; undefined when the request is no CloudEvent.
 * Binary mode is marked by `ce-specversion` (a lone `ce-id`, as KServe's logger reads for a
 * request id, is no event). Throws InvalidInput (400) for a malformed event.
 */
/** The mode each CloudEvent request came in, for the answer (a request that is no event has none). */
const modes = new WeakMap<FastifyRequest, CloudEventMode>();

/**
 * Binary mode is marked by `ce-specversion` (a lone `ce-id`, which KServe's logger reads as
 * a request id, is no event).
 */
export function isBinaryCloudEvent(headers: IncomingHttpHeaders): boolean {
  return headers['ce-specversion'] !== undefined;
}

/** Checks a binary-mode event's attributes (its body is its data) and remembers its mode. Throws InvalidInput. */
export function acceptBinaryEvent(req: FastifyRequest): void {
  const specversion = headerOf(req.headers, 'ce-specversion') ?? '';
  const missing = REQUIRED.filter((a) => !headerOf(req.headers, `ce-${a}`)?.trim());
  if (missing.length > 0) throw invalid.missingHeaders(missing);
  if (!SPEC_VERSIONS.has(specversion.trim())) throw invalid.specVersion(specversion);
  modes.set(req, 'binary');
}

/** A structured-mode event's data, the body the routes decode; remembers its mode. Throws InvalidInput. */
export function acceptStructuredEvent(req: FastifyRequest, body: Buffer): Buffer {
  const data = structuredData(body);
  modes.set(req, 'structured');
  return data;
}

function structuredData(body: Buffer): Buffer {
  let event: unknown;
  try {
    event = JSON.parse(body.toString('utf8'));
  } catch (e) {
    throw invalid.notJson((e as Error).message);
  }
  if (event === null || typeof event !== 'object' || Array.isArray(event)) throw invalid.notJson('not an object');
  const attrs = event as Record<string, unknown>;
  const missing = REQUIRED.filter((a) => typeof attrs[a] !== 'string' || attrs[a] === '');
  if (missing.length > 0) throw invalid.missingAttributes(missing);
  if (!SPEC_VERSIONS.has(attrs['specversion'] as string)) throw invalid.specVersion(attrs['specversion'] as string);
  if (Object.hasOwn(attrs, 'data_base64')) {
    const b64 = attrs['data_base64'];
    if (typeof b64 !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(b64.replace(/\s+/g, ''))) throw invalid.badBase64();
    return Buffer.from(b64, 'base64');
  }
  if (!Object.hasOwn(attrs, 'data')) throw invalid.noData();
  const data = attrs['data'];
  // Text data is the body's text (JSON sent as a string included); anything else is a JSON
  // document, handed on as the bytes the client sent, as binary mode does: the codec's
  // limits (nesting depth included) apply to it alike.
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  const span = memberValue(body, 'data') as Uint8Array;
  return Buffer.from(span.buffer, span.byteOffset, span.byteLength);
}

/**
 * Sets the reply's content type (and, for an event, its attributes) and returns the body to
 * send: the codec's own for a plain request or a binary-mode event, the envelope for a
 * structured-mode one.
 */
export function replyInKind(req: FastifyRequest, reply: FastifyReply, model: string, body: string | Buffer, contentType: string): string | Buffer {
  const mode = modes.get(req);
  if (mode === undefined) {
    void reply.type(contentType);
    return body;
  }
  const event = responseEvent(mode, model, body, contentType);
  for (const [k, v] of Object.entries(event.headers)) void reply.header(k, v);
  // The binary extension's split point belongs to the data, which the envelope encodes.
  if (mode === 'structured') void reply.removeHeader(HEADER_LENGTH_HEADER);
  void reply.type(mode === 'structured' ? STRUCTURED_CONTENT_TYPE : contentType);
  return event.body;
}

export interface ResponseEvent {
  /** Binary mode: the `ce-*` attributes; structured mode: none (the envelope carries them). */
  readonly headers: Record<string, string>;
  /** The codec's body unchanged (binary) or the envelope (structured). */
  readonly body: string | Buffer;
}

/** The answer in the mode the request came in, around the codec's encoded response. */
export function responseEvent(mode: CloudEventMode, model: string, body: string | Buffer, contentType: string, now = new Date()): ResponseEvent {
  const attributes = { specversion: '1.0', id: randomUUID(), source: `io.kserve.inference.${model}`, type: RESPONSE_EVENT_TYPE, time: now.toISOString() };
  if (mode === 'binary') {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(attributes)) headers[`ce-${k}`] = v;
    return { headers, body };
  }
  const head = `${JSON.stringify(attributes).slice(0, -1)},"datacontenttype":${JSON.stringify(contentType)}`;
  // The codec's JSON is spliced in as it is, not parsed and serialised again.
  const envelope = isJsonMediaType(contentType)
    ? `${head},"data":${typeof body === 'string' ? body : body.toString('utf8')}}`
    : `${head},"data_base64":"${Buffer.from(body).toString('base64')}"}`;
  // A Buffer: fastify would add `; charset=utf-8` to a string's content type, and clients
  // compare the CloudEvents media type verbatim.
  return { headers: {}, body: Buffer.from(envelope, 'utf8') };
}
