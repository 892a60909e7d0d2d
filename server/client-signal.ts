/**
 * Whether the client of a request has gone away, as transports report it: the contract
 * behind InferContext.signal. A getter, not an event, so nothing is registered per request
 * on the hot path; code holding queued work polls it (WorkerSession checks its waiting jobs
 * every CANCEL_POLL_MS, the batcher when a batch runs). Implement it as a class: V8 builds
 * object literals with getters on a slow path, measured at ~9% of mlp V2 JSON throughput.
 */
export interface ClientSignal {
  /** True once the client is gone (connection closed, call cancelled or past its deadline). */
  readonly aborted: boolean;
}
