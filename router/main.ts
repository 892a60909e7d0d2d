/**
 * `kserve-ts router`: serves one InferenceGraph, as KServe's cmd/router does (and its
 * flag, `--graph-json`), plus V2 gRPC. On SIGTERM readiness fails at once and the router
 * keeps serving for --drain_seconds (KServe's 30 s) so the endpoints drop the pod, then
 * closes gracefully; Ctrl-C (SIGINT) closes at once.
 */
import { FlagError } from '../cli/flags.js';
import { createLogger } from '../server/logger.js';
import { buildRouter } from './app.js';
import { GraphSpecError, routerConfig, routerUsage } from './config.js';
import { serviceUrls } from './graph-spec.js';

export async function runRouter(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  let config;
  try {
    config = routerConfig(argv, env);
  } catch (err) {
    if (err instanceof FlagError || err instanceof GraphSpecError) {
      process.stderr.write(`kserve-ts router: ${err.message}\n${routerUsage()}\n`);
      return 2;
    }
    throw err;
  }
  if (config === 'help') {
    process.stdout.write(`${routerUsage()}\n`);
    return 0;
  }
  const logger = createLogger(config.logLevel).child({ component: 'router' });
  for (const rejected of config.propagate.rejected) logger.error(rejected);
  const app = buildRouter(config, logger);
  const ports = await app.listen();
  logger.info({ host: config.httpHost, http: ports.http, grpc: ports.grpc, nodes: [...config.spec.nodes.keys()], steps: serviceUrls(config.spec) }, 'router listening');

  await new Promise<void>((resolve) => {
    const onSignal = (signal: NodeJS.Signals): void => {
      const delayMs = signal === 'SIGTERM' ? config.drainSeconds * 1000 : 0;
      logger.info({ signal, delayMs }, 'shutting down');
      app.startDraining();
      setTimeout(() => void app.close().then(resolve, resolve), delayMs);
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  });
  logger.info('shutdown complete');
  return 0;
}
