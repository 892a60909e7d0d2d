/**
 * `kserve-ts controller` flags, parsed and validated once at start-up with the shared
 * parser (cli/flags.ts: `--flag value`, `--flag=value`, `--health-port` or `--health_port`;
 * an unknown flag is an error naming it). Durations are in seconds on the command line, as
 * controller-runtime's flags are.
 */
import { hostname } from 'node:os';
import { FlagError, type FlagSpec, flagHelp, parseFlags } from '../cli/flags.js';

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

/** A malformed or unknown flag (one line, naming it). */
export { FlagError as OptionsError };

export const CONTROLLER_FLAGS: readonly FlagSpec[] = [
  { name: 'kubeconfig', kind: 'string', placeholder: 'PATH', help: 'kubeconfig file (default: $KUBECONFIG, else in-cluster)' },
  { name: 'namespace', kind: 'string', placeholder: 'NS', help: 'where inferenceservice-config and the leader Lease live (default: $POD_NAMESPACE or kserve)' },
  { name: 'health-port', kind: 'int', dflt: '8081', help: '/healthz, /readyz and /metrics' },
  { name: 'health-host', kind: 'string', dflt: '0.0.0.0', placeholder: 'ADDR', help: 'address of the health server' },
  { name: 'webhook-port', kind: 'int', dflt: '9443', help: 'admission webhooks over HTTPS; 0 = off' },
  { name: 'webhook-host', kind: 'string', dflt: '0.0.0.0', placeholder: 'ADDR', help: 'address of the webhook server' },
  { name: 'cert-dir', kind: 'string', placeholder: 'DIR', help: 'tls.crt / tls.key of the webhook server; unset = self-signed CA generated at start-up' },
  {
    name: 'cert-secret',
    kind: 'string',
    dflt: 'kserve-ts-webhook-cert',
    placeholder: 'NAME',
    help: "Secret in --namespace that shares the generated certificate among replicas ('' = each process generates its own)",
  },
  { name: 'cert-host', kind: 'string', repeatable: true, placeholder: 'NAME', help: 'extra DNS name or IP for the generated certificate (repeatable)' },
  { name: 'webhook-url', kind: 'string', placeholder: 'URL', help: 'register the webhook configurations pointing at URL (development, tests)' },
  { name: 'webhook-service', kind: 'string', placeholder: 'NS/NAME', help: 'register them pointing at a Service, with the generated CA bundle' },
  { name: 'install-crds', kind: 'bool', dflt: 'false', help: 'apply the CRDs from controller/crds at start-up' },
  { name: 'leader-elect', kind: 'bool', dflt: 'true', help: 'one active replica via a Lease' },
  { name: 'lease-name', kind: 'string', dflt: 'kserve-ts-controller', placeholder: 'NAME', help: 'name of the leader Lease' },
  { name: 'identity', kind: 'string', placeholder: 'ID', help: "this replica's lease identity (default: hostname + pid)" },
  { name: 'lease-duration', kind: 'string', dflt: '15', placeholder: 'S', help: 'seconds a lease lasts' },
  { name: 'renew-deadline', kind: 'string', dflt: '10', placeholder: 'S', help: 'seconds the leader has to renew' },
  { name: 'retry-period', kind: 'string', dflt: '2', placeholder: 'S', help: 'seconds between lease attempts' },
  { name: 'resync-period', kind: 'string', dflt: '600', placeholder: 'S', help: 're-reconcile every InferenceService this often' },
  { name: 'concurrency', kind: 'int', dflt: '2', help: 'reconciles in flight' },
  { name: 'log-level', kind: 'string', dflt: 'info', placeholder: 'LEVEL', help: 'trace, debug, info, warn, error' },
];

export const CONTROLLER_USAGE = ['Usage: kserve-ts controller [flags]', '', ...flagHelp(CONTROLLER_FLAGS)].join('\n');

export function parseControllerArgs(argv: readonly string[], env: NodeJS.ProcessEnv): ControllerConfig {
  const flags = parseFlags(argv, CONTROLLER_FLAGS, { positionals: 'error' });
  const optional = (name: string): string | undefined => (flags.given(name) ? flags.string(name) : undefined);
  const int = (name: string, min: number): number => {
    const raw = flags.string(name);
    const n = Number(raw);
    if (!/^\d+$/.test(raw.trim()) || n < min) throw new FlagError(`--${name} must be an integer ≥ ${min}, got '${raw}'`);
    return n;
  };
  const seconds = (name: string): number => {
    const raw = flags.string(name);
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n) || n <= 0) throw new FlagError(`--${name} must be a positive number of seconds, got '${raw}'`);
    return n;
  };
  const leaderElect = flags.string('leader-elect');
  if (leaderElect !== 'true' && leaderElect !== 'false') throw new FlagError(`--leader-elect must be true or false, got '${leaderElect}'`);
  const service = optional('webhook-service');
  if (service !== undefined && !/^[a-z0-9-]+\/[a-z0-9-]+$/.test(service)) throw new FlagError(`--webhook-service must be NAMESPACE/NAME, got '${service}'`);
  const config: ControllerConfig = {
    kubeconfig: optional('kubeconfig') ?? env.KUBECONFIG,
    namespace: optional('namespace') ?? env.POD_NAMESPACE ?? 'kserve',
    healthPort: int('health-port', 0),
    healthHost: flags.string('health-host'),
    webhookPort: int('webhook-port', 0),
    webhookHost: flags.string('webhook-host'),
    certDir: optional('cert-dir'),
    certSecret: flags.string('cert-secret'),
    certHosts: flags.all('cert-host'),
    webhookUrl: optional('webhook-url'),
    webhookService: service,
    installCrds: flags.bool('install-crds'),
    leaderElect: leaderElect === 'true',
    leaseName: flags.string('lease-name'),
    identity: optional('identity') ?? `${hostname()}-${process.pid}`,
    leaseDurationSeconds: seconds('lease-duration'),
    renewDeadlineSeconds: seconds('renew-deadline'),
    retryPeriodSeconds: seconds('retry-period'),
    resyncPeriodSeconds: seconds('resync-period'),
    concurrency: int('concurrency', 1),
    logLevel: flags.string('log-level'),
  };
  if (config.renewDeadlineSeconds >= config.leaseDurationSeconds) throw new FlagError('--renew-deadline must be shorter than --lease-duration');
  return Object.freeze(config);
}
