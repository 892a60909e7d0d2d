/**
 * The router's HTTP side, as KServe's cmd/router serves it: any method on any path is a
 * graph request (the body goes to the root node; the path is not read), `/readyz` is the
 * readiness probe (503 "shutting down" once draining). Answers: a step's answer with its
 * status (Content-Type application/json when it is JSON, else what Go's net/http would
 * sniff), or `{"error":"Failed to process request","cause":...}` with the routing
 * status. The server timeouts are the graph's routerTimeouts (KServe's defaults: read
 * 60 s, write 60 s, idle 180 s); a graph that has not answered when the write timeout
 * passes loses its connection without an answer, as with Go's WriteTimeout.
 *
 * Beyond KServe: GET /metrics, GET /v2/health/live and /v2/health/ready (ready as
 * /readyz), readiness that follows the steps, a bounded request body (413), V2 binary
 * tensor bodies passed on with their Inference-Header-Content-Length, and the trace
 * headers always propagated.
 */
import http from 'node:http';
import type { Logger } from 'pino';
import { HEADER_LENGTH_HEADER } from '../../protocols/v2/rest-request.js';
import { Routing } from '../executor.js';
import type { GraphSpec } from '../graph-spec.js';
import { propagatedHeaders } from '../header-propagation.js';
import { goJsonSyntaxError, goString } from '../go-json.js';
import type { RouterMetrics } from '../metrics.js';
import { RoutingError } from '../routing-error.js';
import { type RestPayload, type StepPools, restWire } from './rest-wire.js';
import { detectContentType } from './sniff.js';

export interface ServerTimeouts {
  readonly readSeconds: number;
  readonly writeSeconds: number;
  readonly idleSeconds: number;
}

export interface HttpFrontOptions {
  readonly spec: GraphSpec;
  readonly pools: StepPools;
  readonly metrics: RouterMetrics;
  readonly logger: Logger;
  readonly timeouts: ServerTimeouts;
  readonly propagate: readonly RegExp[];
  readonly maxBodyBytes: number;
  /** 200, or 503 with a reason (shutting down, steps not ready). */
  readonly readiness: () => Promise<{ ready: boolean; reason: string }>;
}

/** KServe's router's error body: struct field order (error, cause), Go's string escaping. */
export function errorBody(cause: string): Buffer {
  return Buffer.from(`{"error":${goString('Failed to process request')},"cause":${goString(cause)}}`, 'utf8');
}

function readBody(req: http.IncomingMessage, limit: number): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      resolve('too-large');
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        resolve('too-large');
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks, size)));
    req.on('error', reject);
  });
}

function send(res: http.ServerResponse, status: number, headers: Record<string, string>, body: Buffer): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { ...headers, 'content-length': String(body.length) });
  res.end(body);
}

function answerHeaders(payload: RestPayload): Record<string, string> {
  if (payload.headerLength !== undefined) {
    return { 'content-type': payload.contentType ?? 'application/octet-stream', [HEADER_LENGTH_HEADER]: String(payload.headerLength) };
  }
  if (goJsonSyntaxError(payload.body) === undefined) return { 'content-type': 'application/json' };
  return { 'content-type': detectContentType(payload.body) };
}

function incomingPayload(req: http.IncomingMessage, body: Buffer): RestPayload {
  const declared = Number(req.headers[HEADER_LENGTH_HEADER]);
  const headerLength = req.headers[HEADER_LENGTH_HEADER] !== undefined && Number.isSafeInteger(declared) && declared >= 0 && declared <= body.length ? declared : undefined;
  return { body, headerLength, contentType: req.headers['content-type'] };
}

export function buildHttpFront(opts: HttpFrontOptions): http.Server {
  const log = opts.logger.child({ component: 'http' });

  async function route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const body = await readBody(req, opts.maxBodyBytes);
    if (body === 'too-large') {
      send(res, 413, { 'content-type': 'application/json', connection: 'close' }, errorBody(`request body is larger than ${opts.maxBodyBytes} bytes`));
      opts.metrics.request('rest', 413);
      return;
    }
    // Aborts the step calls still running once the client is gone.
    const gone = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    const wire = opts.metrics.observed(restWire(opts.pools, { headers: propagatedHeaders(req.headers, opts.propagate), signal: gone.signal }), 'rest');
    try {
      const answer = await new Routing(opts.spec, wire).route(incomingPayload(req, body));
      send(res, answer.status, answerHeaders(answer.payload), answer.payload.body);
      opts.metrics.request('rest', answer.status);
    } catch (err) {
      if (!(err instanceof RoutingError)) throw err;
      log.warn({ cause: err.reason, status: err.status }, 'failed to process request');
      send(res, err.status, { 'content-type': 'application/json' }, errorBody(err.reason));
      opts.metrics.request('rest', err.status);
    }
  }

  async function ready(res: http.ServerResponse, v2: boolean): Promise<void> {
    const state = await opts.readiness();
    if (state.ready) send(res, 200, v2 ? { 'content-type': 'application/json' } : {}, Buffer.from(v2 ? '{"ready":true}' : ''));
    // As Go's http.Error: text/plain, nosniff, the text and a newline.
    else send(res, 503, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' }, Buffer.from(`${state.reason}\n`));
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (path === '/readyz') return ready(res, false);
    if (req.method === 'GET' && path === '/v2/health/ready') return ready(res, true);
    if (req.method === 'GET' && path === '/v2/health/live') return send(res, 200, { 'content-type': 'application/json' }, Buffer.from('{"live":true}'));
    if (req.method === 'GET' && path === '/metrics') {
      const text = await opts.metrics.registry.metrics();
      return send(res, 200, { 'content-type': opts.metrics.registry.contentType }, Buffer.from(text));
    }
    return route(req, res);
  }

  const server = http.createServer((req, res) => {
    // Go's WriteTimeout: past it, the connection goes without an answer.
    const writeTimer = setTimeout(() => {
      if (!res.writableEnded) res.destroy();
    }, opts.timeouts.writeSeconds * 1000);
    res.on('close', () => clearTimeout(writeTimer));
    handle(req, res).catch((err: unknown) => {
      log.error({ err }, 'router request failed');
      send(res, 500, { 'content-type': 'application/json' }, errorBody(err instanceof Error ? err.message : String(err)));
    });
  });
  server.requestTimeout = opts.timeouts.readSeconds * 1000;
  server.headersTimeout = Math.min(60_000, server.requestTimeout);
  server.keepAliveTimeout = opts.timeouts.idleSeconds * 1000;
  return server;
}
