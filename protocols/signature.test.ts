/** Signature selection, shared by the data plane, the tensorflow backend and TF Serving's V1 dialect. */
import { describe, expect, it } from 'vitest';
import { KServeError } from './errors.js';
import { selectSignature } from './signature.js';
import type { SignatureDef } from './tensor.js';

const sigs: SignatureDef[] = [
  { name: 'serving_default', inputs: [{ name: 'x', datatype: 'FP32', shape: [-1, 4] }], outputs: [{ name: 'probabilities', datatype: 'FP32', shape: [-1, 3] }] },
  { name: 'logits', inputs: [{ name: 'x', datatype: 'FP32', shape: [-1, 4] }], outputs: [{ name: 'logits', datatype: 'FP32', shape: [-1, 3] }] },
];

describe('selectSignature', () => {
  it.each([
    ['no name', undefined, 'serving_default'],
    ['null', null, 'serving_default'],
    ['an empty name', '', 'serving_default'],
    ['the default by name', 'serving_default', 'serving_default'],
    ['another by name', 'logits', 'logits'],
  ])('%s selects %s', (_, wanted, name) => {
    expect(selectSignature(sigs, wanted).name).toBe(name);
  });

  it.each([
    ['an unknown name', 'nope', 'Serving signature name: "nope" not found in signature def; signatures: serving_default, logits'],
    ['a name that is not a string', 3, '"signature_name" must be a string'],
  ])('%s is an InvalidInput', (_, wanted, message) => {
    let err: unknown;
    try {
      selectSignature(sigs, wanted);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(KServeError);
    expect(err).toMatchObject({ kind: 'InvalidInput', message });
  });
});
