/**
 * `kserve-ts controller`: the only place in the control plane that binds ports and
 * handles signals. Every replica serves the webhooks and probes; only the Lease holder
 * runs the reconciler (client-go's leader-election pattern).
 */
import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import { homedir } from 'node:os';
import path from 'node:path';
import { isIP } from 'node:net';
import { AdmissionregistrationV1Api, KubeConfig } from '@kubernetes/client-node';
import { type Logger, pino } from 'pino';
import { ListenError, listenOrFail } from '../cli/listen-error.js';
import { ConfigSource } from './config/config-source.js';
import { Controller } from './controller.js';
import { GraphController } from './graph-controller.js';
import { TrainedModelController } from './trained-model-controller.js';
import { kubeParentFacts } from './reconcile/multi-model/parent-facts.js';
import { createHealthServer } from './health-server.js';
import { installCrds } from './install-crds.js';
import { apiErrorMessage } from './kube/api-errors.js';
import { makeClients } from './kube/clients.js';
import { LeaderElector } from './leader-election.js';
import { ControllerMetrics } from './metrics.js';
import { sharedSelfSignedCertificate } from './webhook-certificate-secret.js';
import { CONTROLLER_USAGE, type ControllerConfig, OptionsError, parseControllerArgs } from './options.js';
import {
  type WebhookServer,
  applyWebhookConfigurations,
  createWebhooks,
  generateSelfSignedCertificates,
  kubeCredentialSource,
  loadCertificates,
  serviceDnsNames,
} from './webhooks/index.js';

export async function runController(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${CONTROLLER_USAGE}\n`);
    return 0;
  }
  let config: ControllerConfig;
  try {
    config = parseControllerArgs(argv, env);
  } catch (err) {
    if (!(err instanceof OptionsError)) throw err;
    process.stderr.write(`kserve-ts controller: ${err.message}\n\n${CONTROLLER_USAGE}\n`);
    return 2;
  }
  const logger: Logger = pino({ level: config.logLevel, base: { component: 'controller', identity: config.identity }, timestamp: pino.stdTimeFunctions.isoTime });
  const kubeConfig = new KubeConfig();
  if (config.kubeconfig) kubeConfig.loadFromFile(config.kubeconfig);
  else if (!hasDefaultKubeconfig(env)) {
    // loadFromDefault() would fall back to http://localhost:8080 and retry forever.
    process.stderr.write(
      'kserve-ts controller: no cluster credentials: pass --kubeconfig, set KUBECONFIG, or run in a pod ' + '(KUBERNETES_SERVICE_HOST and a mounted ServiceAccount token)\n',
    );
    return 2;
  } else kubeConfig.loadFromDefault();
  const clients = makeClients(kubeConfig);
  const metrics = new ControllerMetrics();

  // Ports first, before any call to the API server: one that cannot be bound stops the
  // controller at once with one line, and /readyz says ready only once everything below ran.
  let started = false;
  let webhooks: BoundWebhooks | undefined;
  let leading = !config.leaderElect;
  // Read by /readyz before they exist: set once the controllers are built below.
  let controller: Controller | undefined = undefined;
  let graphs: GraphController | undefined = undefined;
  let models: TrainedModelController | undefined = undefined;
  const health = createHealthServer(() => started && (!leading || (controller?.synced === true && graphs?.synced === true && models?.synced === true)), metrics.registry);
  const configSource = new ConfigSource(clients, config.namespace, logger);
  try {
    await listenOrFail('health and metrics', '--health-port', config.healthHost, config.healthPort, () => listenOn(health, config.healthPort, config.healthHost));
    const address = health.address();
    logger.info({ healthPort: typeof address === 'object' && address ? address.port : config.healthPort }, 'health server listening');
    if (config.webhookPort > 0) webhooks = await startWebhooks(config, clients, configSource, logger);
  } catch (err) {
    if (!(err instanceof ListenError)) throw err;
    logger.fatal({ err: err.message }, 'a listener could not be bound; stopping');
    process.stderr.write(`kserve-ts controller: ${err.message}\n`);
    await Promise.all([webhooks?.server.close(), new Promise((r) => health.close(r))]);
    return 1;
  }

  if (config.installCrds) logger.info({ crds: await installCrds(clients) }, 'CRDs installed');
  await configSource.start();
  if (webhooks !== undefined) await registerWebhooks(config, clients, webhooks, logger);
  const loopOptions = {
    clients,
    config: configSource,
    resyncPeriodMs: config.resyncPeriodSeconds * 1000,
    concurrency: config.concurrency,
    retryBaseMs: 100,
    retryMaxMs: 30_000,
    logger,
    metrics,
  };
  const reconciler = new Controller(loopOptions);
  const graphReconciler = new GraphController({ ...loopOptions, knativeInstalled: () => reconciler.knativeInstalled() });
  controller = reconciler;
  const modelReconciler = new TrainedModelController(loopOptions);
  graphs = graphReconciler;
  models = modelReconciler;
  const startControllers = () => Promise.all([reconciler.start(), graphReconciler.start(), modelReconciler.start()]);
  const stopControllers = () => Promise.all([reconciler.stop(), graphReconciler.stop(), modelReconciler.stop()]);
  const elector = config.leaderElect
    ? new LeaderElector(clients.coordination, {
        namespace: config.namespace,
        name: config.leaseName,
        identity: config.identity,
        leaseDurationSeconds: config.leaseDurationSeconds,
        renewDeadlineMs: config.renewDeadlineSeconds * 1000,
        retryPeriodMs: config.retryPeriodSeconds * 1000,
        onStartedLeading: async () => {
          leading = true;
          metrics.leader.set(1);
          await startControllers();
        },
        onStoppedLeading: async () => {
          leading = false;
          metrics.leader.set(0);
          await stopControllers();
        },
        logger,
      })
    : undefined;

  if (elector) elector.start();
  else {
    metrics.leader.set(1);
    await startControllers();
  }
  started = true;
  logger.info({ leaderElection: config.leaderElect }, 'controller started');

  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  logger.info({ signal }, 'shutting down');
  // Release the lease first so a standby replica takes over without waiting it out.
  if (elector) await elector.stop();
  else await stopControllers();
  await Promise.all([webhooks?.server.close(), new Promise((r) => health.close(r)), configSource.stop()]);
  logger.info('stopped');
  return 0;
}

interface BoundWebhooks {
  readonly server: WebhookServer;
  readonly port: number;
  readonly caBundle: string;
}

/** The webhook server, bound (its certificate needs the API server only with --cert-secret). */
async function startWebhooks(config: ControllerConfig, clients: ReturnType<typeof makeClients>, configSource: ConfigSource, logger: Logger): Promise<BoundWebhooks> {
  const tls = await webhookCertificate(config, clients);
  const server = createWebhooks({
    credentials: kubeCredentialSource(clients.core),
    getConfig: () => configSource.current(),
    trainedModelParents: kubeParentFacts(clients, () => configSource.current()),
    logger,
    tls,
    controllerNamespace: config.namespace,
  });
  const bound = await listenOrFail('admission webhooks', '--webhook-port', config.webhookHost, config.webhookPort, () => server.listen(config.webhookPort, config.webhookHost));
  logger.info({ webhookPort: bound.port, selfSigned: !config.certDir }, 'webhook server listening');
  return { server, port: bound.port, caBundle: tls.caBundle };
}

function serviceNames(config: ControllerConfig): { svcNamespace: string | undefined; svcName: string | undefined; dnsNames: string[]; ipAddresses: string[] } {
  const [svcNamespace, svcName] = config.webhookService?.split('/') ?? [];
  const dnsNames = [...(svcName && svcNamespace ? serviceDnsNames(svcName, svcNamespace) : []), ...config.certHosts.filter((h) => isIP(h) === 0)];
  return { svcNamespace, svcName, dnsNames, ipAddresses: config.certHosts.filter((h) => isIP(h) !== 0) };
}

async function webhookCertificate(config: ControllerConfig, clients: ReturnType<typeof makeClients>) {
  const { dnsNames, ipAddresses } = serviceNames(config);
  return config.certDir
    ? loadCertificates(config.certDir)
    : config.certSecret
      ? await sharedSelfSignedCertificate(clients.core, config.namespace, config.certSecret, dnsNames, ipAddresses)
      : generateSelfSignedCertificates({ dnsNames, ipAddresses });
}

/** Registers the webhook configurations with the API server, pointing at the bound server. */
async function registerWebhooks(config: ControllerConfig, clients: ReturnType<typeof makeClients>, binding: BoundWebhooks, logger: Logger): Promise<void> {
  const { svcNamespace, svcName } = serviceNames(config);
  const target = config.webhookUrl
    ? { url: config.webhookUrl.replace('{port}', String(binding.port)) }
    : svcName && svcNamespace
      ? { service: { name: svcName, namespace: svcNamespace, port: 443 } }
      : undefined;
  if (target) {
    try {
      await applyWebhookConfigurations(clients.kubeConfig.makeApiClient(AdmissionregistrationV1Api), { target, caBundle: binding.caBundle });
      logger.info({ target }, 'webhook configurations registered');
    } catch (err) {
      throw new Error(`registering webhook configurations failed: ${apiErrorMessage(err)}`, { cause: err });
    }
  }
}

/** Binds `server`; rejects with the bind error (a plain listen() would throw it as an unhandled 'error' event). */
function listenOn(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Whether KubeConfig.loadFromDefault() has anything real to load: $KUBECONFIG, ~/.kube/config or in-cluster. */
function hasDefaultKubeconfig(env: NodeJS.ProcessEnv): boolean {
  if (env['KUBECONFIG']) return true;
  const home = env['HOME'] ?? homedir();
  if (home && existsSync(path.join(home, '.kube', 'config'))) return true;
  return Boolean(env['KUBERNETES_SERVICE_HOST']) && existsSync('/var/run/secrets/kubernetes.io/serviceaccount/token');
}
