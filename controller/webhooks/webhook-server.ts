/**
 * The HTTPS server the API server calls. Built separately from listening: tests start it on
 * port 0, the controller's main on the webhook port.
 *
 * Every AdmissionReview the server can read gets an HTTP 200 AdmissionReview answer with the
 * request's uid: a rejection or a failure inside a handler is `allowed: false` with the
 * message in `status`, so the user sees the reason. Only a body that is not an AdmissionReview
 * (nothing to answer to) gets an HTTP error: 400, 413 when too large, 404/405 for a wrong
 * path or method. `GET /healthz` answers 200.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { type AdmissionHandler, type AdmissionRequest, BadAdmissionReview, deny, parseAdmissionReview, toResponse, type Verdict } from './admission.js';
import { WebhookError } from './errors.js';
import { jsonSyntaxProblem } from './json-error.js';

export interface WebhookServerOptions {
  tls: { cert: string; key: string };
  /** Path → handler, e.g. `/mutate-pods`. */
  routes: Readonly<Record<string, AdmissionHandler>>;
  logger: Logger;
  /** Largest request body accepted. Default 32 MiB (an UPDATE carries two objects). */
  maxBodyBytes?: number;
}

export interface WebhookServer {
  /** Resolves with the bound address once listening (port 0 picks a free port). */
  listen(port: number, host?: string): Promise<{ host: string; port: number }>;
  /** Stops accepting, drops idle keep-alive connections, resolves when closed. */
  close(): Promise<void>;
  /** Swaps the serving certificate for new connections (a renewed mounted secret). */
  setCertificate(tls: { cert: string; key: string }): void;
}

const DEFAULT_MAX_BODY = 32 * 1024 * 1024;

export function createWebhookServer(options: WebhookServerOptions): WebhookServer {
  const { routes, logger } = options;
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const server: Server = createServer({ cert: options.tls.cert, key: options.tls.key, minVersion: 'TLSv1.2' }, (req, res) => {
    handle(req, res).catch((err: unknown) => {
      logger.error({ err }, 'webhook request failed');
      if (!res.headersSent) sendJson(res, 500, { message: 'internal error' });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'https://webhook').pathname;
    if (path === '/healthz' || path === '/readyz') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      return;
    }
    const route = Object.prototype.hasOwnProperty.call(routes, path) ? routes[path] : undefined;
    if (!route) return sendJson(res, 404, { message: `no webhook at ${path}` });
    if (req.method !== 'POST') return sendJson(res, 405, { message: `${req.method} not allowed: webhooks take POST` }, { allow: 'POST' });

    const body = await readBody(req, maxBody);
    if (body === undefined) return sendJson(res, 413, { message: `request body larger than ${maxBody} bytes` });
    let review: ReturnType<typeof parseAdmissionReview>;
    try {
      review = parseAdmissionReview(JSON.parse(body.toString('utf8')));
    } catch (err) {
      // A SyntaxError's message quotes the body, which may carry credentials: never repeat it.
      const why = err instanceof SyntaxError ? `request body is ${jsonSyntaxProblem(err)}` : (err as Error).message;
      logger.warn({ path, why }, 'bad AdmissionReview');
      return sendJson(res, 400, { message: `bad AdmissionReview: ${why}` });
    }

    const request = review.request;
    const verdict = await decide(route, request, path);
    sendJson(res, 200, { apiVersion: review.apiVersion, kind: 'AdmissionReview', response: toResponse(request.uid, verdict) });
  }

  async function decide(route: AdmissionHandler, request: AdmissionRequest, path: string): Promise<Verdict> {
    const about = { path, uid: request.uid, operation: request.operation, namespace: request.namespace, name: request.name };
    try {
      const verdict = await route(request);
      if (verdict.allowed) logger.debug({ ...about, patchOps: verdict.patch?.length ?? 0 }, 'admitted');
      else logger.info({ ...about, message: verdict.status.message }, 'denied');
      return verdict;
    } catch (err) {
      if (err instanceof WebhookError || err instanceof BadAdmissionReview) {
        const code = err instanceof WebhookError ? err.code : 400;
        logger.info({ ...about, message: err.message }, 'denied');
        return deny(code, err.message);
      }
      // A TypeError and its kin are a bug meeting an object the shape checks let through: the
      // API server gets a 500 that says so, never the raw message (it may quote the object).
      const internal = err instanceof TypeError || err instanceof RangeError || err instanceof ReferenceError || err instanceof SyntaxError || !(err instanceof Error);
      logger.error(
        { ...about, err: internal ? { type: (err as Error)?.name ?? typeof err, stack: (err as Error)?.stack?.split('\n').slice(1, 4).join(' | ') } : err },
        'webhook handler failed',
      );
      const message = internal ? `internal error (${(err as Error)?.name ?? 'unknown'}); the controller log has the details for request ${request.uid}` : err.message;
      return deny(500, `webhook ${path} failed: ${message}`);
    }
  }

  return {
    listen: (port, host = '0.0.0.0') =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          const address = server.address() as AddressInfo;
          resolve({ host: address.address, port: address.port });
        });
      }),
    close: () =>
      new Promise((resolve, reject) => {
        if (!server.listening) return resolve();
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeIdleConnections();
      }),
    setCertificate: (tls) => server.setSecureContext({ cert: tls.cert, key: tls.key }),
  };
}

/** The body, or undefined once it exceeds `limit` (the rest is drained, not buffered). */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) tooLarge = true;
      if (!tooLarge) chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? undefined : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers }).end(text);
}
