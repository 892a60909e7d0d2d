/**
 * Whether the client of a request has gone away, as transports report it: the contract
 * behind InferContext.signal. A getter, not an event: registering a listener per request
 * cost the hot path about a tenth of its throughput, so code holding queued work polls it
 * (WorkerSession checks its waiting jobs every CANCEL_POLL_MS; the batcher when a batch runs).
 */
export interface ClientSignal {
  /** True once the client is gone (connection closed, call cancelled or past its deadline). */
  readonly aborted: boolean;
}
