/**
 * The in-process request logger: KServe's agent logger without the sidecar.
 *
 * Contract:
 * - `log` never blocks, throws or waits: it is O(1) (a push on a bounded queue); a full
 *   queue (by count or by bytes) drops the event and counts it. Inference never waits on
 *   the sink.
 * - At most `concurrency` sends are in flight, each bounded by `sendTimeoutMs`; a refused
 *   connection, a timeout or a non-2xx answer counts as a failure. Events are not retried.
 * - Drops and failures are counted in metrics and logged at most once per `warnEveryMs`,
 *   with the counts since the previous line and the sink's URL without its credentials.
 * - `close(deadlineMs)` stops taking events and waits, until the deadline, for what is
 *   queued and in flight; what remains is dropped (counted) and the pool closed.
 */
import type { Logger } from 'pino';
import { Pool } from 'undici';
import type { Metrics } from '../metrics.js';
import { redactedUrl } from '../redacted-url.js';
import type { RequestLoggerConfig } from './flags.js';
import { type LogEvent, type LogKind, eventHeaders, metadataOf } from './log-event.js';

const WARN_EVERY_MS = 10_000;

export class RequestLogger {
  readonly config: RequestLoggerConfig;
  readonly #metrics: Metrics;
  readonly #log: Logger;
  readonly #pool: Pool;
  readonly #path: string;
  /** A ring would avoid shift's copy; queues here are small (--logger_queue_size) and shift is amortised O(1) in V8 for arrays this size. */
  readonly #queue: LogEvent[] = [];
  #queuedBytes = 0;
  #inFlight = 0;
  #closed = false;
  #idle: (() => void) | undefined;
  #lastWarn = 0;
  #dropsSinceWarn = 0;
  #failuresSinceWarn = 0;
  #lastFailure = '';

  constructor(config: RequestLoggerConfig, metrics: Metrics, log: Logger) {
    this.config = config;
    this.#metrics = metrics;
    metrics.trackRequestLogger();
    this.#log = log;
    this.#pool = new Pool(config.url.origin, { connections: config.concurrency, pipelining: 1 });
    this.#path = `${config.url.pathname}${config.url.search}`;
  }

  /** Whether events of this kind are wanted (--logger_mode): callers skip copying bodies otherwise. */
  wants(kind: LogKind): boolean {
    return this.config.mode === 'all' || this.config.mode === kind;
  }

  /** Queues one event; `body` must be owned by the caller and not change afterwards. */
  log(kind: LogKind, id: string, body: Uint8Array, contentType: string, headers: Readonly<Record<string, string>>): void {
    if (this.#closed || !this.wants(kind)) return;
    if (this.#queue.length >= this.config.queueSize || this.#queuedBytes + body.byteLength > this.config.queueMaxBytes) {
      this.#dropped(1);
      return;
    }
    this.#queue.push({ kind, id, body, contentType, metadata: metadataOf(this.config.metadataHeaders, headers), time: new Date().toISOString() });
    this.#queuedBytes += body.byteLength;
    this.#pump();
  }

  #pump(): void {
    while (this.#inFlight < this.config.concurrency && this.#queue.length > 0) {
      const event = this.#queue.shift() as LogEvent;
      this.#queuedBytes -= event.body.byteLength;
      this.#inFlight++;
      void this.#send(event).finally(() => {
        this.#inFlight--;
        this.#pump();
        if (this.#inFlight === 0 && this.#queue.length === 0) this.#idle?.();
      });
    }
  }

  async #send(event: LogEvent): Promise<void> {
    const timeout = this.config.sendTimeoutMs;
    try {
      const res = await this.#pool.request({
        path: this.#path,
        method: 'POST',
        headers: eventHeaders(event, this.config),
        body: event.body,
        signal: AbortSignal.timeout(timeout),
        headersTimeout: timeout,
        bodyTimeout: timeout,
      });
      // The answer's body is not needed, but must be read for the connection to be reused.
      await res.body.dump();
      if (res.statusCode < 200 || res.statusCode > 299) this.#failed(`HTTP ${res.statusCode}`, 'status');
      else this.#metrics.countLoggerEvent('sent');
    } catch (err) {
      const e = err as { name?: string; code?: string; message?: string };
      const timedOut = e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT';
      this.#failed(timedOut ? `no answer within ${timeout} ms` : (e.code ?? e.message ?? String(err)), timedOut ? 'timeout' : 'connection');
    }
  }

  #dropped(n: number): void {
    this.#metrics.countLoggerEvent('dropped', n);
    this.#dropsSinceWarn += n;
    this.#warn();
  }

  #failed(reason: string, kind: 'status' | 'timeout' | 'connection'): void {
    this.#metrics.countLoggerEvent(`failed_${kind}`);
    this.#failuresSinceWarn++;
    this.#lastFailure = reason;
    this.#warn();
  }

  /** At most one line per WARN_EVERY_MS: a down sink must not flood the log at request rate. */
  #warn(): void {
    const now = Date.now();
    if (now - this.#lastWarn < WARN_EVERY_MS) return;
    this.#lastWarn = now;
    this.#log.warn(
      { url: redactedUrl(this.config.url), dropped: this.#dropsSinceWarn, failed: this.#failuresSinceWarn, lastFailure: this.#lastFailure || undefined },
      'request logger: events dropped or not delivered',
    );
    this.#dropsSinceWarn = 0;
    this.#failuresSinceWarn = 0;
  }

  /** Flushes within `deadlineMs`, then drops what is left (counted) and closes the pool. Idempotent. */
  async close(deadlineMs: number): Promise<void> {
    this.#closed = true;
    if (this.#inFlight > 0 || this.#queue.length > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => {
          this.#idle = resolve;
        }),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, deadlineMs);
        }),
      ]);
      clearTimeout(timer);
    }
    const left = this.#queue.length;
    this.#queue.length = 0;
    this.#queuedBytes = 0;
    if (left > 0) this.#dropped(left);
    await this.#pool.destroy();
  }
}
