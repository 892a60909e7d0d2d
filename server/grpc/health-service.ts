/**
 * The standard `grpc.health.v1.Health` service, answering from the data plane:
 * - "" and "inference.GRPCInferenceService": SERVING when the server is ready (every
 *   model it started with is ready), NOT_SERVING otherwise;
 * - any other name is a model: SERVING when ready, NOT_SERVING while loading, failed or
 *   unloading; unknown models are NOT_FOUND for Check and SERVICE_UNKNOWN for Watch.
 * Watch re-evaluates every `pollMs` and sends only changes (the repository has no change
 * events). Once shutdown starts, everything is NOT_SERVING and open Watch streams end,
 * so that draining is not held up by them.
 */
import { type ServerWritableStream, type UntypedServiceImplementation, type handleUnaryCall, status } from '@grpc/grpc-js';
import { KServeError } from '../../protocols/errors.js';
import { INFERENCE_SERVICE } from '../../protocols/grpc/proto.js';
import type { DataPlane } from '../dataplane.js';

export type ServingStatus = 'SERVING' | 'NOT_SERVING' | 'SERVICE_UNKNOWN';

interface HealthCheckRequest {
  service?: string;
}
interface HealthCheckResponse {
  status: ServingStatus;
}

export class HealthService {
  readonly #dataplane: DataPlane;
  readonly #pollMs: number;
  readonly #watchers = new Set<() => void>();
  #shuttingDown = false;

  constructor(dataplane: DataPlane, opts: { pollMs?: number } = {}) {
    this.#dataplane = dataplane;
    this.#pollMs = opts.pollMs ?? 1000;
  }

  status(service: string): ServingStatus {
    if (this.#shuttingDown) return 'NOT_SERVING';
    if (service === '' || service === INFERENCE_SERVICE) return this.#dataplane.ready() ? 'SERVING' : 'NOT_SERVING';
    try {
      return this.#dataplane.modelReady(service) ? 'SERVING' : 'NOT_SERVING';
    } catch (err) {
      if (err instanceof KServeError && err.kind === 'ModelNotFound') return 'SERVICE_UNKNOWN';
      return 'NOT_SERVING';
    }
  }

  /** Reports NOT_SERVING from now on and ends every Watch stream. */
  shutdown(): void {
    this.#shuttingDown = true;
    for (const end of [...this.#watchers]) end();
  }

  implementation(): UntypedServiceImplementation {
    const check: handleUnaryCall<HealthCheckRequest, HealthCheckResponse> = (call, callback) => {
      const service = call.request.service ?? '';
      const st = this.status(service);
      if (st === 'SERVICE_UNKNOWN') callback({ code: status.NOT_FOUND, details: `unknown service '${service}'` });
      else callback(null, { status: st });
    };
    const watch = (call: ServerWritableStream<HealthCheckRequest, HealthCheckResponse>) => {
      const service = call.request.service ?? '';
      if (this.#shuttingDown) {
        call.write({ status: 'NOT_SERVING' });
        call.end();
        return;
      }
      let last: ServingStatus | undefined;
      const send = () => {
        const st = this.status(service);
        if (st !== last) {
          last = st;
          call.write({ status: st });
        }
      };
      const timer = setInterval(send, this.#pollMs);
      timer.unref();
      const stop = () => {
        clearInterval(timer);
        this.#watchers.delete(end);
      };
      const end = () => {
        stop();
        send();
        call.end();
      };
      this.#watchers.add(end);
      call.on('cancelled', stop);
      call.on('close', stop);
      send();
    };
    return { Check: check, Watch: watch };
  }
}
