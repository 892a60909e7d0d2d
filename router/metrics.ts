/**
 * The router's Prometheus metrics (GET /metrics), beyond KServe's router, which has none:
 * graph requests by protocol and status, and per step (node, step name or index) the
 * latency of its calls and its failures. Labels come from the graph and fixed sets only,
 * so a client cannot create series.
 */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { GraphWire, StepAnswer, StepRef } from './executor.js';
import { RoutingError, isSuccess } from './routing-error.js';

export type RouterProtocol = 'rest' | 'grpc';

/** Why a step call counts as failed: an answer that is not a success, no answer at all, or no answer in time. */
export type StepFailure = 'status' | 'error' | 'timeout';

export class RouterMetrics {
  readonly registry = new Registry();
  readonly #requests: Counter<'protocol' | 'status_code'>;
  readonly #stepSeconds: Histogram<'node' | 'step' | 'protocol'>;
  readonly #stepFailures: Counter<'node' | 'step' | 'protocol' | 'reason'>;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    this.#requests = new Counter({
      name: 'router_requests_total',
      help: 'Graph requests by protocol and answered status (gRPC: the HTTP status of its code)',
      labelNames: ['protocol', 'status_code'],
      registers: [this.registry],
    });
    this.#stepSeconds = new Histogram({
      name: 'router_step_duration_seconds',
      help: 'Latency of each call to a graph step, answered or not',
      labelNames: ['node', 'step', 'protocol'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [this.registry],
    });
    this.#stepFailures = new Counter({
      name: 'router_step_failures_total',
      help: 'Graph step calls that did not succeed: a non-2xx answer (status), no answer (error) or none in time (timeout)',
      labelNames: ['node', 'step', 'protocol', 'reason'],
      registers: [this.registry],
    });
  }

  request(protocol: RouterProtocol, status: number): void {
    this.#requests.inc({ protocol, status_code: String(status) });
  }

  step(ref: StepRef, protocol: RouterProtocol, seconds: number, failure: StepFailure | undefined): void {
    const labels = { node: ref.node, step: ref.step, protocol };
    this.#stepSeconds.observe(labels, seconds);
    if (failure !== undefined) this.#stepFailures.inc({ ...labels, reason: failure });
  }

  /** The wire with every step call timed and its failures counted. */
  observed<P, Part>(wire: GraphWire<P, Part>, protocol: RouterProtocol): GraphWire<P, Part> {
    return {
      ...wire,
      call: async (ref: StepRef, input: P): Promise<StepAnswer<P>> => {
        const start = process.hrtime.bigint();
        const seconds = (): number => Number(process.hrtime.bigint() - start) / 1e9;
        try {
          const answer = await wire.call(ref, input);
          this.step(ref, protocol, seconds(), isSuccess(answer.status) ? undefined : 'status');
          return answer;
        } catch (err) {
          this.step(ref, protocol, seconds(), err instanceof RoutingError && err.timedOut ? 'timeout' : 'error');
          throw err;
        }
      },
    };
  }
}
