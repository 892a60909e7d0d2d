/**
 * Builds the REST application (routes, parsers, error mapping) without binding a port:
 * tests call `inject` or listen on port 0; only the entry point listens on configured ports.
 */
import type { Server as HttpsServer } from 'node:https';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, LogController } from 'fastify';
import type { Logger } from 'pino';
import { errors } from '../../protocols/errors.js';
import { DEFAULT_LIMITS } from '../limits.js';
import { limitBodyBytesInFlight } from './body-budget.js';
import { registerAccessLog } from './access-log.js';
import { registerBodyParsers } from './body-parsers.js';
import { clientErrorHandler } from './client-errors.js';
import { limitConnections } from './connection-limit.js';
import { LimitLog } from '../limit-log.js';
import type { HttpContext } from './context.js';
import { errorBodyFor } from './error-body.js';
import { registerErrorHandlers } from './errors.js';
import { collectRoutes } from './method-not-allowed.js';
import { registerOpenApi } from './openapi.js';
import { type TlsFiles, createHttpsServer, watchTlsFiles } from './tls.js';
import { registerRequestMetrics } from './request-metrics.js';
import { openAiRoutes } from './routes-openai.js';
import { opsRoutes } from './routes-ops.js';
import { repositoryRoutes } from './routes-repository.js';
import { configRoutes } from './routes-config.js';
import { statsRoutes } from './routes-stats.js';
import { v1Routes } from './routes-v1.js';
import { v2Routes } from './routes-v2.js';

export interface HttpAppOptions extends HttpContext {
  readonly logger: Logger;
  /** Largest request body accepted (bytes). */
  readonly bodyLimit: number;
  /** Access-log line format (access-log.ts); absent: no access log. */
  readonly accessLogFormat?: string | undefined;
  /** Serve HTTPS with this certificate and key, reloaded when they change (tls.ts); absent: plain HTTP. */
  readonly tls?: TlsFiles | undefined;
}

/** Longest path parameter (a model name, a version); model names may contain '.', so routing is otherwise strict. */
const MAX_PARAM_LENGTH = 256;

export async function buildHttpApp(opts: HttpAppOptions): Promise<FastifyInstance> {
  const limits = opts.limits ?? DEFAULT_LIMITS;
  const requestTimeout = limits.requestTimeoutMs;
  const httpOptions = {
    maxHeaderSize: limits.maxHeaderBytes,
    headersTimeout: requestTimeout > 0 ? Math.min(limits.headersTimeoutMs, requestTimeout) : limits.headersTimeoutMs,
    requestTimeout,
    connectionsCheckingInterval: 1000,
  };
  const logger = opts.logger.child({ component: 'http' });
  // Typed as fastify's logger so Fastify() picks its default logger generic.
  const fastifyLogger: FastifyBaseLogger = logger;
  const limitLog = new LimitLog(logger);
  const tls = opts.tls;
  let httpsServer: HttpsServer | undefined;
  const app = Fastify({
    loggerInstance: fastifyLogger,
    logController: new LogController({ disableRequestLogging: true }),
    // No per-request child logger: request logging is off, and errors log the request id
    // themselves; a pino child per request is measurable on the inference hot path.
    childLoggerFactory: (logger) => logger,
    bodyLimit: opts.bodyLimit,
    // Slow, stalled and never-ending requests lose their connection with a 408 instead of
    // holding it (and what they sent) forever; Node checks the timers every second.
    requestTimeout,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    http: httpOptions,
    // fastify's own `https` option drops the `http` options above; an HTTPS server made
    // here takes both (fastify still sets the keep-alive and request timeouts on it).
    ...(tls === undefined
      ? {}
      : {
          serverFactory: (handler: Parameters<typeof createHttpsServer>[2]) => {
            // A TLS handshake is part of sending the headers: it gets no longer (Node's default is 120 s).
            httpsServer = createHttpsServer(tls, { ...httpOptions, handshakeTimeout: httpOptions.headersTimeout }, handler);
            httpsServer.keepAliveTimeout = limits.keepAliveTimeoutMs;
            httpsServer.requestTimeout = requestTimeout;
            return httpsServer;
          },
        }),
    clientErrorHandler: clientErrorHandler(limits, limitLog),
    // Model names may contain characters such as '.'; keep routing strict otherwise.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    // The router's own refusals (a segment past maxParamLength, an undecodable URL) in the
    // project's shape; neither echoes the path.
    frameworkErrors: (err, _request, reply) => {
      const kerr =
        err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? errors.uriTooLong(MAX_PARAM_LENGTH) : errors.invalidInput('Malformed URL: a path segment is not valid percent-encoding');
      void (reply as FastifyReply)
        .code(kerr.httpStatus)
        .type('application/json')
        .send(JSON.stringify({ error: kerr.message }));
    },
    // Drain: close() waits for in-flight requests; keep-alive sockets close when idle.
    forceCloseConnections: 'idle',
    // A request the server has already read while draining is served, not answered 503: the
    // client cannot tell a 503 from a failure of a request it sent before the listener
    // closed. Its response carries `Connection: close` (below), so no further one follows.
    return503OnClosing: false,
  });
  limitConnections(app.server, limits, limitLog);
  if (tls !== undefined && httpsServer !== undefined) {
    const unwatch = watchTlsFiles(httpsServer, tls, logger);
    app.addHook('onClose', (_instance, done) => {
      unwatch();
      done();
    });
  }
  const bodies = limitBodyBytesInFlight(app, limits.restMaxInflightBodyBytes, limitLog);
  if (bodies !== undefined) opts.metrics.trackHeldRequestBytes('rest', () => bodies.held);
  registerBodyParsers(app, opts.bodyLimit, limits.restMaxJsonBytes);
  registerErrorHandlers(app, opts.bodyLimit, errorBodyFor(opts.openaiRoutePrefix));
  registerRequestMetrics(app, opts.metrics, (name) => opts.dataplane.knows(name));
  if (opts.accessLogFormat !== undefined) registerAccessLog(app, opts.logger, opts.accessLogFormat);
  // While draining, answer in-flight requests with `Connection: close` so keep-alive
  // clients let go and close() can finish without waiting for the grace period.
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  // KServe answers `application/json` without a charset (JSON is UTF-8 by definition);
  // some clients compare the header verbatim. Callback-style: no promise per response.
  app.addHook('onSend', (_req, reply, payload, done) => {
    if (reply.getHeader('content-type') === 'application/json; charset=utf-8') reply.header('content-type', 'application/json');
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
  // Before every route: the document is generated from the routes' schemas as they are added.
  await registerOpenApi(app, { version: opts.dataplane.serverMetadata().version, enableDocsUrl: opts.enableDocsUrl });
  const routes = collectRoutes(app);
  await app.register(opsRoutes(opts));
  await app.register(v1Routes(opts));
  await app.register(v2Routes(opts));
  await app.register(repositoryRoutes(opts));
  await app.register(configRoutes(opts));
  await app.register(statsRoutes(opts));
  if (opts.openaiRoutePrefix !== undefined) await app.register(openAiRoutes(opts), { prefix: opts.openaiRoutePrefix });
  routes.register(app);
  await app.ready();
  return app;
}
