/** TensorFlow dtype mapping and the TF.js storage conversions, table-driven. */
import { describe, expect, it } from 'vitest';
import type { Datatype } from '../../../protocols/datatypes.js';
import { fromTfjsValues, tfFromV2, tfjsDtypeOf, toTfjsValues, v2FromTf } from './tf-types.js';

describe('tensorflow datatypes', () => {
  it.each([
    ['DT_FLOAT', 'FP32', 'float32'],
    ['DT_DOUBLE', 'FP64', 'float32'],
    ['DT_INT64', 'INT64', 'int32'],
    ['DT_UINT8', 'UINT8', 'int32'],
    ['DT_BOOL', 'BOOL', 'bool'],
    ['DT_STRING', 'BYTES', 'string'],
    ['DT_HALF', 'FP16', undefined],
  ])('%s <-> %s, computed in %s', (tf, v2, js) => {
    expect(v2FromTf(tf)).toBe(v2);
    expect(tfFromV2(v2 as Datatype)).toBe(tf);
    expect(tfjsDtypeOf(v2 as Datatype)).toBe(js);
  });

  it('accepts TF.js dtype names as tfjs-node reports them', () => {
    expect(v2FromTf('float32')).toBe('FP32');
    expect(v2FromTf('DT_VARIANT')).toBeUndefined();
  });

  it('narrows 64-bit integers to int32 and refuses values that do not fit', () => {
    expect(Array.from(toTfjsValues('a', 'INT64', BigInt64Array.of(-5n, 7n)) as Int32Array)).toEqual([-5, 7]);
    expect(() => toTfjsValues('a', 'INT64', BigInt64Array.of(2n ** 40n))).toThrow(/input 'a': element 0 \(1099511627776\) does not fit in int32/);
    expect(() => toTfjsValues('a', 'UINT32', Uint32Array.of(2 ** 31))).toThrow(/does not fit in int32/);
    expect(() => toTfjsValues('h', 'FP16', Uint16Array.of(1))).toThrow(/FP16 tensors are not supported/);
  });

  it('keeps float32, int32 and bytes storage as it is (no copy)', () => {
    const f = Float32Array.of(1.5);
    const i = Int32Array.of(3);
    const b = [Uint8Array.of(1)];
    expect(toTfjsValues('x', 'FP32', f)).toBe(f);
    expect(toTfjsValues('x', 'INT32', i)).toBe(i);
    expect(toTfjsValues('x', 'BYTES', b)).toBe(b);
  });

  it.each([
    ['INT64', Int32Array.of(1, -2), BigInt64Array.of(1n, -2n)],
    ['UINT64', Int32Array.of(3), BigUint64Array.of(3n)],
    ['FP64', Float32Array.of(0.5), Float64Array.of(0.5)],
    ['INT16', Int32Array.of(-4), Int16Array.of(-4)],
    ['BOOL', Uint8Array.of(1, 0), Uint8Array.of(1, 0)],
  ])('returns %s outputs in their declared type', (datatype, values, want) => {
    expect(fromTfjsValues(datatype as Datatype, values)).toEqual(want);
  });
});
