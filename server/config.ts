/**
 * Server configuration: parsed and validated once at start-up from argv and environment,
 * then frozen and passed down. Flag names and defaults follow KServe's model server
 * (underscored: `--http_port 8080`); `--flag value`, `--flag=value` and hyphenated
 * spellings are all accepted. Unknown flags produce warnings, never failures.
 */
import { availableParallelism } from 'node:os';
import { readFileSync } from 'node:fs';

export interface ServerConfig {
  readonly httpHost: string;
  readonly httpPort: number;
  readonly grpcPort: number;
  readonly enableGrpc: boolean;
  readonly enableDocsUrl: boolean;
  readonly workers: number;
  readonly modelName: string;
  readonly modelDir: string | undefined;
  readonly modelRepository: string | undefined;
  readonly logLevel: string;
  /** Largest REST request body accepted (bytes). */
  readonly restMaxBodyBytes: number;
  readonly grpcMaxSendMessageLength: number;
  readonly grpcMaxReceiveMessageLength: number;
  readonly executionProviders: readonly string[];
  /** 0 = one per CPU this process may use (cgroup quota aware). */
  readonly intraOpThreads: number;
  readonly interOpThreads: number;
  /** Tiny models (warm-up ≤ this many µs) also run small requests on the main thread; 0 = never. */
  readonly inlineMaxMicros: number;
  /** onnxruntime's own telemetry (an upload to Microsoft); off unless asked for. */
  readonly ortTelemetry: boolean;
  /** Bounded wait for in-flight requests on SIGTERM/SIGINT and on unload (seconds). */
  readonly gracePeriodSeconds: number;
  /**
   * Seconds between SIGTERM and closing the listeners, during which readiness is false and
   * requests are still served: Kubernetes removes a pod from its Service's endpoints only
   * after a failed readiness probe, and traffic sent meanwhile must not be refused.
   */
  readonly shutdownDelaySeconds: number;
}

type Kind = 'int' | 'bool' | 'string' | 'list';
interface FlagSpec {
  readonly key: keyof ServerConfig | undefined;
  readonly kind: Kind;
  readonly dflt: string;
  readonly help: string;
}

const MiB = 1024 * 1024;

/** Every flag, with its default and units. Flags with `key: undefined` are accepted for KServe compatibility and have no effect. */
export const FLAGS: ReadonlyMap<string, FlagSpec> = new Map<string, FlagSpec>([
  ['http_port', { key: 'httpPort', kind: 'int', dflt: '8080', help: 'REST port' }],
  ['http_host', { key: 'httpHost', kind: 'string', dflt: '0.0.0.0', help: 'address the REST and gRPC servers bind' }],
  ['grpc_port', { key: 'grpcPort', kind: 'int', dflt: '8081', help: 'gRPC port' }],
  ['enable_grpc', { key: 'enableGrpc', kind: 'bool', dflt: 'true', help: 'serve the V2 gRPC protocol' }],
  ['enable_docs_url', { key: 'enableDocsUrl', kind: 'bool', dflt: 'false', help: 'serve Swagger UI at /docs' }],
  ['workers', { key: 'workers', kind: 'int', dflt: '1', help: 'server processes sharing the ports; operator threads are divided among them' }],
  ['model_name', { key: 'modelName', kind: 'string', dflt: 'model', help: 'name of the model in --model_dir' }],
  ['model_dir', { key: 'modelDir', kind: 'string', dflt: '', help: 'folder of one model (KServe runtime contract, e.g. /mnt/models)' }],
  ['model_repository', { key: 'modelRepository', kind: 'string', dflt: '', help: 'folder with one sub-folder per model (Triton layout)' }],
  ['log_level', { key: 'logLevel', kind: 'string', dflt: 'info', help: 'trace, debug, info, warn, error (env KSERVE_LOGLEVEL)' }],
  ['rest_max_body_bytes', { key: 'restMaxBodyBytes', kind: 'int', dflt: String(256 * MiB), help: 'largest REST request body (bytes)' }],
  ['grpc_max_send_message_length', { key: 'grpcMaxSendMessageLength', kind: 'int', dflt: String(8 * MiB), help: 'largest gRPC response (bytes; -1 = no limit)' }],
  ['grpc_max_receive_message_length', { key: 'grpcMaxReceiveMessageLength', kind: 'int', dflt: String(8 * MiB), help: 'largest gRPC request (bytes; -1 = no limit)' }],
  ['execution_providers', { key: 'executionProviders', kind: 'list', dflt: 'cpu', help: 'onnxruntime providers in order of preference, e.g. cuda,cpu' }],
  ['intra_op_threads', { key: 'intraOpThreads', kind: 'int', dflt: '0', help: 'threads per operator; 0 = CPUs available to the process' }],
  ['inline_max_us', { key: 'inlineMaxMicros', kind: 'int', dflt: '100', help: 'a model whose batch-1 inference takes at most this many µs also runs small requests on the main thread, skipping the worker hand-off; 0 = always a worker thread' }],
  ['inter_op_threads', { key: 'interOpThreads', kind: 'int', dflt: '1', help: 'threads across independent operators' }],
  ['enable_ort_telemetry', { key: 'ortTelemetry', kind: 'bool', dflt: 'false', help: "let onnxruntime send its usage telemetry to Microsoft (off: the server makes no outbound connection)" }],
  ['grace_period_seconds', { key: 'gracePeriodSeconds', kind: 'int', dflt: '30', help: 'drain time on shutdown and unload (seconds)' }],
  ['shutdown_delay_seconds', { key: 'shutdownDelaySeconds', kind: 'int', dflt: '2', help: 'on SIGTERM, report not ready and keep serving this long before closing the listeners, so endpoints drop the pod first (seconds; SIGINT skips it)' }],
  // Accepted because KServe runtimes pass them; they have no effect here.
  ...[
    'max_threads',
    'max_asyncio_workers',
    'enable_latency_logging',
    'configure_logging',
    'log_config_file',
    'access_log_format',
    'event_loop',
    'timeout_keep_alive',
    'predictor_host',
    'predictor_protocol',
    'protocol',
    'predictor_use_ssl',
    'predictor_request_timeout_seconds',
    'predictor_request_retries',
    'enable_predictor_health_check',
    'model_class_name',
  ].map((name): [string, FlagSpec] => [name, { key: undefined, kind: 'string', dflt: '', help: 'accepted for KServe compatibility; no effect' }]),
]);

export class ConfigError extends Error {}

function parseBool(flag: string, v: string): boolean {
  const s = v.toLowerCase();
  if (['true', '1', 'yes', 'y', 'on', 't'].includes(s)) return true;
  if (['false', '0', 'no', 'n', 'off', 'f'].includes(s)) return false;
  throw new ConfigError(`--${flag} expects true or false, got '${v}'`);
}

function parseInt10(flag: string, v: string): number {
  if (!/^\d+$/.test(v)) throw new ConfigError(`--${flag} expects a non-negative integer, got '${v}'`);
  return Number(v);
}

/** CPUs this process may use: affinity and, on Linux, the cgroup CPU quota. */
export function usableCpus(): number {
  let n = availableParallelism();
  try {
    const [quota, period] = readFileSync('/sys/fs/cgroup/cpu.max', 'utf8').trim().split(/\s+/);
    if (quota !== undefined && quota !== 'max' && period !== undefined) {
      n = Math.min(n, Math.max(1, Math.ceil(Number(quota) / Number(period))));
    }
  } catch {
    try {
      const quota = Number(readFileSync('/sys/fs/cgroup/cpu/cpu.cfs_quota_us', 'utf8'));
      const period = Number(readFileSync('/sys/fs/cgroup/cpu/cpu.cfs_period_us', 'utf8'));
      if (quota > 0 && period > 0) n = Math.min(n, Math.max(1, Math.ceil(quota / period)));
    } catch {
      // No cgroup limits visible: affinity is all we know.
    }
  }
  return n;
}

export interface ParsedArgs {
  readonly config: ServerConfig;
  readonly warnings: string[];
  readonly help: boolean;
}

/** Parses serve flags. Throws ConfigError with a one-line message on invalid values. */
export function parseServeArgs(argv: readonly string[], env: NodeJS.ProcessEnv): ParsedArgs {
  const values = new Map<string, string>();
  const warnings: string[] = [];
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--help' || arg === '-h') {
      help = true;
      continue;
    }
    if (!arg.startsWith('--')) {
      warnings.push(`ignoring unexpected argument '${arg}'`);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = (eq < 0 ? arg.slice(2) : arg.slice(2, eq)).replaceAll('-', '_');
    let value: string;
    if (eq >= 0) value = arg.slice(eq + 1);
    else {
      const next = argv[i + 1];
      const spec = FLAGS.get(name);
      if (next !== undefined && !next.startsWith('--')) {
        value = next;
        i++;
      } else if (spec?.kind === 'bool' || spec === undefined || spec.key === undefined) value = 'true';
      else throw new ConfigError(`--${name} needs a value`);
    }
    const spec = FLAGS.get(name);
    if (spec === undefined) warnings.push(`unknown flag --${name} ignored`);
    else if (spec.key === undefined) warnings.push(`--${name} is accepted for KServe compatibility and has no effect`);
    else values.set(name, value);
  }

  const get = (name: string): string => {
    const v = values.get(name);
    if (v !== undefined) return v;
    if (name === 'log_level' && env['KSERVE_LOGLEVEL']) return env['KSERVE_LOGLEVEL'].toLowerCase();
    return (FLAGS.get(name) as FlagSpec).dflt;
  };
  const int = (name: string) => parseInt10(name, get(name));
  // gRPC's convention: -1 means no limit.
  const grpcLimit = (name: string) => (get(name).trim() === '-1' ? -1 : int(name));
  const port = (name: string) => {
    const p = int(name);
    if (p > 65535) throw new ConfigError(`--${name} must be at most 65535, got ${p}`);
    return p;
  };

  const logLevel = get('log_level');
  if (!['trace', 'debug', 'info', 'warn', 'warning', 'error', 'fatal', 'critical'].includes(logLevel)) {
    throw new ConfigError(`--log_level must be one of trace, debug, info, warn, error; got '${logLevel}'`);
  }
  const modelDir = get('model_dir') || undefined;
  const modelRepository = get('model_repository') || undefined;
  if (modelDir !== undefined && modelRepository !== undefined) {
    throw new ConfigError('--model_dir and --model_repository are mutually exclusive');
  }
  const workers = int('workers');
  if (workers < 1) throw new ConfigError('--workers must be at least 1');
  const providers = get('execution_providers').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  for (const p of providers) {
    if (!['cpu', 'cuda'].includes(p)) throw new ConfigError(`--execution_providers: unknown provider '${p}' (cpu, cuda)`);
  }
  const intra = int('intra_op_threads');
  const config: ServerConfig = {
    httpHost: get('http_host'),
    httpPort: port('http_port'),
    grpcPort: port('grpc_port'),
    enableGrpc: parseBool('enable_grpc', get('enable_grpc')),
    enableDocsUrl: parseBool('enable_docs_url', get('enable_docs_url')),
    workers,
    modelName: get('model_name'),
    modelDir,
    modelRepository,
    logLevel: logLevel === 'warning' ? 'warn' : logLevel === 'critical' ? 'fatal' : logLevel,
    restMaxBodyBytes: int('rest_max_body_bytes'),
    grpcMaxSendMessageLength: grpcLimit('grpc_max_send_message_length'),
    grpcMaxReceiveMessageLength: grpcLimit('grpc_max_receive_message_length'),
    executionProviders: providers.length > 0 ? providers : ['cpu'],
    // Divided among worker processes so that N workers do not oversubscribe the CPUs.
    intraOpThreads: intra === 0 ? Math.max(1, Math.floor(usableCpus() / workers)) : intra,
    interOpThreads: Math.max(1, int('inter_op_threads')),
    inlineMaxMicros: int('inline_max_us'),
    ortTelemetry: parseBool('enable_ort_telemetry', get('enable_ort_telemetry')),
    gracePeriodSeconds: int('grace_period_seconds'),
    shutdownDelaySeconds: Math.max(0, int('shutdown_delay_seconds')),
  };
  return { config: Object.freeze(config), warnings, help };
}

export function helpText(): string {
  const rows = [...FLAGS].filter(([, s]) => s.key !== undefined);
  const width = Math.max(...rows.map(([n]) => n.length)) + 4;
  const lines = rows.map(([n, s]) => `  --${n.padEnd(width)}${s.help}${s.dflt ? ` (default ${s.dflt})` : ''}`);
  const compat = [...FLAGS].filter(([, s]) => s.key === undefined).map(([n]) => `--${n}`);
  return [
    'Usage: kserve-ts serve [flags]',
    '',
    'Serves ONNX models over KServe V1 and V2 (Open Inference Protocol) REST and gRPC.',
    '',
    'Flags:',
    ...lines,
    '',
    `Accepted for KServe compatibility, no effect: ${compat.join(' ')}`,
  ].join('\n');
}
