/** Controller metrics (Prometheus text on the health port's /metrics), in a registry of their own. */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export class ControllerMetrics {
  readonly registry = new Registry();
  readonly reconciles = new Counter({
    name: 'kserve_ts_controller_reconcile_total',
    help: 'Reconciles by kind (InferenceService, InferenceGraph) and result',
    labelNames: ['kind', 'result'] as const,
    registers: [this.registry],
  });
  readonly reconcileSeconds = new Histogram({
    name: 'kserve_ts_controller_reconcile_duration_seconds',
    help: 'Time to reconcile one object, by kind',
    labelNames: ['kind'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly queueDepth = new Gauge({
    name: 'kserve_ts_controller_workqueue_depth',
    help: 'Keys waiting in the work queue, by kind',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  readonly leader = new Gauge({ name: 'kserve_ts_controller_is_leader', help: '1 while this replica holds the leader lease', registers: [this.registry] });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    this.leader.set(0);
  }
}
