// The worker side of the synchronous bridge: k6's APIs are synchronous (http.post returns the
// response), Node's are not. A call posts its request to the main thread and blocks on a
// shared flag; the main thread does the I/O, posts the answer and wakes it. The answer is
// taken with receiveMessageOnPort, so no event loop turn is needed in the blocked worker.
import { receiveMessageOnPort, workerData } from 'node:worker_threads';

const { port, flag } = workerData;
const state = new Int32Array(flag);
/** Longest a single k6 call may take before the script fails (bounded, like k6's 60 s default). */
const CALL_TIMEOUT_MS = 60_000;

export function call(request) {
  Atomics.store(state, 0, 0);
  port.postMessage(request);
  const woke = Atomics.wait(state, 0, 0, CALL_TIMEOUT_MS);
  const answer = receiveMessageOnPort(port);
  if (woke === 'timed-out' || answer === undefined) throw new Error(`k6 shim: ${request.kind} call got no answer in ${CALL_TIMEOUT_MS} ms`);
  if (answer.message.shimError) throw new Error(answer.message.shimError);
  return answer.message;
}

/** Checks and request counts, reported to the main thread when the run ends. */
export const results = { checks: {}, counters: { http_reqs: 0, http_req_failed: 0, grpc_reqs: 0 } };
