/**
 * Transformer mode's configuration, KServe's `PredictorConfig`: where the predictor is and
 * how to talk to it. Parsed once at start-up from KServe's flags (PREDICTOR_FLAGS, declared
 * by the custom backend) and handed to the model through ModelFactoryOptions.predictor; a
 * Model built by code takes the same object (`new Model(name, { predictor })`).
 */
import { FlagError, type FlagSpec, type Flags } from '../../cli/flags.js';

/** Wire protocols a transformer can forward with (`--predictor_protocol`), KServe's names. */
export const PREDICTOR_PROTOCOLS = ['v1', 'v2', 'grpc-v2'] as const;
export type PredictorProtocol = (typeof PREDICTOR_PROTOCOLS)[number];

export interface PredictorConfig {
  /** HOST[:PORT] of the predictor (KServe's `--predictor_host`, e.g. `{isvc}-predictor.{ns}`). */
  readonly host: string;
  /** Default 'v1', as KServe's. */
  readonly protocol?: PredictorProtocol;
  /** https / a TLS channel; the CA is Node's (add one with NODE_EXTRA_CA_CERTS). */
  readonly useSsl?: boolean;
  /** One attempt's limit, from sending to the whole answer (default 600, KServe's). */
  readonly requestTimeoutSeconds?: number;
  /** Further attempts after a failure the predictor certainly did not act on (default 0). */
  readonly retries?: number;
  /** Readiness follows the predictor's (`--enable_predictor_health_check`). */
  readonly healthCheck?: boolean;
  /**
   * Bytes of REST answers being read from the predictor that the client holds at once, over
   * all its requests (`--predictor_max_inflight_answer_bytes`, default 1 GiB; 0 = no limit).
   */
  readonly maxInflightAnswerBytes?: number;
}

/** KServe's default --predictor_request_timeout_seconds. */
export const DEFAULT_PREDICTOR_TIMEOUT_SECONDS = 600;
/** As the REST request bodies' budget (--rest_max_inflight_body_bytes). */
export const DEFAULT_MAX_INFLIGHT_ANSWER_BYTES = 1024 * 1024 * 1024;

export const PREDICTOR_FLAGS: readonly FlagSpec[] = [
  { name: 'predictor_host', kind: 'string', dflt: '', placeholder: 'HOST[:PORT]', help: "transformer mode: the default predict forwards to this predictor (KServe's)" },
  { name: 'predictor_protocol', kind: 'string', dflt: '', placeholder: 'PROTOCOL', help: 'v1, v2 (REST) or grpc-v2, to the predictor (default v1)' },
  { name: 'protocol', kind: 'string', dflt: '', placeholder: 'PROTOCOL', help: "KServe's older name of --predictor_protocol (read when that is not given)" },
  { name: 'predictor_use_ssl', kind: 'bool', dflt: 'false', help: 'https / TLS to the predictor' },
  { name: 'predictor_request_timeout_seconds', kind: 'int', dflt: String(DEFAULT_PREDICTOR_TIMEOUT_SECONDS), help: 'limit of one forwarded request (seconds)' },
  { name: 'predictor_request_retries', kind: 'int', dflt: '0', help: 'further attempts when the predictor could not be reached or answered 503 / UNAVAILABLE' },
  { name: 'enable_predictor_health_check', kind: 'bool', dflt: 'false', help: "the model is ready only while the predictor's server is" },
  {
    name: 'predictor_max_inflight_answer_bytes',
    kind: 'int',
    dflt: String(DEFAULT_MAX_INFLIGHT_ANSWER_BYTES),
    help: 'REST answer bytes a transformer reads from its predictor at once over all requests; beyond it 503 (0 = no limit)',
  },
];

function isProtocol(value: string): value is PredictorProtocol {
  return (PREDICTOR_PROTOCOLS as readonly string[]).includes(value);
}

/** The predictor configuration the flags give; undefined without --predictor_host (not a transformer). */
export function predictorConfigFrom(flags: Flags): PredictorConfig | undefined {
  const host = flags.string('predictor_host').trim();
  const given = flags.string('predictor_protocol') || flags.string('protocol') || 'v1';
  if (!isProtocol(given)) throw new FlagError(`--predictor_protocol must be one of ${PREDICTOR_PROTOCOLS.join(', ')}; got '${given}'`);
  const timeout = flags.int('predictor_request_timeout_seconds');
  if (timeout < 1) throw new FlagError('--predictor_request_timeout_seconds must be at least 1');
  // The shared parser refuses negative integers already.
  const retries = flags.int('predictor_request_retries');
  if (host === '') return undefined;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(host) || host.includes('/'))
    throw new FlagError(`--predictor_host is HOST[:PORT] without a scheme or path (use --predictor_use_ssl for https); got '${host}'`);
  return Object.freeze({
    host,
    protocol: given,
    useSsl: flags.bool('predictor_use_ssl'),
    requestTimeoutSeconds: timeout,
    retries,
    healthCheck: flags.bool('enable_predictor_health_check'),
    maxInflightAnswerBytes: flags.int('predictor_max_inflight_answer_bytes'),
  });
}

/** A config with every default filled in. */
export function resolvePredictorConfig(config: PredictorConfig): Required<PredictorConfig> {
  return {
    host: config.host,
    protocol: config.protocol ?? 'v1',
    useSsl: config.useSsl ?? false,
    requestTimeoutSeconds: config.requestTimeoutSeconds ?? DEFAULT_PREDICTOR_TIMEOUT_SECONDS,
    retries: config.retries ?? 0,
    healthCheck: config.healthCheck ?? false,
    maxInflightAnswerBytes: config.maxInflightAnswerBytes ?? DEFAULT_MAX_INFLIGHT_ANSWER_BYTES,
  };
}

/**
 * `host` with KServe's default port when it names none: 80, or 443 with TLS (as KServe's
 * gRPC client; grpc-js alone would take 443 either way, missing a plaintext Service's 80).
 */
export function hostWithPort(host: string, useSsl: boolean): string {
  const hasPort = host.startsWith('[') ? /\]:\d+$/.test(host) : /:\d+$/.test(host);
  return hasPort ? host : `${host}:${useSsl ? 443 : 80}`;
}
