/**
 * A request message protobuf cannot decode is the client's fault, but grpc-js answers it
 * with INTERNAL ("Error deserializing request"). Deserialisers wrapped here return a marker
 * instead of throwing, so the handler can answer INVALID_ARGUMENT through the catalogue.
 */
import type * as grpc from '@grpc/grpc-js';
import { errors, type KServeError } from '../../protocols/errors.js';

const UNDECODABLE = Symbol('undecodable');

interface Undecodable {
  readonly [UNDECODABLE]: string;
}

export function isUndecodable(msg: unknown): msg is Undecodable {
  return typeof msg === 'object' && msg !== null && UNDECODABLE in msg;
}

export function undecodableReason(msg: Undecodable): string {
  return msg[UNDECODABLE];
}

/** The definition with every method's request deserialiser returning a marker on failure. */
export function tolerantDeserializers(def: grpc.ServiceDefinition): grpc.ServiceDefinition {
  const out: Record<string, grpc.MethodDefinition<unknown, unknown>> = {};
  for (const [name, method] of Object.entries(def)) {
    const deserialize = method.requestDeserialize;
    out[name] = {
      ...method,
      requestDeserialize: (buf: Buffer): unknown => {
        try {
          return deserialize(buf);
        } catch (e) {
          return { [UNDECODABLE]: (e as Error).message };
        }
      },
    };
  }
  return out;
}

/** How a request message that does not decode is answered (INVALID_ARGUMENT, naming the method). */
export function undecodableError(method: string, reason: string): KServeError {
  return errors.invalidInput(`the request is not a valid ${method}Request message: ${reason}`);
}
