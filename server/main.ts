/**
 * `kserve-ts serve`: the only place that binds ports and handles signals.
 * Exit codes: 0 after a clean shutdown, 1 when no model became ready although models were
 * requested (the anchor's NoModelReady) or a port could not be bound, 2 for invalid flags.
 */
import { BackendSettings } from './backend/backend-settings.js';
import { announceStarted, isClusterWorker, printFatal, runPrimary, workerMetrics } from './cluster.js';
import { ListenError } from '../cli/listen-error.js';
import { ConfigError, helpText, parseServeArgs } from './config.js';
import { flushCompileCache } from './compile-cache.js';
import { tuneIncrementalMarking } from './heap-tuning.js';
import { listen } from './listen.js';
import { createLogger } from './logger.js';
import { installFaultPolicy } from './process-faults.js';
import { createServer, defaultBackends } from './server.js';

/** The IPC channel to the primary would keep a worker alive after it has finished. */
function leaveCluster(): void {
  if (isClusterWorker() && process.connected) process.disconnect();
}

export async function serve(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const backends = defaultBackends();
  let parsed;
  let backendSettings;
  try {
    parsed = parseServeArgs(argv, env, backends.flags());
    // Each backend parses its own flags here, so a malformed one is a start-up error too.
    backendSettings = new BackendSettings(backends, parsed.config.flags);
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`kserve-ts serve: ${e.message}\nRun 'kserve-ts serve --help' for the flags.\n`);
      return 2;
    }
    throw e;
  }
  if (parsed.help) {
    process.stdout.write(`${helpText(backends.flags())}\n`);
    return 0;
  }
  const { config } = parsed;
  const logger = createLogger(config.logLevel);
  for (const w of parsed.warnings) logger.warn(w);

  if (config.workers > 1 && !isClusterWorker()) return runPrimary(config.workers, logger);

  // Before the first request body arrives (heap-tuning.ts says why).
  const markingFlags = tuneIncrementalMarking(process.execArgv, env.NODE_OPTIONS);
  if (markingFlags.length > 0) logger.debug({ flags: markingFlags }, 'V8 incremental-marking triggers set');

  // In a worker, /metrics answers for every worker: the renderer asks the primary.
  let clusterRender: (() => Promise<string>) | undefined;
  // Models load in their worker threads while the transports are built and the listeners
  // bind: cold start is the longer of the two, not their sum. Readiness still waits for them.
  const server = await createServer(config, logger, {
    backends,
    backendSettings,
    loadStartupModels: true,
    ...(isClusterWorker() ? { renderMetrics: () => (clusterRender as () => Promise<string>)() } : {}),
  });
  if (isClusterWorker()) clusterRender = workerMetrics(server.metrics.registry);
  // Faults no caller catches (process-faults.ts): after one that is the server's own, drain and exit 1.
  const exit = () => process.exit(1);
  installFaultPolicy(logger, () => void server.close().then(exit, exit));
  const loading = (server.startupLoad ?? server.repository.loadStartupModels()).then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  let ports;
  try {
    ports = await listen(server);
  } catch (e) {
    if (!(e instanceof ListenError)) throw e;
    // Readiness was held until every listener is bound, so it was never reported. The line
    // comes first; then the models still loading finish and are unloaded before the exit: an
    // exit while a backend's worker thread is inside its native runtime can abort the whole
    // process (onnxruntime-node: "terminate called after throwing an instance of
    // 'Napi::Error'", exit 134 instead of 1, about once in 40 starts).
    logger.fatal({ err: e.message }, 'a listener could not be bound; stopping');
    await printFatal(`kserve-ts serve: ${e.message}`);
    await loading;
    await server.close();
    leaveCluster();
    return 1;
  }
  logger.info({ port: ports.http, host: config.httpHost, tls: config.tls !== undefined }, 'REST server listening');
  if (ports.grpc !== undefined) logger.info({ port: ports.grpc, host: config.httpHost }, 'gRPC server listening');

  let exitCode = 0;
  const stopped = new Promise<void>((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      // kubelet sends SIGTERM: keep serving while the endpoints drop this pod. Ctrl-C is a person.
      const delayMs = signal === 'SIGTERM' ? config.shutdownDelaySeconds * 1000 : 0;
      logger.info({ signal, delayMs }, 'shutting down');
      void server.close(delayMs).then(resolve, (err: unknown) => {
        logger.error({ err }, 'error during shutdown');
        exitCode = 1;
        resolve();
      });
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  });

  const noModel = async (detail: string): Promise<number> => {
    logger.fatal({ detail }, 'NoModelReady: no model could be loaded');
    await printFatal(`kserve-ts serve: no model is ready (${detail})`);
    await server.close();
    leaveCluster();
    return 1;
  };
  const loadError = await loading;
  // The model folder itself is unreadable (missing, not a folder, no permission).
  if (loadError) return noModel(`cannot read ${config.modelRepository ?? config.modelDir}: ${loadError.message}`);
  const names = server.repository.names();
  // A puller-managed server starts with whatever the model config file lists, none included.
  const expectsModels = config.puller === undefined && (config.modelDir !== undefined || config.modelRepository !== undefined || names.length > 0);
  if (expectsModels && server.repository.readyCount() === 0) {
    const causes = names.map((n) => `${n}: ${server.repository.state(n)?.reason ?? 'not found'}`);
    return noModel(causes.length > 0 ? causes.join('; ') : `no model folders in ${config.modelRepository ?? config.modelDir}`);
  }
  logger.info({ models: names, ready: server.dataplane.ready() }, 'server started');
  // Off the path to readiness: the next start (a restarted container) compiles less.
  setImmediate(flushCompileCache);
  if (isClusterWorker()) announceStarted();
  await stopped;
  logger.info('shutdown complete');
  leaveCluster();
  return exitCode;
}
