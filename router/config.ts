/**
 * `kserve-ts router`'s configuration, parsed once at start-up: KServe's `--graph-json`
 * (or the same JSON from a mounted file), the PROPAGATE_HEADERS environment variable,
 * the graph's routerTimeouts with KServe's defaults, and the flags of what goes beyond
 * KServe's router (the gRPC side, the body limit, readiness that follows the steps).
 */
import { readFileSync } from 'node:fs';
import { FlagError, type FlagSpec, flagHelp, parseFlags } from '../cli/flags.js';
import { type GraphSpec, GraphSpecError, parseGraphSpec } from './graph-spec.js';
import { type CompiledPatterns, compilePatterns } from './header-propagation.js';

/** KServe's constants.RouterTimeoutsServerRead / ServerWrite / ServerIdle (seconds). */
export const DEFAULT_SERVER_READ_SECONDS = 60;
export const DEFAULT_SERVER_WRITE_SECONDS = 60;
export const DEFAULT_SERVER_IDLE_SECONDS = 180;

export const ROUTER_FLAGS: readonly FlagSpec[] = [
  { name: 'graph-json', kind: 'string', dflt: '', placeholder: 'JSON', help: "the InferenceGraph spec (KServe's router flag)" },
  { name: 'graph-json-file', kind: 'string', dflt: '', placeholder: 'PATH', help: 'read the spec from this file instead (a mounted ConfigMap)' },
  { name: 'http_host', kind: 'string', dflt: '0.0.0.0', placeholder: 'HOST', help: 'bind address of both listeners' },
  { name: 'http_port', kind: 'int', dflt: '8080', help: "REST port (KServe's router: 8080)" },
  { name: 'grpc_port', kind: 'int', dflt: '8081', help: 'V2 gRPC port' },
  { name: 'enable_grpc', kind: 'bool', dflt: 'true', help: 'serve inference.GRPCInferenceService' },
  { name: 'step_grpc_port', kind: 'int', dflt: '8081', help: "gRPC port of the steps, on their serviceUrl's host (kserve-ts servers' default)" },
  { name: 'step_grpc_targets', kind: 'string', dflt: '', placeholder: 'JSON', help: 'gRPC targets by step origin, e.g. {"http://a:8080":"a:9000"}' },
  { name: 'max_body_bytes', kind: 'int', dflt: String(256 * 1024 * 1024), help: 'largest request body or gRPC message' },
  { name: 'readiness_follows_steps', kind: 'bool', dflt: 'true', help: "ready only while every step's server is" },
  { name: 'drain_seconds', kind: 'int', dflt: '30', help: "on SIGTERM: seconds of not-ready before closing (KServe's 30)" },
  { name: 'log_level', kind: 'string', dflt: 'info', placeholder: 'LEVEL', help: 'pino level' },
];

export interface RouterConfig {
  readonly spec: GraphSpec;
  readonly httpHost: string;
  readonly httpPort: number;
  readonly grpcPort: number;
  readonly enableGrpc: boolean;
  readonly stepGrpcPort: number;
  readonly stepGrpcTargets: ReadonlyMap<string, string>;
  readonly maxBodyBytes: number;
  readonly readinessFollowsSteps: boolean;
  readonly drainSeconds: number;
  readonly logLevel: string;
  readonly propagate: CompiledPatterns;
  readonly serverReadSeconds: number;
  readonly serverWriteSeconds: number;
  readonly serverIdleSeconds: number;
  /** undefined: no limit (KServe's http.DefaultClient). */
  readonly serviceClientSeconds: number | undefined;
}

export function routerUsage(): string {
  return [
    'Usage: kserve-ts router --graph-json JSON [flags]',
    '',
    'Flags:',
    ...flagHelp(ROUTER_FLAGS),
    '',
    'Environment: PROPAGATE_HEADERS (comma-separated header name patterns, as KServe).',
  ].join('\n');
}

function targets(text: string): Map<string, string> {
  if (text === '') return new Map();
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new FlagError('--step_grpc_targets must be a JSON object of origin → host:port');
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new FlagError('--step_grpc_targets must be a JSON object of origin → host:port');
  const out = new Map<string, string>();
  for (const [origin, target] of Object.entries(doc)) {
    if (typeof target !== 'string') throw new FlagError(`--step_grpc_targets: the target of ${origin} must be a string`);
    out.set(new URL(origin).origin, target);
  }
  return out;
}

/** Throws FlagError (a bad flag) or GraphSpecError (a graph Go's json.Unmarshal would refuse). */
export function routerConfig(argv: readonly string[], env: NodeJS.ProcessEnv): RouterConfig | 'help' {
  const flags = parseFlags(argv, ROUTER_FLAGS, { positionals: 'error' });
  if (flags.help) return 'help';
  const inline = flags.string('graph-json');
  const file = flags.string('graph-json-file');
  if (inline !== '' && file !== '') throw new FlagError('give --graph-json or --graph-json-file, not both');
  if (inline === '' && file === '') throw new FlagError('--graph-json (or --graph-json-file) is required');
  let text = inline;
  if (file !== '') {
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new FlagError(`--graph-json-file: cannot read ${file}: ${(err as Error).message}`);
    }
  }
  const spec = parseGraphSpec(text);
  const t = spec.routerTimeouts;
  const read = t?.serverRead ?? DEFAULT_SERVER_READ_SECONDS;
  return Object.freeze({
    spec,
    httpHost: flags.string('http_host'),
    httpPort: flags.int('http_port'),
    grpcPort: flags.int('grpc_port'),
    enableGrpc: flags.bool('enable_grpc'),
    stepGrpcPort: flags.int('step_grpc_port'),
    stepGrpcTargets: targets(flags.string('step_grpc_targets')),
    maxBodyBytes: flags.int('max_body_bytes'),
    readinessFollowsSteps: flags.bool('readiness_follows_steps'),
    drainSeconds: flags.int('drain_seconds'),
    logLevel: flags.string('log_level'),
    propagate: compilePatterns(env['PROPAGATE_HEADERS']),
    serverReadSeconds: read,
    serverWriteSeconds: t?.serverWrite ?? DEFAULT_SERVER_WRITE_SECONDS,
    // Go's IdleTimeout 0 means "the read timeout".
    serverIdleSeconds: t?.serverIdle === 0 ? read : (t?.serverIdle ?? DEFAULT_SERVER_IDLE_SECONDS),
    serviceClientSeconds: t?.serviceClient === undefined || t.serviceClient <= 0 ? undefined : t.serviceClient,
  });
}

export { GraphSpecError };
