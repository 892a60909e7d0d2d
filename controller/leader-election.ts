/**
 * Leader election over a coordination.k8s.io/v1 Lease, as client-go's leaderelection:
 * the holder renews every `retryPeriod`; a candidate takes the lease once
 * `renewTime + leaseDuration` has passed; every write carries the resourceVersion it
 * read, so two candidates racing get a 409 and only one wins. A leader that cannot
 * renew within `renewDeadline` gives leadership up (calls onStoppedLeading) before
 * anyone else can take it, so two replicas never reconcile at once.
 */
import { type CoordinationV1Api, type V1Lease, V1MicroTime } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { isConflict, isNotFound } from './kube/api-errors.js';

export interface LeaderElectionOptions {
  readonly namespace: string;
  readonly name: string;
  readonly identity: string;
  /** Seconds a lease is valid after its last renewal. */
  readonly leaseDurationSeconds: number;
  /** Milliseconds the leader keeps trying to renew before giving up. */
  readonly renewDeadlineMs: number;
  /** Milliseconds between attempts (acquire or renew). */
  readonly retryPeriodMs: number;
  readonly onStartedLeading: () => void | Promise<void>;
  readonly onStoppedLeading: () => void | Promise<void>;
  readonly logger: Logger;
}

export class LeaderElector {
  private leading = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private lastRenew = 0;

  constructor(
    private readonly api: CoordinationV1Api,
    private readonly opts: LeaderElectionOptions,
  ) {}

  get isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    this.stopped = false;
    void this.tick();
  }

  /** Stops campaigning; a leader releases the lease so a successor need not wait. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.leading) {
      await this.release().catch((err: unknown) => this.opts.logger.warn({ err: String(err) }, 'lease release failed'));
      await this.lose();
    }
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), this.opts.retryPeriodMs);
  }

  private async tick(): Promise<void> {
    try {
      const acquired = await this.tryAcquireOrRenew();
      if (acquired) {
        this.lastRenew = Date.now();
        if (!this.leading && !this.stopped) {
          this.leading = true;
          this.opts.logger.info({ lease: this.opts.name, identity: this.opts.identity }, 'became leader');
          await this.opts.onStartedLeading();
        }
      } else if (this.leading) {
        await this.lose();
      }
    } catch (err) {
      this.opts.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'leader election attempt failed');
      if (this.leading && Date.now() - this.lastRenew > this.opts.renewDeadlineMs) await this.lose();
    }
    this.schedule();
  }

  private async lose(): Promise<void> {
    if (!this.leading) return;
    this.leading = false;
    this.opts.logger.warn({ lease: this.opts.name, identity: this.opts.identity }, 'stopped leading');
    await this.opts.onStoppedLeading();
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const { namespace, name, identity, leaseDurationSeconds } = this.opts;
    // MicroTime: the API server wants six fractional digits, which plain Date does not give.
    const now = new V1MicroTime();
    let lease: V1Lease | undefined;
    try {
      lease = await this.api.readNamespacedLease({ name, namespace });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    if (!lease) {
      try {
        await this.api.createNamespacedLease({
          namespace,
          body: {
            metadata: { name, namespace },
            spec: { holderIdentity: identity, leaseDurationSeconds, acquireTime: now, renewTime: now, leaseTransitions: 0 },
          },
        });
        return true;
      } catch (err) {
        if (isConflict(err)) return false; // someone created it first
        throw err;
      }
    }
    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity ?? '';
    const renewedAt = spec.renewTime ? new Date(spec.renewTime).getTime() : 0;
    const expired = renewedAt + (spec.leaseDurationSeconds ?? leaseDurationSeconds) * 1000 < now.getTime();
    if (holder !== identity && holder !== '' && !expired) return false;
    const takingOver = holder !== identity;
    const updated: V1Lease = {
      ...lease,
      spec: {
        ...spec,
        holderIdentity: identity,
        leaseDurationSeconds,
        renewTime: now,
        acquireTime: takingOver ? now : spec.acquireTime,
        leaseTransitions: (spec.leaseTransitions ?? 0) + (takingOver ? 1 : 0),
      },
    };
    try {
      // replace carries metadata.resourceVersion: a concurrent writer makes this a 409.
      await this.api.replaceNamespacedLease({ name, namespace, body: updated });
      return true;
    } catch (err) {
      if (isConflict(err)) return false;
      throw err;
    }
  }

  private async release(): Promise<void> {
    const { namespace, name, identity } = this.opts;
    const lease = await this.api.readNamespacedLease({ name, namespace });
    if (lease.spec?.holderIdentity !== identity) return;
    await this.api.replaceNamespacedLease({
      name,
      namespace,
      body: { ...lease, spec: { ...lease.spec, holderIdentity: '', renewTime: new V1MicroTime(0) } },
    });
  }
}
