/**
 * Assembles a model server from a validated config: backend registry, model repository,
 * data plane, metrics and transports. Nothing here binds ports or handles signals; see
 * main.ts. Embedders and tests use this directly.
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { BackendRegistry } from './backend/backend-registry.js';
import { BackendSettings } from './backend/backend-settings.js';
import type { ProvidedModel } from './backend/backend.js';
import { customBackend } from './backends/custom/custom-backend.js';
import { onnxBackend } from './backends/onnx/onnx-backend.js';
import { textBackend } from './backends/text/text-backend.js';
import { tensorflowBackend } from './backends/tensorflow/tf-backend.js';
import type { ServerConfig } from './config.js';
import { DataPlane } from './dataplane.js';
import type { GrpcServer } from './grpc/grpc-server.js';
import { buildHttpApp } from './http/app.js';
import { Metrics } from './metrics.js';
import { ModelRepository } from './repository/model-repository.js';
import { type ModelSource, repositorySource, singleModelSource } from './repository/model-source.js';
import { startRepositoryPoll } from './repository/repository-poll.js';
import type { ModelPuller } from './puller/model-puller.js';
import { describePuller } from './puller/puller-flags.js';
import { pulledModelSource } from './puller/pulled-source.js';
import type { RequestLogger } from './request-logger/request-logger.js';
import { SERVER_NAME, SERVER_VERSION } from './version.js';

export interface ModelServer {
  readonly config: ServerConfig;
  readonly dataplane: DataPlane;
  readonly repository: ModelRepository;
  readonly metrics: Metrics;
  readonly http: FastifyInstance;
  /** The gRPC server when config.enableGrpc; not bound until `grpc.listen`. */
  readonly grpc: GrpcServer | undefined;
  /**
   * The startup models' load (`repository.loadStartupModels()`) when `opts.loadStartupModels`
   * asked createServer to begin it; undefined otherwise.
   */
  readonly startupLoad: Promise<void> | undefined;
  /** The model puller when config.puller (--model_config_file); it starts with the server. */
  readonly puller: ModelPuller | undefined;
  /** Stops accepting, drains in-flight requests (bounded by the grace period), unloads models. */
  /**
   * Drains and stops: readiness turns false at once; after `delayMs` (default 0) the
   * listeners close, in-flight calls finish within the grace period, then models unload.
   * Idempotent: later calls return the first call's promise.
   */
  close(delayMs?: number): Promise<void>;
}

/** The default backend set; a model folder goes to the first whose `detect` matches (text before onnx: both find model.onnx). */
export function defaultBackends(): BackendRegistry {
  return new BackendRegistry().register(textBackend).register(onnxBackend).register(tensorflowBackend).register(customBackend);
}

/** A provided model named --model_name owns --model_dir (custom backend), so the folder is not loaded as a file model. */
function sourceFor(config: ServerConfig, provided: ReadonlyMap<string, ProvidedModel>, placed: ReadonlySet<string>): ModelSource | undefined {
  if (config.puller !== undefined) return pulledModelSource(config.puller.modelRoot, placed);
  if (config.modelRepository !== undefined) return repositorySource(config.modelRepository);
  if (config.modelDir !== undefined && !provided.has(config.modelName)) return singleModelSource(config.modelName, config.modelDir);
  return undefined;
}

export async function createServer(
  config: ServerConfig,
  logger: Logger,
  opts: {
    backends?: BackendRegistry;
    backendSettings?: BackendSettings;
    defaultMetrics?: boolean;
    renderMetrics?: () => Promise<string>;
    /** Models no folder holds (the SDK's ModelServer), served next to the file-backed ones. */
    provided?: ReadonlyMap<string, ProvidedModel>;
    /**
     * Begin `repository.loadStartupModels()` as soon as the repository exists, before the
     * transports are built: backends load in worker threads, so that work overlaps with
     * building fastify and gRPC (cold start). The promise is `ModelServer.startupLoad`.
     */
    loadStartupModels?: boolean;
  } = {},
): Promise<ModelServer> {
  const backends = opts.backends ?? defaultBackends();
  // Each backend parses its own flags from the command line the config was parsed from.
  const backendSettings = opts.backendSettings ?? new BackendSettings(backends, config.flags);
  // Before any model session or worker thread exists (e.g. onnxruntime's telemetry switch).
  backendSettings.prepareProcess();
  const metrics = new Metrics({
    defaultMetrics: opts.defaultMetrics ?? true,
    ...(opts.renderMetrics !== undefined ? { render: opts.renderMetrics } : {}),
  });
  const provided = new Map(backendSettings.providedModels({ modelName: config.modelName, modelDir: config.modelDir }));
  for (const [name, model] of opts.provided ?? []) {
    if (provided.has(name)) throw new Error(`model '${name}' is provided twice`);
    provided.set(name, model);
  }
  // The models the puller has put in place under --model_dir (puller/): the source serves only those.
  const placed = new Set<string>();
  const source = sourceFor(config, provided, placed) ?? { list: async () => [], locate: async () => undefined };
  const repository = new ModelRepository({
    source,
    backends,
    backendSettings,
    threads: config.intraOpThreads,
    logger,
    drainTimeoutMs: config.gracePeriodSeconds * 1000,
    maxQueuedRequests: config.limits.maxQueuedRequests,
    provided,
    metrics,
  });
  const startupLoad = opts.loadStartupModels === true ? repository.loadStartupModels() : undefined;
  // Rejections are the caller's to read from startupLoad; this only keeps an early one
  // (an unreadable folder) from counting as unhandled while the transports are built.
  startupLoad?.catch(() => undefined);
  metrics.trackQueueDepth(() => repository.queueDepths());
  metrics.trackModelInfo(() => repository.loadedVersions());
  const latencyLog = config.enableLatencyLogging ? logger.child({ component: 'latency' }) : undefined;
  let requestLogger: RequestLogger | undefined;
  let dataplane: DataPlane;
  let http: FastifyInstance;
  let grpc: GrpcServer | undefined;
  try {
    // Lazily imported, as gRPC below: a configuration that does not use a feature does not
    // pay for loading its modules at start-up (undici here; grpc-js, protobufjs, reflection).
    requestLogger =
      config.requestLogger === undefined
        ? undefined
        : new (await import('./request-logger/request-logger.js')).RequestLogger(config.requestLogger, metrics, logger.child({ component: 'request-logger' }));
    dataplane = new DataPlane(
      repository,
      { name: SERVER_NAME, version: SERVER_VERSION },
      { metrics, latencyLog, requestLogger, loggedTransports: new Set(config.requestLogger?.grpc === true ? ['rest', 'grpc'] : ['rest']) },
    );
    http = await buildHttpApp({
      dataplane,
      metrics,
      enableDocsUrl: config.enableDocsUrl,
      openaiRoutePrefix: config.openaiRoutePrefix,
      logger,
      bodyLimit: config.restMaxBodyBytes,
      limits: config.limits,
      accessLogFormat: config.accessLogFormat,
      tls: config.tls,
    });
    grpc = config.enableGrpc
      ? (await import('./grpc/grpc-server.js')).buildGrpcServer({
          dataplane,
          metrics,
          logger,
          maxReceiveMessageLength: config.grpcMaxReceiveMessageLength,
          maxSendMessageLength: config.grpcMaxSendMessageLength,
          limits: config.limits,
        })
      : undefined;
  } catch (e) {
    // Models already loading in their worker threads would keep the process alive.
    if (startupLoad !== undefined) await startupLoad.catch(() => undefined).then(() => repository.unloadAll());
    throw e;
  }

  // Started last: nothing above can fail and leave it running.
  // Imported only when used, as gRPC: the download engine brings tar and yauzl with it.
  const puller = config.puller === undefined ? undefined : new (await import('./puller/model-puller.js')).ModelPuller(config.puller, { repository, metrics, logger, placed });
  if (puller !== undefined && config.puller !== undefined) {
    // Ready once the file's models have each loaded or failed, as KServe's agent finishes its
    // start-up pulls before it watches; later changes never take readiness back.
    const release = dataplane.hold();
    logger.info(describePuller(config.puller), 'model puller started');
    puller.start().then(release, (err: unknown) => {
      logger.error({ err }, 'model puller could not start');
      release();
    });
  }
  const poll = config.repositoryPollSeconds > 0 ? startRepositoryPoll(repository, config.repositoryPollSeconds * 1000, logger) : undefined;
  let closing: Promise<void> | undefined;
  const close = (delayMs = 0) => {
    closing ??= (async () => {
      dataplane.drain();
      const pollStopped = poll?.stop();
      const pullerStopped = puller?.close();
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      const grace = config.gracePeriodSeconds * 1000;
      const graceEnds = Date.now() + grace;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          logger.warn({ graceSeconds: config.gracePeriodSeconds }, 'grace period over; closing remaining connections');
          http.server.closeAllConnections();
          grpc?.forceClose();
          resolve();
        }, grace);
      });
      await Promise.race([Promise.all([http.close(), grpc?.close()]), timeout]);
      clearTimeout(timer);
      // Events of the last requests are flushed within what is left of the grace period.
      await requestLogger?.close(Math.max(0, graceEnds - Date.now()));
      // A poll could load a model again after unloadAll.
      await pollStopped;
      await pullerStopped;
      await repository.unloadAll();
    })();
    return closing;
  };

  return { config, dataplane, repository, metrics, http, grpc, startupLoad, puller, close };
}
