/** Waiting on the request bytes a server holds against its in-flight budgets. */
import type { ModelServer } from '../../server/server.js';
import { metricValue } from './http.js';
import { waitFor } from './wait-for.js';

/**
 * Resolves once `server` reports exactly `bytes` request bytes held for `transport` (its own
 * kserve_request_bytes_held gauge: what --rest_max_inflight_body_bytes or
 * --grpc_max_inflight_message_bytes counts). Bounded: fails only as a timeout.
 */
export async function untilBytesHeld(server: ModelServer, transport: 'rest' | 'grpc', bytes: number, timeoutMs = 60_000): Promise<void> {
  await waitFor(async () => metricValue(await server.metrics.render(), 'kserve_request_bytes_held', { transport }), {
    until: (held) => held === bytes,
    timeoutMs,
    intervalMs: 5,
    description: `${bytes} ${transport} request bytes held (kserve_request_bytes_held)`,
  });
}
