/**
 * The request logger's flags (KServe's agent logger, in process) and their parsed form. The
 * `--logger_*` names are a contract: the controller writes them on a component's
 * kserve-container from spec.<component>.logger and the ISVC's identity.
 */
import { FlagError, type FlagSpec, type Flags } from '../../cli/flags.js';

export type LoggerMode = 'all' | 'request' | 'response';
const MODES: readonly LoggerMode[] = ['all', 'request', 'response'];

export interface RequestLoggerConfig {
  /** Where events are POSTed (http or https). */
  readonly url: URL;
  readonly mode: LoggerMode;
  /** Request headers carried in the events' `metadata` extension, as given (matched case-insensitively). */
  readonly metadataHeaders: readonly string[];
  readonly inferenceService: string;
  readonly namespace: string;
  readonly component: string;
  readonly endpoint: string;
  /** The events' `source`: KServe's agent names itself (`http://localhost:PORT/`). */
  readonly sourceUri: string;
  /** Events held while the sink is slow; past it new events are dropped (counted). */
  readonly queueSize: number;
  /** Bytes of event bodies held while the sink is slow; past it new events are dropped (counted). */
  readonly queueMaxBytes: number;
  /** Events in flight to the sink at once. */
  readonly concurrency: number;
  /** One POST's limit, connection included (ms). */
  readonly sendTimeoutMs: number;
  /**
   * gRPC inferences are logged too (the request and response messages, serialised protobuf).
   * Off by default: KServe's agent logger proxies HTTP only, so its users see REST alone.
   */
  readonly grpc: boolean;
}

export const LOGGER_FLAGS: readonly FlagSpec[] = [
  {
    name: 'logger_url',
    kind: 'string',
    dflt: '',
    placeholder: 'URL',
    help: "POST each inference's request and/or response as a CloudEvent here, as KServe's agent logger (empty: off)",
  },
  { name: 'logger_mode', kind: 'string', dflt: 'all', placeholder: 'MODE', help: 'what the logger sends: all, request or response' },
  { name: 'logger_metadata_headers', kind: 'list', dflt: '', placeholder: 'NAME,NAME', help: "request headers carried in the events' metadata extension" },
  { name: 'logger_inference_service', kind: 'string', dflt: '', placeholder: 'NAME', help: 'ce-inferenceservicename of logged events' },
  { name: 'logger_namespace', kind: 'string', dflt: '', placeholder: 'NS', help: 'ce-namespace of logged events' },
  { name: 'logger_component', kind: 'string', dflt: 'predictor', placeholder: 'COMPONENT', help: 'ce-component of logged events: predictor, transformer or explainer' },
  { name: 'logger_endpoint', kind: 'string', dflt: '', placeholder: 'NAME', help: 'ce-endpoint of logged events' },
  { name: 'logger_queue_size', kind: 'int', dflt: '1000', help: 'events held while the logger sink is slow; more are dropped and counted' },
  { name: 'logger_queue_max_bytes', kind: 'int', dflt: String(64 * 1024 * 1024), help: 'bytes of event bodies held while the logger sink is slow; more are dropped and counted' },
  { name: 'logger_concurrency', kind: 'int', dflt: '8', help: 'events sent to the logger sink at once' },
  { name: 'logger_timeout_ms', kind: 'int', dflt: '5000', help: 'limit of one event POST to the logger sink (ms)' },
  { name: 'logger_grpc', kind: 'bool', dflt: 'false', help: "log gRPC inferences too (KServe's agent logs HTTP only)" },
];

/** Undefined when --logger_url is empty. Throws FlagError on a malformed value. */
export function requestLoggerFrom(flags: Flags, httpPort: number): RequestLoggerConfig | undefined {
  const raw = flags.string('logger_url').trim();
  if (raw === '') return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new FlagError(`--logger_url must be an absolute http(s) URL, got '${raw}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FlagError(`--logger_url must be an http or https URL, got '${raw}'`);
  const mode = flags.string('logger_mode').trim().toLowerCase() as LoggerMode;
  if (!MODES.includes(mode)) throw new FlagError(`--logger_mode must be one of ${MODES.join(', ')}; got '${flags.string('logger_mode')}'`);
  return Object.freeze({
    url,
    mode,
    metadataHeaders: Object.freeze(flags.list('logger_metadata_headers')),
    inferenceService: flags.string('logger_inference_service'),
    namespace: flags.string('logger_namespace'),
    component: flags.string('logger_component'),
    endpoint: flags.string('logger_endpoint'),
    sourceUri: `http://localhost:${httpPort}/`,
    queueSize: flags.int('logger_queue_size', 1),
    queueMaxBytes: flags.int('logger_queue_max_bytes', 1),
    concurrency: flags.int('logger_concurrency', 1),
    sendTimeoutMs: flags.int('logger_timeout_ms', 1),
    grpc: flags.bool('logger_grpc'),
  });
}
