/**
 * `--workers N`: N server processes sharing the REST and gRPC ports through node:cluster
 * (the primary accepts connections and hands them to workers in turn).
 *
 * Contract:
 * - The primary only supervises: it forks the workers, restarts one that dies after it has
 *   started serving, forwards SIGTERM/SIGINT and exits 0 once every worker has drained.
 * - A worker that exits before it started serving (e.g. no model could be loaded, a port
 *   cannot be bound) stops the whole server with that worker's exit code: restarting it would
 *   fail the same way. Its one-line reason goes to the primary, which prints the first one
 *   only (N workers failing alike print one line).
 * - Metrics: every worker records into its own registry; `GET /metrics` on any worker asks
 *   the primary, which collects and aggregates all workers' registries (prom-client's
 *   AggregatorRegistry: counters and histograms summed), so counts do not depend on which
 *   worker a scrape lands on (the anchor's per-worker metrics are a known defect).
 */
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { AggregatorRegistry, type Registry } from 'prom-client';

const METRICS_REQUEST = 'kserve-ts:metrics-request';
const METRICS_RESPONSE = 'kserve-ts:metrics-response';
const STARTED = 'kserve-ts:started';
const FATAL = 'kserve-ts:fatal';

type Message =
  | { type: typeof METRICS_REQUEST; id: number }
  | { type: typeof METRICS_RESPONSE; id: number; text?: string; error?: string }
  | { type: typeof STARTED }
  | { type: typeof FATAL; line: string };

export function isClusterWorker(): boolean {
  return cluster.isWorker;
}

/** Supervises `workers` processes until a signal; resolves with the exit code. */
export function runPrimary(workers: number, logger: Logger): Promise<number> {
  const aggregator = new AggregatorRegistry();
  const started = new WeakSet<Worker>();
  let stopping = false;
  let printedFatal = false;

  return new Promise((resolve) => {
    const stopAll = (code: number) => {
      if (stopping) return;
      stopping = true;
      const live = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead());
      if (live.length === 0) resolve(code);
      let remaining = live.length;
      for (const w of live) {
        w.once('exit', () => {
          remaining--;
          if (remaining === 0) resolve(code);
        });
        w.process.kill('SIGTERM');
      }
    };

    cluster.on('message', (worker, msg: Message) => {
      if (msg.type === STARTED) started.add(worker);
      if (msg.type === FATAL && !printedFatal) {
        printedFatal = true;
        process.stderr.write(`${msg.line}\n`);
      }
      if (msg.type !== METRICS_REQUEST) return;
      aggregator.clusterMetrics().then(
        (text) => worker.send({ type: METRICS_RESPONSE, id: msg.id, text } satisfies Message),
        (err: Error) => worker.send({ type: METRICS_RESPONSE, id: msg.id, error: err.message } satisfies Message),
      );
    });
    cluster.on('exit', (worker, code, signal) => {
      if (stopping) return;
      if (!started.has(worker)) {
        logger.fatal({ pid: worker.process.pid, code, signal }, 'worker exited before it started serving; stopping');
        stopAll(code === 0 || code === null ? 1 : code);
        return;
      }
      logger.error({ pid: worker.process.pid, code, signal }, 'worker died; starting another');
      cluster.fork();
    });
    for (const sig of ['SIGTERM', 'SIGINT'] as const) {
      process.once(sig, () => {
        logger.info({ signal: sig }, 'shutting down workers');
        stopAll(0);
      });
    }
    for (let i = 0; i < workers; i++) cluster.fork();
    logger.info({ workers }, 'started worker processes');
  });
}

/**
 * In a worker: makes `registry` the one the primary aggregates and returns a renderer that
 * asks the primary for the aggregate of every worker.
 */
export function workerMetrics(registry: Registry): () => Promise<string> {
  AggregatorRegistry.setRegistries([registry]);
  // Constructing one installs prom-client's listener that answers the primary's collection.
  new AggregatorRegistry();
  let nextId = 1;
  const pending = new Map<number, { resolve(text: string): void; reject(err: Error): void }>();
  process.on('message', (msg: Message) => {
    if (msg.type !== METRICS_RESPONSE) return;
    const p = pending.get(msg.id);
    if (p === undefined) return;
    pending.delete(msg.id);
    if (msg.text !== undefined) p.resolve(msg.text);
    else p.reject(new Error(`metrics aggregation failed: ${msg.error ?? 'unknown error'}`));
  });
  return () =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      process.send?.({ type: METRICS_REQUEST, id } satisfies Message);
    });
}

/** A start-up failure's one line on stderr; in a worker, handed to the primary (see runPrimary). */
export function printFatal(line: string): Promise<void> {
  if (!isClusterWorker() || !process.connected || process.send === undefined) {
    process.stderr.write(`${line}\n`);
    return Promise.resolve();
  }
  // Sent before the worker exits: it leaves the IPC channel right after.
  return new Promise((resolve) => process.send?.({ type: FATAL, line } satisfies Message, undefined, {}, () => resolve()));
}

/** Tells the primary this worker serves, so that its later death means restart, not stop. */
export function announceStarted(): void {
  process.send?.({ type: STARTED } satisfies Message);
}
