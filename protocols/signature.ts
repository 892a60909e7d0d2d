/**
 * Choosing one of a model's named signatures (see SignatureDef in tensor.ts). Requests name
 * one with the `signature_name` parameter (V2 REST and gRPC) or body field (TF Serving's V1);
 * no name, or an empty one, means the default.
 */
import { errors } from './errors.js';
import type { SignatureDef } from './tensor.js';

/** The request parameter (and TF Serving V1 body field) that selects a signature. */
export const SIGNATURE_PARAMETER = 'signature_name';

/**
 * The signature called `wanted`, or the default (the first) when `wanted` is absent or empty.
 * An unknown name is an InvalidInput in TF Serving's words.
 */
export function selectSignature<S extends SignatureDef>(signatures: readonly S[], wanted: unknown): S {
  const first = signatures[0];
  if (first === undefined) throw errors.internal('the model has no signatures');
  if (wanted === undefined || wanted === null || wanted === '') return first;
  if (typeof wanted !== 'string') throw errors.invalidInput(`"${SIGNATURE_PARAMETER}" must be a string`);
  const sig = signatures.find((s) => s.name === wanted);
  if (sig === undefined) {
    throw errors.invalidInput(`Serving signature name: "${wanted}" not found in signature def; signatures: ${signatures.map((s) => s.name).join(', ')}`);
  }
  return sig;
}
