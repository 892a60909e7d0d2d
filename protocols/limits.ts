/**
 * Bounds on what one decoded request may make the server allocate, applied by every codec
 * before a client-declared number (a shape, a count, a length) sizes a buffer, a typed
 * array or a loop. The server passes its configured values (server/config.ts); codecs
 * called without them use the defaults below. docs/limits.md lists each with its flag.
 */
import { errors } from './errors.js';

export interface DecodeLimits {
  /** Elements over all input tensors of one request. */
  readonly maxTensorElements: number;
  /** Entries of a request's `inputs`. */
  readonly maxInputs: number;
  /** Entries of a request's `outputs`. */
  readonly maxOutputs: number;
}

/**
 * As many elements as the default REST body limit (256 MiB) holds for one-byte types, so
 * the default never refuses a request whose raw form fits the body.
 */
export const DEFAULT_DECODE_LIMITS: DecodeLimits = Object.freeze({
  maxTensorElements: 256 * 1024 * 1024,
  maxInputs: 1024,
  maxOutputs: 1024,
});

/**
 * Dimensions a shape may have. Fixed: no model format has tensors of higher rank in
 * practice (ONNX and TensorFlow models stay far below), and it bounds the nesting JSON
 * `data` may have, so decoding it never recurses deeper than this.
 */
export const MAX_RANK = 64;

/**
 * Element count of `shape`, refused when the shape has more than MAX_RANK dimensions or
 * when the product passes `max` (checked at every step, so it never overflows past
 * 2^53 whatever the dimensions).
 */
export function checkedElementCount(shape: readonly number[], where: string, max: number): number {
  if (shape.length > MAX_RANK) {
    throw errors.invalidInput(`${where}: shape has ${shape.length} dimensions; at most ${MAX_RANK} are allowed`);
  }
  let n = 1;
  for (const d of shape) n *= d;
  // Dims are non-negative safe integers, so the float product is exact up to 2^53 and any
  // larger one stays above `max`; only [huge..., 0] can reach Infinity × 0 = NaN, which
  // really has no elements.
  if (Number.isNaN(n)) n = 0;
  if (!(n <= max)) {
    throw errors.limitExceeded(
      `${where}: shape [${shape.join(',')}] has ${Number.isSafeInteger(n) ? n : 'more than 2^53'} elements; at most ${max} are allowed per request (limit --max_tensor_elements)`,
    );
  }
  return n;
}

/** Refuses a list (inputs, outputs) longer than its limit, before it is walked. */
export function checkListLength(length: number, what: string, max: number): void {
  if (length > max) throw errors.limitExceeded(`request has ${length} ${what}; at most ${max} are allowed (limit --max_${what})`);
}
