/**
 * Server configuration: parsed and validated once at start-up from argv and environment,
 * then frozen and passed down. Flag names and defaults follow KServe's model server
 * (underscored: `--http_port 8080`); the shared parser (cli/flags.ts) accepts `--flag value`,
 * `--flag=value` and hyphenated spellings. Backends declare their own flags (Backend.flags)
 * and read them from `flags`; this file knows only the server's. Unknown flags produce
 * warnings, never failures, as KServe runtimes pass flags of their own.
 */
import { availableParallelism } from 'node:os';
import { readFileSync } from 'node:fs';
import { FlagError, type FlagSpec, type Flags, flagHelp, inertFlag, parseFlags } from '../cli/flags.js';
import { LIMIT_FLAGS, type ServerLimits, limitsFrom } from './limits.js';
import { DEFAULT_ACCESS_LOG_FORMAT, compileAccessLogFormat } from './http/access-log.js';
import type { TlsFiles } from './http/tls.js';
import { LOGGER_FLAGS, type RequestLoggerConfig, requestLoggerFrom } from './request-logger/flags.js';
import { PULLER_FLAGS, type PullerConfig, pullerFrom } from './puller/puller-flags.js';
import { HUGGINGFACE_FLAGS, checkHuggingfaceFlags } from './huggingface-flags.js';

export interface ServerConfig {
  readonly httpHost: string;
  readonly httpPort: number;
  readonly grpcPort: number;
  readonly enableGrpc: boolean;
  readonly enableDocsUrl: boolean;
  /** Prefix of the OpenAI-compatible routes (`/openai`, KServe's default); undefined: not served. */
  readonly openaiRoutePrefix: string | undefined;
  readonly workers: number;
  readonly modelName: string;
  readonly modelDir: string | undefined;
  readonly modelRepository: string | undefined;
  /** Re-read the model folders this often (seconds; 0 = never): Triton's --repository-poll-secs. */
  readonly repositoryPollSeconds: number;
  readonly logLevel: string;
  /** Largest REST request body accepted (bytes). */
  readonly restMaxBodyBytes: number;
  readonly grpcMaxSendMessageLength: number;
  readonly grpcMaxReceiveMessageLength: number;
  /** Threads one model's operators may use: 0 on the command line = the CPUs this process may use (cgroup quota aware), divided among worker processes. */
  readonly intraOpThreads: number;
  /** Bounded wait for in-flight requests on SIGTERM/SIGINT and on unload (seconds). */
  readonly gracePeriodSeconds: number;
  /**
   * Seconds between SIGTERM and closing the listeners, during which readiness is false and
   * requests are still served: Kubernetes removes a pod from its Service's endpoints only
   * after a failed readiness probe, and traffic sent meanwhile must not be refused.
   */
  readonly shutdownDelaySeconds: number;
  /** Timeouts, connections, streams, queued requests, what a request may declare (limits.ts). */
  readonly limits: ServerLimits;
  /** REST over HTTPS with these files (--ssl_certfile/--ssl_keyfile); undefined: plain HTTP. */
  readonly tls: TlsFiles | undefined;
  /** Access-log line format (access-log.ts); undefined: no access log. */
  readonly accessLogFormat: string | undefined;
  /** One line per inference with its stages' milliseconds, as KServe's --enable_latency_logging. */
  readonly enableLatencyLogging: boolean;
  /** CloudEvents per inference to --logger_url (request-logger/); undefined: off. */
  readonly requestLogger: RequestLoggerConfig | undefined;
  /** The in-server model puller (--model_config_file, puller/); undefined: off. */
  readonly puller: PullerConfig | undefined;
  /** The whole parsed command line: backends read their own flags from it (BackendSettings). */
  readonly flags: Flags;
}

const MiB = 1024 * 1024;

/** KServe model-server flags with no meaning here, and why (the warning's text). */
const INERT_FLAGS: readonly (readonly [string, string])[] = [
  ['max_threads', 'Python thread-pool size; hooks run on the event loop (use --model_module_worker for blocking code)'],
  ['max_asyncio_workers', 'Python asyncio executor size; hooks run on the event loop (use --model_module_worker for blocking code)'],
  ['event_loop', "Python's event-loop choice (asyncio/uvloop); Node has one event loop"],
  ['configure_logging', 'kserve-ts always logs JSON lines to stdout; use --log_level'],
  ['log_config_file', 'a Python logging dictConfig file is not read; use --log_level (logs are JSON lines on stdout)'],
  ['model_class_name', "the model is the --model_module's default export (or its factory)"],
];

/** The server's own flags, with defaults and units; backends add theirs (Backend.flags). */
export const SERVER_FLAGS: readonly FlagSpec[] = [
  { name: 'http_port', kind: 'int', dflt: '8080', help: 'REST port (8443 by default with --ssl_certfile, as KServe)' },
  {
    name: 'ssl_certfile',
    kind: 'string',
    dflt: '',
    placeholder: 'PATH',
    help: 'serve REST over HTTPS with this PEM certificate (chain), reloaded when it changes (env KSERVE_TLS_CERT_FILE)',
  },
  { name: 'ssl_keyfile', kind: 'string', dflt: '', placeholder: 'PATH', help: 'PEM private key for --ssl_certfile (env KSERVE_TLS_KEY_FILE)' },
  { name: 'http_host', kind: 'string', dflt: '0.0.0.0', placeholder: 'ADDR', help: 'address the REST and gRPC servers bind' },
  { name: 'grpc_port', kind: 'int', dflt: '8081', help: 'gRPC port' },
  { name: 'enable_grpc', kind: 'bool', dflt: 'true', help: 'serve the V2 gRPC protocol' },
  { name: 'enable_docs_url', kind: 'bool', dflt: 'false', help: 'serve Swagger UI at /docs' },
  {
    name: 'openai_route_prefix',
    kind: 'string',
    dflt: 'openai',
    placeholder: 'PREFIX',
    help: "path prefix of the OpenAI-compatible routes (/PREFIX/v1/embeddings, rerank, models; env KSERVE_OPENAI_ROUTE_PREFIX, as KServe's); 'none' turns them off",
  },
  {
    name: 'workers',
    kind: 'string',
    dflt: '1',
    placeholder: 'N|auto',
    help: "server processes sharing the ports; 'auto': one per CPU this process may use (affinity and cgroup quota); operator threads are divided among them (env KSERVE_TS_WORKERS)",
  },
  { name: 'model_name', kind: 'string', dflt: 'model', placeholder: 'NAME', help: 'name of the model in --model_dir' },
  { name: 'model_dir', kind: 'string', dflt: '', placeholder: 'DIR', help: 'folder of one model (KServe runtime contract, e.g. /mnt/models)' },
  { name: 'model_repository', kind: 'string', dflt: '', placeholder: 'DIR', help: 'folder with one sub-folder per model (Triton layout)' },
  {
    name: 'repository_poll_secs',
    kind: 'int',
    dflt: '0',
    help: "re-read the model folders every N seconds: new model and version folders load, removed ones unload, changed ones reload (Triton's poll mode; 0 = off)",
  },
  { name: 'log_level', kind: 'string', dflt: 'info', placeholder: 'LEVEL', help: 'trace, debug, info, warn, error (env KSERVE_LOGLEVEL)' },
  { name: 'rest_max_body_bytes', kind: 'int', dflt: String(256 * MiB), help: 'largest REST request body (bytes)' },
  { name: 'grpc_max_send_message_length', kind: 'int', dflt: String(8 * MiB), help: 'largest gRPC response (bytes; -1 = no limit)' },
  { name: 'grpc_max_receive_message_length', kind: 'int', dflt: String(8 * MiB), help: 'largest gRPC request (bytes; -1 = no limit)' },
  { name: 'intra_op_threads', kind: 'int', dflt: '0', help: 'threads per operator, for every backend; 0 = CPUs available to the process' },
  { name: 'grace_period_seconds', kind: 'int', dflt: '30', help: 'drain time on shutdown and unload (seconds)' },
  {
    name: 'shutdown_delay_seconds',
    kind: 'int',
    dflt: '2',
    help: 'on SIGTERM, report not ready and keep serving this long before closing the listeners, so endpoints drop the pod first (seconds; SIGINT skips it)',
  },
  { name: 'enable_access_log', kind: 'bool', dflt: 'false', help: "log one line per REST response (KServe's uvicorn access log; implied by --access_log_format)" },
  {
    name: 'access_log_format',
    kind: 'string',
    dflt: '',
    placeholder: 'FORMAT',
    help: `access-log line in gunicorn atoms, as KServe's (e.g. '%(h)s "%(r)s" %(s)s %(M)s'; default '${DEFAULT_ACCESS_LOG_FORMAT}')`,
  },
  { name: 'enable_latency_logging', kind: 'bool', dflt: 'false', help: "log each inference's preprocess/predict/postprocess milliseconds (KServe's default is true)" },
  ...LIMIT_FLAGS,
  ...LOGGER_FLAGS,
  ...PULLER_FLAGS,
  // Accepted because KServe runtimes pass them, each with why it has no effect here: the
  // reason is the warning a user sees once when the flag is given.
  ...INERT_FLAGS.map(([name, why]) => inertFlag(name, why)),
  // KServe huggingfaceserver's flags, so that its InferenceServices run the text runtime.
  ...HUGGINGFACE_FLAGS,
];

/** A flag's value is malformed (one line, naming the flag). */
export { FlagError as ConfigError };

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

/** `--workers`: a count, or 'auto' for the CPUs this process may use (a pod's CPU limit, as the container sees it). */
function workersFrom(value: string): number {
  const v = value.trim();
  if (v === 'auto') return usableCpus();
  if (!/^\d+$/.test(v)) throw new FlagError(`--workers expects a whole number or 'auto', got '${v}'`);
  const n = Number(v);
  if (n < 1) throw new FlagError('--workers must be at least 1');
  return n;
}

/** KServe's default REST port when serving HTTPS. */
const DEFAULT_HTTPS_PORT = 8443;

function tlsFrom(certFile: string | undefined, keyFile: string | undefined): TlsFiles | undefined {
  if (!certFile && !keyFile) return undefined;
  if (!certFile || !keyFile) throw new FlagError('--ssl_certfile and --ssl_keyfile (KSERVE_TLS_CERT_FILE, KSERVE_TLS_KEY_FILE) go together: give both or neither');
  return { certFile, keyFile };
}

export interface ParsedArgs {
  readonly config: ServerConfig;
  readonly warnings: readonly string[];
  readonly help: boolean;
}

/**
 * Parses serve flags: the server's and `backendFlags` (every registered backend's own, which
 * the backends parse themselves from `config.flags`). Throws ConfigError with a one-line
 * message on invalid values.
 */
export function parseServeArgs(argv: readonly string[], env: NodeJS.ProcessEnv, backendFlags: readonly FlagSpec[]): ParsedArgs {
  const flags = parseFlags(argv, [...SERVER_FLAGS, ...backendFlags], { unknown: 'warn' });
  const get = (name: string): string => {
    if (name === 'log_level' && !flags.given(name) && env['KSERVE_LOGLEVEL']) return env['KSERVE_LOGLEVEL'].toLowerCase();
    return flags.string(name);
  };
  const int = (name: string) => flags.int(name);
  // gRPC's convention: -1 means no limit.
  const grpcLimit = (name: string) => (get(name).trim() === '-1' ? -1 : int(name));
  const port = (name: string) => {
    const p = int(name);
    if (p > 65535) throw new FlagError(`--${name} must be at most 65535, got ${p}`);
    return p;
  };

  const logLevel = get('log_level');
  if (!['trace', 'debug', 'info', 'warn', 'warning', 'error', 'fatal', 'critical'].includes(logLevel)) {
    throw new FlagError(`--log_level must be one of trace, debug, info, warn, error; got '${logLevel}'`);
  }
  checkHuggingfaceFlags(flags);
  const modelDir = get('model_dir') || undefined;
  const modelRepository = get('model_repository') || undefined;
  if (modelDir !== undefined && modelRepository !== undefined) {
    throw new FlagError('--model_dir and --model_repository are mutually exclusive');
  }
  const workers = workersFrom(flags.given('workers') ? get('workers') : (env['KSERVE_TS_WORKERS'] ?? get('workers')));
  const intra = int('intra_op_threads');
  const tls = tlsFrom(flags.string('ssl_certfile') || env['KSERVE_TLS_CERT_FILE'], flags.string('ssl_keyfile') || env['KSERVE_TLS_KEY_FILE']);
  const accessLogFormat = get('access_log_format') || (flags.bool('enable_access_log') ? DEFAULT_ACCESS_LOG_FORMAT : undefined);
  // Compiled here only to refuse a bad format at start-up; the HTTP app compiles its own.
  if (accessLogFormat !== undefined) compileAccessLogFormat(accessLogFormat);
  // KServe switches to its HTTPS port only when the port was left at its default.
  const httpPort = tls !== undefined && !flags.given('http_port') ? DEFAULT_HTTPS_PORT : port('http_port');
  const puller = pullerFrom(flags, env, modelDir, modelRepository);
  // Polling would unload what the puller reports as failed (no folder): the file decides alone.
  if (puller !== undefined && int('repository_poll_secs') > 0)
    throw new FlagError('--repository_poll_secs does not go with --model_config_file: the model config file decides what is loaded');
  const config: ServerConfig = {
    httpHost: get('http_host'),
    httpPort,
    grpcPort: port('grpc_port'),
    enableGrpc: flags.bool('enable_grpc'),
    enableDocsUrl: flags.bool('enable_docs_url'),
    openaiRoutePrefix: openAiPrefix(flags.given('openai_route_prefix') ? get('openai_route_prefix') : (env['KSERVE_OPENAI_ROUTE_PREFIX'] ?? get('openai_route_prefix'))),
    workers,
    modelName: get('model_name'),
    modelDir,
    modelRepository,
    repositoryPollSeconds: int('repository_poll_secs'),
    logLevel: logLevel === 'warning' ? 'warn' : logLevel === 'critical' ? 'fatal' : logLevel,
    restMaxBodyBytes: int('rest_max_body_bytes'),
    grpcMaxSendMessageLength: grpcLimit('grpc_max_send_message_length'),
    grpcMaxReceiveMessageLength: grpcLimit('grpc_max_receive_message_length'),
    // Divided among worker processes so that N workers do not oversubscribe the CPUs.
    intraOpThreads: intra === 0 ? Math.max(1, Math.floor(usableCpus() / workers)) : intra,
    gracePeriodSeconds: int('grace_period_seconds'),
    shutdownDelaySeconds: Math.max(0, int('shutdown_delay_seconds')),
    limits: limitsFrom(int),
    tls,
    accessLogFormat,
    enableLatencyLogging: flags.bool('enable_latency_logging'),
    requestLogger: requestLoggerFrom(flags, httpPort),
    puller,
    flags,
  };
  return { config: Object.freeze(config), warnings: flags.warnings, help: flags.help };
}

/**
 * `openai` → `/openai`. An empty prefix would put `/v1/models` on top of V1's model list, so
 * it is refused rather than letting one route shadow the other.
 */
function openAiPrefix(value: string): string | undefined {
  if (value === 'none') return undefined;
  const trimmed = value.replace(/^\/+|\/+$/g, '');
  if (trimmed === '') throw new FlagError("--openai_route_prefix must not be empty: /v1/models is V1's model list; give a prefix or 'none'");
  if (!/^[\w.~-]+(\/[\w.~-]+)*$/.test(trimmed)) throw new FlagError(`--openai_route_prefix must be a URL path, got '${value}'`);
  return `/${trimmed}`;
}

export function helpText(backendFlags: readonly FlagSpec[]): string {
  const compat = SERVER_FLAGS.filter((s) => s.inert).map((s) => `--${s.name}`);
  return [
    'Usage: kserve-ts serve [flags]',
    '',
    'Serves ONNX and TensorFlow models, and TypeScript custom models (--model_module), over KServe V1 and V2 (Open Inference Protocol) REST and gRPC.',
    '',
    'Flags:',
    ...flagHelp(SERVER_FLAGS),
    '',
    'Backend flags:',
    ...flagHelp(backendFlags),
    '',
    `Accepted for KServe compatibility, no effect: ${compat.join(' ')}`,
  ].join('\n');
}
