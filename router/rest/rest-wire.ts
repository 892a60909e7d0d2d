/**
 * The REST wire of the graph: payloads are bodies as bytes. KServe's router forwards JSON
 * bodies untouched and builds new JSON only for an ensemble and mapPredictionsToInstances
 * (with Go's encoding, go-json.ts). Beyond KServe, a V2 body with the binary tensor
 * extension (Inference-Header-Content-Length) travels the same way, its header length
 * with it, so Sequence `$request` steps and Splitters pass binary tensors through
 * without decoding them; conditions read the body's JSON header.
 */
import { HttpForwarder } from '../../server/predictor-client/http-forwarder.js';
import { DEFAULT_MAX_INFLIGHT_ANSWER_BYTES } from '../../server/predictor-client/predictor-config.js';
import { HEADER_LENGTH_HEADER } from '../../protocols/v2/rest-request.js';
import { bytesOf } from '../gjson/index.js';
import { type GoValue, goJsonSyntaxError, marshalGo, unmarshalObject } from '../go-json.js';
import type { GraphWire, StepAnswer, StepRef } from '../executor.js';
import { RoutingError } from '../routing-error.js';
import { goHttpErrors } from './go-http-errors.js';

export interface RestPayload {
  readonly body: Buffer;
  /** V2 binary tensor extension: the JSON header's byte length. */
  readonly headerLength: number | undefined;
  /** A step answer's Content-Type (what binary answers go back with). */
  readonly contentType: string | undefined;
}

export type EnsemblePart = { [key: string]: GoValue } | null;

/** What one request's step calls share: its propagated headers, and a signal aborted when its client is gone. */
export interface RestRequestContext {
  readonly headers: Readonly<Record<string, string>>;
  readonly signal: AbortSignal;
}

/** One pooled keep-alive client per step origin, for the router's life. */
export class StepPools {
  readonly #pools = new Map<string, HttpForwarder>();
  constructor(readonly timeoutSeconds: number | undefined) {}

  forUrl(url: URL): HttpForwarder {
    const key = url.origin;
    let pool = this.#pools.get(key);
    if (pool === undefined) {
      pool = new HttpForwarder({
        host: url.host,
        protocol: 'v2',
        useSsl: url.protocol === 'https:',
        // KServe's default is http.DefaultClient: no limit.
        requestTimeoutSeconds: this.timeoutSeconds ?? Infinity,
        retries: 0,
        healthCheck: false,
        // Each step origin's pool holds at most this many bytes of answers being read.
        maxInflightAnswerBytes: DEFAULT_MAX_INFLIGHT_ANSWER_BYTES,
      });
      this.#pools.set(key, pool);
    }
    return pool;
  }

  async close(): Promise<void> {
    await Promise.all([...this.#pools.values()].map((p) => p.close()));
  }
}

function parseUrl(url: string): URL {
  try {
    return new URL(url);
  } catch {
    // Go's url.Parse takes "" (and other scheme-less text) and fails later, at the call.
    const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(url)?.[1] ?? '';
    if (scheme === '') throw new RoutingError(500, goHttpErrors.unsupportedScheme(url, ''));
    throw new RoutingError(500, goHttpErrors.unparsable(url));
  }
}

/** Go's json.Unmarshal into struct{Predictions, Instances []interface{}}: the two arrays, or undefined on any error. */
function predictionsOf(body: Buffer): GoValue[] | undefined {
  if (goJsonSyntaxError(body) !== undefined) return undefined;
  const doc = JSON.parse(body.toString('utf8')) as GoValue;
  if (doc === null) return undefined;
  if (typeof doc !== 'object' || Array.isArray(doc)) return undefined;
  let predictions: GoValue[] | undefined;
  for (const [k, v] of Object.entries(doc)) {
    const lower = k.toLowerCase();
    if (lower !== 'predictions' && lower !== 'instances') continue;
    if (v !== null && !Array.isArray(v)) return undefined;
    if (lower === 'predictions') predictions = v ?? undefined;
  }
  if (unmarshalObject(body).ok === false) return undefined;
  return predictions;
}

export function restWire(pools: StepPools, ctx: RestRequestContext): GraphWire<RestPayload, EnsemblePart> {
  return {
    async call(ref: StepRef, input: RestPayload): Promise<StepAnswer<RestPayload>> {
      const url = parseUrl(ref.url);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RoutingError(500, goHttpErrors.unsupportedScheme(ref.url, url.protocol.slice(0, -1)));
      const headers: Record<string, string> = { ...ctx.headers };
      if (input.headerLength !== undefined) {
        headers[HEADER_LENGTH_HEADER] = String(input.headerLength);
        headers['content-type'] ??= 'application/octet-stream';
      } else {
        headers['content-type'] ??= 'application/json';
      }
      const result = await pools.forUrl(url).exchange(url.pathname + url.search, headers, input.body, ctx.signal);
      switch (result.kind) {
        case 'answer': {
          const { status, headers: h, body } = result.answer;
          const declared = Number(h[HEADER_LENGTH_HEADER]);
          const headerLength = Number.isSafeInteger(declared) && declared >= 0 && declared <= body.length ? declared : undefined;
          return { status, payload: { body, headerLength, contentType: h['content-type'] } };
        }
        case 'timeout':
          throw new RoutingError(500, result.headersArrived ? goHttpErrors.timeoutReadingBody() : goHttpErrors.timeoutAwaitingHeaders(ref.url), true);
        case 'cancelled':
          throw new RoutingError(499, goHttpErrors.cancelled(ref.url));
        case 'failed':
          throw new RoutingError(500, goHttpErrors.transport(ref.url, url, result.error));
      }
    },

    conditionDocument(p: RestPayload): string {
      return bytesOf(p.headerLength === undefined ? p.body : p.body.subarray(0, p.headerLength));
    },

    mapPredictionsToInstances(p: RestPayload): RestPayload {
      if (p.headerLength !== undefined) return p;
      const predictions = predictionsOf(p.body);
      if (predictions === undefined || predictions.length === 0) return p;
      return { body: Buffer.from(`{"instances":${marshalGo(predictions)}}`, 'utf8'), headerLength: undefined, contentType: undefined };
    },

    ensemblePart(_ref: StepRef, answer: StepAnswer<RestPayload>): EnsemblePart {
      const r = unmarshalObject(answer.payload.body);
      if (!r.ok) throw new RoutingError(500, r.error);
      return r.value;
    },

    ensembleFailure(part: EnsemblePart, status: number): StepAnswer<RestPayload> {
      return { status, payload: { body: Buffer.from(marshalGo(part), 'utf8'), headerLength: undefined, contentType: undefined } };
    },

    ensembleMerge(parts: readonly (readonly [string, EnsemblePart])[]): RestPayload {
      // No prototype: a step named __proto__ is a key like any other.
      const merged = Object.create(null) as { [key: string]: GoValue };
      for (const [k, v] of parts) merged[k] = v;
      return { body: Buffer.from(marshalGo(merged), 'utf8'), headerLength: undefined, contentType: undefined };
    },
  };
}
