/**
 * `kserve-ts controller`: the only place in the control plane that binds ports and
 * handles signals. Every replica serves the webhooks and probes; only the Lease holder
 * runs the reconciler (client-go's leader-election pattern).
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { isIP } from 'node:net';
import { AdmissionregistrationV1Api, KubeConfig } from '@kubernetes/client-node';
import { type Logger, pino } from 'pino';
import { ConfigSource } from './config/config-source.js';
import { Controller } from './controller.js';
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
      'kserve-ts controller: no cluster credentials: pass --kubeconfig, set KUBECONFIG, or run in a pod ' +
        '(KUBERNETES_SERVICE_HOST and a mounted ServiceAccount token)\n',
    );
    return 2;
  } else kubeConfig.loadFromDefault();
  const clients = makeClients(kubeConfig);
  const metrics = new ControllerMetrics();

  if (config.installCrds) logger.info({ crds: await installCrds(clients) }, 'CRDs installed');
  const configSource = new ConfigSource(clients, config.namespace, logger);
  await configSource.start();

  const webhooks = config.webhookPort > 0 ? await startWebhooks(config, clients, configSource, logger) : undefined;
  const controller = new Controller({
    clients,
    config: configSource,
    resyncPeriodMs: config.resyncPeriodSeconds * 1000,
    concurrency: config.concurrency,
    retryBaseMs: 100,
    retryMaxMs: 30_000,
    logger,
    metrics,
  });
  let leading = !config.leaderElect;
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
          await controller.start();
        },
        onStoppedLeading: async () => {
          leading = false;
          metrics.leader.set(0);
          await controller.stop();
        },
        logger,
      })
    : undefined;

  const health = createHealthServer(() => (webhooks !== undefined || config.webhookPort === 0) && (!leading || controller.synced), metrics.registry);
  await new Promise<void>((resolve) => health.listen(config.healthPort, config.healthHost, resolve));
  const address = health.address();
  logger.info({ healthPort: typeof address === 'object' && address ? address.port : config.healthPort }, 'health server listening');

  if (elector) elector.start();
  else {
    metrics.leader.set(1);
    await controller.start();
  }

  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  logger.info({ signal }, 'shutting down');
  // Release the lease first so a standby replica takes over without waiting it out.
  if (elector) await elector.stop();
  else await controller.stop();
  await Promise.all([webhooks?.close(), new Promise((r) => health.close(r)), configSource.stop()]);
  logger.info('stopped');
  return 0;
}

async function startWebhooks(
  config: ControllerConfig,
  clients: ReturnType<typeof makeClients>,
  configSource: ConfigSource,
  logger: Logger,
): Promise<WebhookServer> {
  const [svcNamespace, svcName] = config.webhookService?.split('/') ?? [];
  const dnsNames = [...(svcName && svcNamespace ? serviceDnsNames(svcName, svcNamespace) : []), ...config.certHosts.filter((h) => isIP(h) === 0)];
  const ipAddresses = config.certHosts.filter((h) => isIP(h) !== 0);
  const tls = config.certDir
    ? loadCertificates(config.certDir)
    : config.certSecret
      ? await sharedSelfSignedCertificate(clients.core, config.namespace, config.certSecret, dnsNames, ipAddresses)
      : generateSelfSignedCertificates({ dnsNames, ipAddresses });
  const server = createWebhooks({
    credentials: kubeCredentialSource(clients.core),
    getConfig: () => configSource.current(),
    logger,
    tls,
    controllerNamespace: config.namespace,
  });
  const bound = await server.listen(config.webhookPort, config.webhookHost);
  logger.info({ webhookPort: bound.port, selfSigned: !config.certDir }, 'webhook server listening');
  const target = config.webhookUrl
    ? { url: config.webhookUrl.replace('{port}', String(bound.port)) }
    : svcName && svcNamespace
      ? { service: { name: svcName, namespace: svcNamespace, port: 443 } }
      : undefined;
  if (target) {
    try {
      await applyWebhookConfigurations(clients.kubeConfig.makeApiClient(AdmissionregistrationV1Api), { target, caBundle: tls.caBundle });
      logger.info({ target }, 'webhook configurations registered');
    } catch (err) {
      throw new Error(`registering webhook configurations failed: ${apiErrorMessage(err)}`);
    }
  }
  return server;
}

/** Whether KubeConfig.loadFromDefault() has anything real to load: $KUBECONFIG, ~/.kube/config or in-cluster. */
function hasDefaultKubeconfig(env: NodeJS.ProcessEnv): boolean {
  if (env['KUBECONFIG']) return true;
  const home = env['HOME'] ?? homedir();
  if (home && existsSync(path.join(home, '.kube', 'config'))) return true;
  return Boolean(env['KUBERNETES_SERVICE_HOST']) && existsSync('/var/run/secrets/kubernetes.io/serviceaccount/token');
}
