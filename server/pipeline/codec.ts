/**
 * A wire format's side of one verb, as a value the pipeline calls (pipeline.ts): `decode` turns
 * what the transport received into the neutral request, `encode` turns the verb's result into
 * what the transport sends. Codecs are pure with respect to the server: they see the model's
 * view and their own limits, never a lease, a metric or a logger, so the pipeline alone times
 * and logs them.
 *
 * Contract:
 * - `decode` throws catalogue errors (protocols/errors.ts) for bad input; nothing has run yet.
 * - `decode` may keep views on the received buffer: the backend may detach them during the
 *   verb, so `wire` is asked for the request's bytes before the verb runs.
 * - `encode` gets the same `Decoded` its `decode` made (e.g. which outputs were asked for in
 *   binary, the V1 dialect chosen for the model).
 */
import type { InferRequest, ModelView } from '../../protocols/tensor.js';

/** A request as a codec decoded it: the neutral request, plus whatever the same codec's `encode` needs. */
export interface Decoded {
  readonly request: InferRequest;
}

/** A message as it goes over the wire, for the request logger (and what REST sends). */
export interface WireMessage {
  readonly body: Uint8Array | string;
  readonly contentType: string;
}

export interface Codec<In, D extends Decoded, R, Out extends WireMessage> {
  decode(input: In, model: ModelView): D;
  /** The request as received, for the request logger; absent: requests of this codec are not logged. */
  readonly wire?: (input: In, decoded: D) => WireMessage;
  encode(result: R, decoded: D): Out;
}
