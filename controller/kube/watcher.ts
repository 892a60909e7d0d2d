/**
 * A list+watch cache over one resource (client-node's ListWatch) that keeps itself
 * running: client-node stops an informer on a watch error and leaves the restart to the
 * caller, so errors here restart it with capped exponential backoff. `synced` resolves
 * after the first successful list.
 *
 * Contract: callbacks run on the event loop in watch order; they must only enqueue work.
 */
import { type KubeConfig, type KubernetesListObject, type KubernetesObject, makeInformer } from '@kubernetes/client-node';
import type { Logger } from 'pino';

export interface WatcherOptions<T extends KubernetesObject> {
  readonly name: string;
  readonly path: string;
  readonly list: () => Promise<KubernetesListObject<T>>;
  readonly labelSelector?: string;
  readonly onChange: (obj: T) => void;
  readonly logger: Logger;
  /** Restart backoff bounds (ms). */
  readonly minBackoffMs?: number;
  readonly maxBackoffMs?: number;
}

export class Watcher<T extends KubernetesObject> {
  private readonly informer;
  private stopped = false;
  private backoffMs: number;
  private timer: NodeJS.Timeout | undefined;
  private resolveSynced!: () => void;
  readonly synced: Promise<void>;

  constructor(
    kubeConfig: KubeConfig,
    private readonly opts: WatcherOptions<T>,
  ) {
    this.backoffMs = opts.minBackoffMs ?? 200;
    this.synced = new Promise((resolve) => {
      this.resolveSynced = resolve;
    });
    this.informer = makeInformer<T>(kubeConfig, opts.path, opts.list, opts.labelSelector);
    this.informer.on('add', opts.onChange);
    this.informer.on('update', opts.onChange);
    this.informer.on('delete', opts.onChange);
    this.informer.on('connect', () => {
      // A connect follows a successful list or a watch restart.
      this.backoffMs = this.opts.minBackoffMs ?? 200;
    });
    this.informer.on('error', (err: unknown) => this.restartLater(err));
  }

  async start(): Promise<void> {
    this.stopped = false;
    await this.runOnce();
  }

  private async runOnce(): Promise<void> {
    try {
      await this.informer.start();
      this.resolveSynced();
    } catch (err) {
      this.restartLater(err);
    }
  }

  private restartLater(err: unknown): void {
    if (this.stopped || this.timer) return;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, this.opts.maxBackoffMs ?? 10_000);
    this.opts.logger.warn({ watcher: this.opts.name, err: err instanceof Error ? err.message : String(err), retryInMs: delay }, 'watch failed; restarting');
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.stopped) void this.runOnce();
    }, delay);
  }

  /** Objects in the cache (all namespaces, or one). */
  list(namespace?: string): readonly T[] {
    return this.informer.list(namespace);
  }

  get(name: string, namespace?: string): T | undefined {
    return this.informer.get(name, namespace);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.informer.stop();
  }
}
