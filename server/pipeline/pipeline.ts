/**
 * The one request pipeline: every inference of every transport and verb runs here, once,
 * in this order:
 *
 *   acquire (lookup + lease; 404 / 503 before anything is decoded)
 *   → verb.admit (e.g. 501 for explain on a model that does not explain)
 *   → codec.decode                 timed as preprocess
 *   → request log                  the bytes as received, if this transport is logged
 *   → verb.run                     validation + backend; timed as the verb's stage
 *   → codec.encode                 timed as postprocess
 *   → response log
 *   → release                      on every path: success, error, client cancel, deadline
 *
 * A route or an RPC handler only picks the verb and the codec and sends the answer.
 *
 * Stages: preprocess is recorded only once the verb has run, so requests that fail before
 * it add no samples; the verb's stage and postprocess as they complete. A version that does
 * not admit the verb is still timed as the verb's stage (the anchor's timer wraps the call
 * that raises NotImplementedError).
 *
 * Statistics (Triton's extension; statistics/version-statistics.ts): each stage reading of an
 * `infer` request goes to the leased version's counters in the same call that observes its
 * histogram (`#observe`), so the two always agree; the request's outcome (success or fail,
 * from its lease to its answer, and its rows) is counted once it is known. Requests refused
 * before a version is leased (unknown model, not ready, overloaded) have no version to count in.
 *
 * Latency log (--enable_latency_logging): one line per request whose verb ran, with the
 * stages' milliseconds, as KServe's latency log.
 *
 * Request logger (--logger_url): whether a transport is logged is one setting
 * (`loggedTransports`: REST always, as KServe's HTTP-only agent; gRPC with --logger_grpc).
 * The logged id is the response's id (the request's own, or one made for it), shared by the
 * request and response events. Logging never waits on the sink.
 *
 * Streaming verbs (a verb whose run resolves to an AsyncIterable) go through `stream`: the
 * same steps, each item encoded as it comes, and the lease held until the sequence ends or
 * its consumer stops.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { InferRequest, ModelView } from '../../protocols/tensor.js';
import type { InferContext } from '../backend/backend.js';
import type { ClientSignal } from '../client-signal.js';
import { type Metrics, type Stage, since } from '../metrics.js';
import type { Lease, ModelRepository, ServedVersion } from '../repository/model-repository.js';
import type { ComputeStage, VersionStatistics } from '../statistics/version-statistics.js';
import type { RequestLogger } from '../request-logger/request-logger.js';
import type { Codec, Decoded, WireMessage } from './codec.js';
import type { Verb } from './verbs.js';
import { viewOf } from './model-view.js';

export type Transport = 'rest' | 'grpc';

/** Triton's inference count of one request: its rows (dim 0) where the model batches, else 1. */
function rowsOf(served: ServedVersion, request: InferRequest): number {
  if ((served.config?.maxBatchSize ?? 0) <= 0) return 1;
  return request.inputs[0]?.shape[0] ?? 1;
}

interface CallBase<In, D extends Decoded, R, Out extends WireMessage> {
  readonly name: string;
  readonly version: string | undefined;
  readonly transport: Transport;
  /** For a streaming verb: encodes one item of the sequence. */
  readonly codec: Codec<In, D, R, Out>;
  readonly input: In;
  /** Request headers (REST) or metadata (gRPC), lower-case names, one value each. */
  readonly headers: Readonly<Record<string, string>>;
  readonly signal?: ClientSignal | undefined;
}

export interface Call<In, D extends Decoded, R, Out extends WireMessage> extends CallBase<In, D, R, Out> {
  readonly verb: Verb<R>;
}

export interface StreamCall<In, D extends Decoded, R, Out extends WireMessage> extends CallBase<In, D, R, Out> {
  readonly verb: Verb<AsyncIterable<R>>;
}

export interface Answer<Out> {
  readonly message: Out;
  /** Headers the model set for the response (SDK models): REST headers, gRPC initial metadata. */
  readonly responseHeaders: Readonly<Record<string, string>>;
}

export interface StreamAnswer<Out> {
  readonly messages: AsyncIterable<Out>;
  readonly responseHeaders: Readonly<Record<string, string>>;
}

export interface PipelineOptions {
  readonly metrics: Metrics;
  /** Where each request's stage latencies go (--enable_latency_logging); absent: not logged. */
  readonly latencyLog?: Logger | undefined;
  /** Where requests and responses are posted (--logger_url); absent: not logged. */
  readonly requestLogger?: RequestLogger | undefined;
  /** Transports whose requests the request logger sees. */
  readonly loggedTransports: ReadonlySet<Transport>;
}

/** One request's progress through the steps before its verb's result is encoded. */
interface Opened<D> {
  readonly lease: Lease;
  readonly model: ModelView;
  readonly decoded: D;
  readonly id: string;
  readonly context: InferContext;
  readonly decodeSeconds: number;
  readonly logged: RequestLogger | undefined;
  /** When the lease was asked for (performance.now()): the start of the request's duration. */
  readonly started: number;
  /** The leased version's statistics, for an `infer` request; undefined for other verbs. */
  readonly statistics: VersionStatistics | undefined;
  /** Inferences the request holds: rows (dim 0) where the model batches, else 1. */
  readonly rows: number;
}

export class Pipeline {
  readonly #repository: ModelRepository;
  readonly #metrics: Metrics;
  readonly #latencyLog: Logger | undefined;
  readonly #requestLogger: RequestLogger | undefined;
  readonly #loggedTransports: ReadonlySet<Transport>;

  constructor(repository: ModelRepository, options: PipelineOptions) {
    this.#repository = repository;
    this.#metrics = options.metrics;
    this.#latencyLog = options.latencyLog;
    this.#requestLogger = options.requestLogger;
    this.#loggedTransports = options.loggedTransports;
  }

  /** Runs one request of a unary verb; throws catalogue errors (protocols/errors.ts). */
  async run<In, D extends Decoded, R, Out extends WireMessage>(call: Call<In, D, R, Out>): Promise<Answer<Out>> {
    const opened = this.#open(call);
    let verbSeconds: number | undefined;
    let encodeSeconds: number | undefined;
    try {
      const start = performance.now();
      const result = await call.verb.run(opened.lease.served, opened.model, opened.decoded.request, opened.id, opened.context);
      verbSeconds = this.#ran(call, opened, since(start));
      const encodeStart = performance.now();
      const message = call.codec.encode(result, opened.decoded);
      encodeSeconds = since(encodeStart);
      this.#observe(opened.statistics, 'postprocess', call.name, encodeSeconds);
      this.#logResponse(opened, message);
      this.#succeeded(opened, verbSeconds, encodeSeconds);
      return { message, responseHeaders: opened.context.responseHeaders };
    } catch (err) {
      opened.statistics?.failed(since(opened.started));
      throw err;
    } finally {
      opened.lease.release();
      this.#logLatency(call, opened, verbSeconds, encodeSeconds);
    }
  }

  /**
   * Runs one request of a streaming verb: each item the verb yields is encoded (timed as
   * postprocess, summed) and response-logged as it comes. The lease is released when the
   * sequence ends, fails, or its consumer stops early.
   */
  async stream<In, D extends Decoded, R, Out extends WireMessage>(call: StreamCall<In, D, R, Out>): Promise<StreamAnswer<Out>> {
    const { codec } = call;
    const opened = this.#open(call);
    let results: AsyncIterable<R>;
    let verbSeconds: number;
    try {
      const start = performance.now();
      results = await call.verb.run(opened.lease.served, opened.model, opened.decoded.request, opened.id, opened.context);
      verbSeconds = this.#ran(call, opened, since(start));
    } catch (err) {
      opened.statistics?.failed(since(opened.started));
      opened.lease.release();
      this.#logLatency(call, opened, undefined, undefined);
      throw err;
    }
    // An async generator cannot be an arrow function; it reads this pipeline's private members.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const pipeline = this;
    async function* messages(): AsyncGenerator<Out> {
      let encodeSeconds = 0;
      try {
        for await (const result of results) {
          const encodeStart = performance.now();
          const message = codec.encode(result, opened.decoded);
          const seconds = since(encodeStart);
          encodeSeconds += seconds;
          pipeline.#observe(opened.statistics, 'postprocess', call.name, seconds);
          pipeline.#logResponse(opened, message);
          yield message;
        }
        pipeline.#succeeded(opened, verbSeconds, encodeSeconds);
      } catch (err) {
        opened.statistics?.failed(since(opened.started));
        throw err;
      } finally {
        opened.lease.release();
        pipeline.#logLatency(call, opened, verbSeconds, encodeSeconds);
      }
    }
    return { messages: messages(), responseHeaders: opened.context.responseHeaders };
  }

  /** acquire → admit → decode → request log; releases the lease itself if any of them throws. */
  #open<In, D extends Decoded>(call: CallBase<In, D, unknown, WireMessage> & { readonly verb: Verb<unknown> }): Opened<D> {
    const started = performance.now();
    const lease = this.#repository.acquire(call.name, call.version);
    const statistics = call.verb.stage === 'predict' ? lease.served.statistics : undefined;
    try {
      const model = viewOf(call.name, lease.served);
      const admitStart = performance.now();
      try {
        call.verb.admit(lease.served, model);
      } catch (err) {
        this.#observe(statistics, call.verb.stage, call.name, since(admitStart));
        throw err;
      }
      const start = performance.now();
      const decoded = call.codec.decode(call.input, model);
      const decodeSeconds = since(start);
      const request: InferRequest = decoded.request;
      const id = request.id ?? randomUUID();
      const logger = this.#requestLogger;
      const logged = logger !== undefined && call.codec.wire !== undefined && this.#loggedTransports.has(call.transport) ? logger : undefined;
      if (logged !== undefined && logged.wants('request')) {
        const wire = (call.codec.wire as NonNullable<typeof call.codec.wire>)(call.input, decoded);
        // Copied: the backend may detach the buffer the request was decoded from.
        const body = typeof wire.body === 'string' ? Buffer.from(wire.body, 'utf8') : Uint8Array.prototype.slice.call(wire.body);
        logged.log('request', id, body, wire.contentType, call.headers);
      }
      const context: InferContext = { id: request.id, parameters: request.parameters, headers: call.headers, responseHeaders: {}, signal: call.signal };
      return { lease, model, decoded, id, context, decodeSeconds, logged, started, statistics, rows: rowsOf(lease.served, request) };
    } catch (err) {
      statistics?.failed(since(started));
      lease.release();
      throw err;
    }
  }

  /** Records the verb's stage and, now that it ran, preprocess; returns the verb's seconds. */
  #ran(call: { readonly name: string; readonly verb: Verb<unknown> }, opened: Opened<Decoded>, seconds: number): number {
    this.#observe(opened.statistics, call.verb.stage, call.name, seconds);
    this.#observe(opened.statistics, 'preprocess', call.name, opened.decodeSeconds);
    return seconds;
  }

  /** One stage reading, into its histogram and, for an `infer` request, its version's statistics. */
  #observe(statistics: VersionStatistics | undefined, stage: Stage, model: string, seconds: number): void {
    this.#metrics.observe(stage, model, seconds);
    if (statistics !== undefined && stage !== 'explain') statistics.stage(stage satisfies ComputeStage, seconds);
  }

  /** Counts an answered `infer` request; an unbatched version's execution is the request's own. */
  #succeeded(opened: Opened<Decoded>, verbSeconds: number, encodeSeconds: number): void {
    const statistics = opened.statistics;
    if (statistics === undefined) return;
    if (!statistics.executionsFromBatcher) statistics.executed(opened.rows, verbSeconds, opened.decodeSeconds, encodeSeconds);
    statistics.succeeded(opened.rows, since(opened.started));
  }

  #logResponse(opened: Opened<Decoded>, message: WireMessage): void {
    const logged = opened.logged;
    if (logged === undefined || !logged.wants('response')) return;
    const body = typeof message.body === 'string' ? Buffer.from(message.body, 'utf8') : message.body;
    logged.log('response', opened.id, body, message.contentType, opened.context.headers);
  }

  /** KServe's line: requestId, preprocess_ms, explain_ms, predict_ms, postprocess_ms; only for a verb that ran. */
  #logLatency(call: { readonly name: string; readonly verb: Verb<unknown> }, opened: Opened<Decoded>, verbSeconds: number | undefined, encodeSeconds: number | undefined): void {
    const log = this.#latencyLog;
    if (log === undefined || verbSeconds === undefined) return;
    const ms = (s: number | undefined) => (s === undefined ? undefined : Math.round(s * 1e6) / 1e3);
    log.info(
      {
        requestId: opened.id,
        model: call.name,
        preprocess_ms: ms(opened.decodeSeconds),
        explain_ms: call.verb.stage === 'explain' ? ms(verbSeconds) : undefined,
        predict_ms: call.verb.stage === 'predict' ? ms(verbSeconds) : undefined,
        postprocess_ms: ms(encodeSeconds),
      },
      'latency',
    );
  }
}
