/**
 * One kind's reconcile loop, as controller-runtime's builder makes one: watches declared
 * with the mapping from an event to the keys (`namespace/name`) it affects, a keyed work
 * queue with per-key backoff, a periodic resync of every key of the kind (drift is repaired
 * even when an event was missed), and metrics per kind. The InferenceService and
 * InferenceGraph controllers are one loop each.
 *
 * Lifecycle: declare watches, then start() once (when leading), stop() before exit.
 */
import type { KubeConfig, KubernetesListObject, KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { apiErrorMessage } from './kube/api-errors.js';
import { Watcher } from './kube/watcher.js';
import type { ControllerMetrics } from './metrics.js';
import { WorkQueue } from './work-queue.js';

/** How a loop runs: the controller's flags, the same for every kind. */
export interface LoopTuning {
  readonly resyncPeriodMs: number;
  readonly concurrency: number;
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
  readonly logger: Logger;
  readonly metrics: ControllerMetrics;
}

/** The tuning fields of a caller's options (which carry more). */
export function loopTuning(o: LoopTuning): LoopTuning {
  return { resyncPeriodMs: o.resyncPeriodMs, concurrency: o.concurrency, retryBaseMs: o.retryBaseMs, retryMaxMs: o.retryMaxMs, logger: o.logger, metrics: o.metrics };
}

export interface ReconcileLoopOptions extends LoopTuning {
  /** The kind reconciled, for logs and the metrics' `kind` label. */
  readonly kind: string;
  readonly kubeConfig: KubeConfig;
  /** Reconciles one object; `recheckAfterMs` asks to look again (something not watched is pending). */
  readonly reconcile: (namespace: string, name: string) => Promise<{ readonly recheckAfterMs?: number }>;
  /** Every key of the kind, for the resync. */
  readonly allKeys: () => readonly string[];
  /** Called before each resync (a cache of the caller's to drop). */
  readonly onResync?: () => void;
  /** The log line once the caches have listed (default `<kind> controller caches synced; reconciling`). */
  readonly syncedMessage?: string;
}

export class ReconcileLoop {
  private readonly queue: WorkQueue;
  private readonly watchers: Watcher<KubernetesObject>[] = [];
  private resyncTimer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(private readonly opts: ReconcileLoopOptions) {
    this.queue = new WorkQueue((key) => this.handle(key), {
      concurrency: opts.concurrency,
      baseDelayMs: opts.retryBaseMs,
      maxDelayMs: opts.retryMaxMs,
      onError: (key, err, retryInMs) => opts.logger.warn({ kind: opts.kind, key, err: apiErrorMessage(err), retryInMs }, 'reconcile failed; retrying'),
    });
  }

  get started(): boolean {
    return this.running;
  }

  /** A cache over `path` whose events become keys through `onChange`. */
  watch<T extends KubernetesObject>(name: string, path: string, list: () => Promise<KubernetesListObject<T>>, onChange: (obj: T) => void, labelSelector?: string): Watcher<T> {
    const w = new Watcher<T>(this.opts.kubeConfig, { name, path, list, onChange, logger: this.opts.logger, ...(labelSelector ? { labelSelector } : {}) });
    this.watchers.push(w as unknown as Watcher<KubernetesObject>);
    return w;
  }

  add(key: string): void {
    this.queue.add(key);
  }

  /** Every key of the kind, now (a changed ConfigMap, a runtime that affects them all). */
  addAll(): void {
    for (const key of this.opts.allKeys()) this.queue.add(key);
  }

  /** Resolves once every cache has listed and the queue runs. */
  async start(): Promise<void> {
    await Promise.all(this.watchers.map((w) => w.start()));
    await Promise.all(this.watchers.map((w) => w.synced));
    this.queue.start();
    this.addAll();
    this.resyncTimer = setInterval(() => {
      this.opts.onResync?.();
      this.addAll();
    }, this.opts.resyncPeriodMs);
    this.running = true;
    this.opts.logger.info({ kind: this.opts.kind, watchers: this.watchers.length }, this.opts.syncedMessage ?? `${this.opts.kind} controller caches synced; reconciling`);
  }

  /** Marks the loop started without watching anything (a kind whose CRD is not installed). */
  startIdle(): void {
    this.running = true;
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.resyncTimer) clearInterval(this.resyncTimer);
    await Promise.all(this.watchers.map((w) => w.stop()));
    this.watchers.length = 0;
    await this.queue.stop();
  }

  /** Resolves when no reconcile is queued or running (tests). */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  private async handle(key: string): Promise<void> {
    const [namespace, name] = key.split('/') as [string, string];
    const { metrics, kind } = this.opts;
    const end = metrics.reconcileSeconds.startTimer({ kind });
    try {
      const result = await this.opts.reconcile(namespace, name);
      metrics.reconciles.inc({ kind, result: 'success' });
      // As controller-runtime's "Reconcile successful": every write of this pass is done.
      this.opts.logger.debug({ kind, key }, 'reconciled');
      if (result.recheckAfterMs !== undefined && this.running) this.queue.addAfter(key, result.recheckAfterMs);
    } catch (err) {
      metrics.reconciles.inc({ kind, result: 'error' });
      throw err;
    } finally {
      end();
      metrics.queueDepth.set({ kind }, this.queue.depth);
    }
  }
}
