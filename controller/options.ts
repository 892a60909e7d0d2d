/**
 * `kserve-ts controller` flags, parsed and validated once at start-up (node:util
 * parseArgs, strict: an unknown flag is an error naming it). Durations are in seconds on
 * the command line, as controller-runtime's flags are.
 */
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';

export interface ControllerConfig {
  readonly kubeconfig: string | undefined;
  /** Namespace of the inferenceservice-config ConfigMap and the leader Lease. */
  readonly namespace: string;
  readonly healthPort: number;
  readonly healthHost: string;
  /** 0 disables the webhook server. */
  readonly webhookPort: number;
  readonly webhookHost: string;
  /** Folder with tls.crt and tls.key (a mounted Secret); unset → self-signed at start-up. */
  readonly certDir: string | undefined;
  /** Secret (in `namespace`) that shares a generated certificate among replicas; '' = per-process. */
  readonly certSecret: string;
  /** DNS names / IPs for a generated certificate. */
  readonly certHosts: readonly string[];
  /** Register the webhook configurations at start-up, pointing at this URL base (dev/test) ... */
  readonly webhookUrl: string | undefined;
  /** ... or at this Service (`namespace/name`), with the generated CA bundle. */
  readonly webhookService: string | undefined;
  readonly installCrds: boolean;
  readonly leaderElect: boolean;
  readonly leaseName: string;
  readonly identity: string;
  readonly leaseDurationSeconds: number;
  readonly renewDeadlineSeconds: number;
  readonly retryPeriodSeconds: number;
  readonly resyncPeriodSeconds: number;
  readonly concurrency: number;
  readonly logLevel: string;
}

export class OptionsError extends Error {}

export const CONTROLLER_USAGE = `Usage: kserve-ts controller [flags]

  --kubeconfig PATH            kubeconfig file (default: $KUBECONFIG, else in-cluster)
  --namespace NS               where inferenceservice-config and the leader Lease live (default: $POD_NAMESPACE or kserve)
  --health-port N              /healthz, /readyz and /metrics (default 8081)
  --health-host ADDR           (default 0.0.0.0)
  --webhook-port N             admission webhooks over HTTPS; 0 = off (default 9443)
  --webhook-host ADDR          (default 0.0.0.0)
  --cert-dir DIR               tls.crt / tls.key of the webhook server; unset = self-signed CA generated at start-up
  --cert-secret NAME           Secret in --namespace that shares the generated certificate among replicas
                               (default kserve-ts-webhook-cert; '' = each process generates its own)
  --cert-host NAME             extra DNS name or IP for the generated certificate (repeatable)
  --webhook-url URL            register the webhook configurations pointing at URL (development, tests)
  --webhook-service NS/NAME    register them pointing at a Service, with the generated CA bundle
  --install-crds               apply the CRDs from controller/crds at start-up
  --leader-elect BOOL          one active replica via a Lease (default true)
  --lease-name NAME            (default kserve-ts-controller)
  --identity ID                this replica's lease identity (default: hostname + pid)
  --lease-duration S           (default 15)
  --renew-deadline S           (default 10)
  --retry-period S             (default 2)
  --resync-period S            re-reconcile every InferenceService this often (default 600)
  --concurrency N              reconciles in flight (default 2)
  --log-level LEVEL            (default info)`;

export function parseControllerArgs(argv: readonly string[], env: NodeJS.ProcessEnv): ControllerConfig {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        kubeconfig: { type: 'string' },
        namespace: { type: 'string' },
        'health-port': { type: 'string', default: '8081' },
        'health-host': { type: 'string', default: '0.0.0.0' },
        'webhook-port': { type: 'string', default: '9443' },
        'webhook-host': { type: 'string', default: '0.0.0.0' },
        'cert-dir': { type: 'string' },
        'cert-secret': { type: 'string', default: 'kserve-ts-webhook-cert' },
        'cert-host': { type: 'string', multiple: true, default: [] },
        'webhook-url': { type: 'string' },
        'webhook-service': { type: 'string' },
        'install-crds': { type: 'boolean', default: false },
        'leader-elect': { type: 'string', default: 'true' },
        'lease-name': { type: 'string', default: 'kserve-ts-controller' },
        identity: { type: 'string' },
        'lease-duration': { type: 'string', default: '15' },
        'renew-deadline': { type: 'string', default: '10' },
        'retry-period': { type: 'string', default: '2' },
        'resync-period': { type: 'string', default: '600' },
        concurrency: { type: 'string', default: '2' },
        'log-level': { type: 'string', default: 'info' },
      },
    }));
  } catch (err) {
    throw new OptionsError((err as Error).message);
  }
  const int = (name: string, min: number): number => {
    const raw = values[name as keyof typeof values] as string;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min) throw new OptionsError(`--${name} must be an integer ≥ ${min}, got '${raw}'`);
    return n;
  };
  const seconds = (name: string): number => {
    const raw = values[name as keyof typeof values] as string;
    const n = Number(raw);
    if (!Number.isFinite(n) || n <= 0) throw new OptionsError(`--${name} must be a positive number of seconds, got '${raw}'`);
    return n;
  };
  const leaderElect = values['leader-elect'];
  if (leaderElect !== 'true' && leaderElect !== 'false') throw new OptionsError(`--leader-elect must be true or false, got '${leaderElect}'`);
  const service = values['webhook-service'];
  if (service !== undefined && !/^[a-z0-9-]+\/[a-z0-9-]+$/.test(service)) throw new OptionsError(`--webhook-service must be NAMESPACE/NAME, got '${service}'`);
  const config: ControllerConfig = {
    kubeconfig: values.kubeconfig ?? env.KUBECONFIG,
    namespace: values.namespace ?? env.POD_NAMESPACE ?? 'kserve',
    healthPort: int('health-port', 0),
    healthHost: values['health-host'],
    webhookPort: int('webhook-port', 0),
    webhookHost: values['webhook-host'],
    certDir: values['cert-dir'],
    certSecret: values['cert-secret'],
    certHosts: values['cert-host'],
    webhookUrl: values['webhook-url'],
    webhookService: service,
    installCrds: values['install-crds'],
    leaderElect: leaderElect === 'true',
    leaseName: values['lease-name'],
    identity: values.identity ?? `${hostname()}-${process.pid}`,
    leaseDurationSeconds: seconds('lease-duration'),
    renewDeadlineSeconds: seconds('renew-deadline'),
    retryPeriodSeconds: seconds('retry-period'),
    resyncPeriodSeconds: seconds('resync-period'),
    concurrency: int('concurrency', 1),
    logLevel: values['log-level'],
  };
  if (config.renewDeadlineSeconds >= config.leaseDurationSeconds) throw new OptionsError('--renew-deadline must be shorter than --lease-duration');
  return Object.freeze(config);
}
