/**
 * The predictor health check (--enable_predictor_health_check): the model's `healthy()`
 * probed from load on, every HEALTH_POLL_MS (one probe at a time; not healthy until the
 * first probe says so), so readiness, which must answer at once, reads the last result.
 * KServe probes on each readiness request instead; here readiness lags the predictor by at
 * most one interval plus a probe. The probe runs the hook where the model lives: on the
 * main thread (model-adapter.ts), or as a job in its worker thread (worker-model.ts).
 */
import type { Logger } from 'pino';

/** Between probes of a transformer's predictor (--enable_predictor_health_check). */
export const HEALTH_POLL_MS = 1000;

export class HealthPoll {
  healthy = false;
  readonly #timer: NodeJS.Timeout;
  #probing = false;

  private constructor(
    readonly model: string,
    readonly probe: () => Promise<boolean>,
    readonly logger: Logger,
  ) {
    this.#timer = setInterval(() => void this.#probe(), HEALTH_POLL_MS);
    this.#timer.unref();
  }

  /** Not awaited: a probe may take up to the predictor timeout, and loading must not wait for it. */
  static start(model: string, probe: () => Promise<boolean>, logger: Logger): HealthPoll {
    const poll = new HealthPoll(model, probe, logger);
    void poll.#probe();
    return poll;
  }

  async #probe(): Promise<void> {
    if (this.#probing) return;
    this.#probing = true;
    try {
      const now = await this.probe();
      if (now !== this.healthy) this.logger.info({ model: this.model, healthy: now }, 'predictor health changed');
      this.healthy = now;
    } catch (err) {
      this.healthy = false;
      this.logger.warn({ model: this.model, err }, 'predictor health check failed');
    } finally {
      this.#probing = false;
    }
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
