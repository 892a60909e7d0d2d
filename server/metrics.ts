/**
 * Prometheus metrics: the anchor's per-stage latency histograms (seconds, label
 * `model_name`) plus request counters by model, protocol and status code, and the dynamic
 * batcher's batch-size and queue-time histograms. One registry per
 * server instance so that tests and embedded servers never share state.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export type Stage = 'preprocess' | 'predict' | 'postprocess' | 'explain';
export type Protocol = 'v1' | 'v2' | 'grpc' | 'openai';
/** What became of a request-logger event (server/request-logger/). */
const LOGGER_OUTCOMES = ['sent', 'dropped', 'failed_status', 'failed_timeout', 'failed_connection'] as const;
export type LoggerOutcome = (typeof LOGGER_OUTCOMES)[number];

export class Metrics {
  readonly registry = new Registry();
  readonly #stages: Record<Stage, Histogram<'model_name'>>;
  readonly #requests: Counter<'model_name' | 'protocol' | 'status_code'>;
  readonly #batchSize: Histogram<'model_name'>;
  readonly #batchQueue: Histogram<'model_name'>;
  #loggerEvents: Counter<'outcome'> | undefined;
  #pullFailures: Counter<'model_name' | 'stage'> | undefined;
  #configErrors: Counter | undefined;

  readonly #render: (() => Promise<string>) | undefined;

  /**
   * `render` replaces the exposition of this registry alone, e.g. with the aggregate of
   * every worker process (server/cluster.ts); the registry still records this process.
   */
  constructor(opts: { defaultMetrics: boolean; render?: () => Promise<string> } = { defaultMetrics: true }) {
    this.#render = opts.render;
    const hist = (stage: Stage, help: string) =>
      new Histogram({
        name: `request_${stage}_seconds`,
        help,
        labelNames: ['model_name'],
        registers: [this.registry],
      });
    this.#stages = {
      preprocess: hist('preprocess', 'pre-process request latency'),
      predict: hist('predict', 'predict request latency'),
      postprocess: hist('postprocess', 'post-process request latency'),
      explain: hist('explain', 'explain request latency'),
    };
    this.#requests = new Counter({
      name: 'kserve_inference_requests_total',
      help: 'inference requests by model, protocol and HTTP status code (gRPC outcomes as the HTTP status of their error kind)',
      labelNames: ['model_name', 'protocol', 'status_code'],
      registers: [this.registry],
    });
    this.#batchSize = new Histogram({
      name: 'kserve_batch_size',
      help: 'rows per inference run by the dynamic batcher',
      labelNames: ['model_name'],
      buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
      registers: [this.registry],
    });
    this.#batchQueue = new Histogram({
      name: 'kserve_batch_queue_seconds',
      help: 'time a request waited in the dynamic batcher before its batch ran',
      labelNames: ['model_name'],
      registers: [this.registry],
    });
    if (opts.defaultMetrics) collectDefaultMetrics({ register: this.registry });
  }

  // Labelled children cached by label values: prom-client otherwise hashes the label
  // object on every observation, which shows on the per-request hot path.
  readonly #stageChildren = new Map<string, { observe(v: number): void }>();
  readonly #requestChildren = new Map<string, { inc(): void }>();

  observe(stage: Stage, model: string, seconds: number): void {
    const key = `${stage}\u0000${model}`;
    let child = this.#stageChildren.get(key);
    if (child === undefined) {
      child = this.#stages[stage].labels({ model_name: model });
      this.#stageChildren.set(key, child);
    }
    child.observe(seconds);
  }

  /**
   * Registers the request logger's counter, every outcome at 0 (a server without
   * --logger_url exports none). Called once, when the logger is made.
   */
  trackRequestLogger(): void {
    if (this.#loggerEvents !== undefined) return;
    this.#loggerEvents = new Counter({
      name: 'kserve_request_logger_events_total',
      help: 'request-logger CloudEvents by outcome: sent (2xx), dropped (queue full or left at shutdown), failed_status (non-2xx), failed_timeout, failed_connection',
      labelNames: ['outcome'],
      registers: [this.registry],
    });
    for (const outcome of LOGGER_OUTCOMES) this.#loggerEvents.inc({ outcome }, 0);
  }

  /**
   * Registers the model puller's counters (--model_config_file; server/puller/). Its
   * `model_name` values are the names the model config file gave, never a request's.
   */
  trackModelPulls(): void {
    if (this.#pullFailures !== undefined) return;
    this.#pullFailures = new Counter({
      name: 'kserve_model_pull_failures_total',
      help: 'models the puller could not bring in, by model and stage: memory (did not fit --model_memory_limit), download, load',
      labelNames: ['model_name', 'stage'],
      registers: [this.registry],
    });
    this.#configErrors = new Counter({
      name: 'kserve_model_config_errors_total',
      help: 'model config file (--model_config_file) versions refused as malformed; the models loaded before stay',
      registers: [this.registry],
    });
  }

  countPullFailure(model: string, stage: string): void {
    this.#pullFailures?.inc({ model_name: model, stage });
  }

  countModelConfigError(): void {
    this.#configErrors?.inc();
  }

  countLoggerEvent(outcome: LoggerOutcome, n = 1): void {
    this.#loggerEvents?.inc({ outcome }, n);
  }

  /**
   * `statusCode` is an HTTP status for every protocol: REST's own, and for gRPC the HTTP
   * status the error catalogue gives the outcome's kind (200 for OK).
   */
  countRequest(model: string, protocol: Protocol, statusCode: number): void {
    const key = `${model}\u0000${protocol}\u0000${statusCode}`;
    let child = this.#requestChildren.get(key);
    if (child === undefined) {
      child = this.#requests.labels({ model_name: model, protocol, status_code: String(statusCode) });
      this.#requestChildren.set(key, child);
    }
    child.inc();
  }

  /** Dynamic batching (server/batching): the rows of one batch run and one request's queue time. */
  observeBatchSize(model: string, rows: number): void {
    this.#batchSize.labels({ model_name: model }).observe(rows);
  }

  observeBatchQueue(model: string, seconds: number): void {
    this.#batchQueue.labels({ model_name: model }).observe(seconds);
  }

  /**
   * `kserve_model_queue_depth`: requests each model holds queued or running, read from
   * `depths` at every scrape, so its label values are exactly the models that exist then.
   */
  trackQueueDepth(depths: () => Iterable<readonly [string, number]>): void {
    this.#scrapedGauge('kserve_model_queue_depth', 'requests a model holds queued or running (bounded by --max_queued_requests)', ['model_name'], function* () {
      for (const [model, depth] of depths()) yield [{ model_name: model }, depth];
    });
  }

  /**
   * `kserve_model_info` (always 1): one series per loaded model version naming its platform and
   * the execution provider it runs on after any fallback (cpu when cuda was unavailable).
   * Read from `models` at every scrape, so only loaded versions have series.
   */
  trackModelInfo(models: () => Iterable<{ model: string; version: string; platform: string; executionProvider: string }>): void {
    const labels = ['model_name', 'model_version', 'platform', 'execution_provider'] as const;
    this.#scrapedGauge('kserve_model_info', 'loaded model versions: platform and the execution provider each runs on (value 1)', labels, function* () {
      for (const m of models()) yield [{ model_name: m.model, model_version: m.version, platform: m.platform, execution_provider: m.executionProvider }, 1];
    });
  }

  readonly #heldRequestBytes = new Map<'rest' | 'grpc', () => number>();

  /**
   * `kserve_request_bytes_held{transport}`: request bytes the server holds now against
   * --rest_max_inflight_body_bytes (rest) or --grpc_max_inflight_message_bytes (grpc), read
   * from `held` at every scrape; a transport without that budget has no series.
   */
  trackHeldRequestBytes(transport: 'rest' | 'grpc', held: () => number): void {
    const sources = this.#heldRequestBytes;
    if (sources.size === 0) {
      this.#scrapedGauge(
        'kserve_request_bytes_held',
        'request bytes held at once against --rest_max_inflight_body_bytes / --grpc_max_inflight_message_bytes',
        ['transport'],
        function* () {
          for (const [name, read] of sources) yield [{ transport: name }, read()];
        },
      );
    }
    sources.set(transport, held);
  }

  /** A gauge rebuilt from `read` at every scrape: its series are exactly what `read` yields then. */
  #scrapedGauge<L extends string>(name: string, help: string, labelNames: readonly L[], read: () => Iterable<readonly [Record<L, string>, number]>): void {
    new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [labels, value] of read()) this.set(labels, value);
      },
    });
  }

  contentType(): string {
    return this.registry.contentType;
  }

  render(): Promise<string> {
    if (this.#render !== undefined) return this.#render();
    return this.registry.metrics();
  }
}

/** Seconds elapsed since `start` (a performance.now() reading). */
export function since(start: number): number {
  return (performance.now() - start) / 1000;
}
