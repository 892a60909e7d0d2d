import { describe, expect, it } from 'vitest';
import { MIN_SPLIT_BODY, placeholderArray, splitJson } from './json-split.js';

const big = `[${Array.from({ length: 5000 }, (_, i) => i / 7).join(',')}]`;
const pad = ' '.repeat(MIN_SPLIT_BODY);
const split = (s: string) => splitJson(Buffer.from(s), Buffer.byteLength(s));

describe('splitJson', () => {
  it('takes out large arrays without strings and leaves the rest for JSON.parse', () => {
    const s = `{"a":"x[","inputs":[{"shape":[1,2],"data":${big}},{"data":[[${big}],${big}]}]}${pad}`;
    const r = split(s);
    expect(r?.arrays.length).toBe(2);
    const doc = JSON.parse(r?.skeleton as string) as { a: string; inputs: { shape: number[]; data: unknown }[] };
    expect(doc.a).toBe('x[');
    expect(doc.inputs[0]?.shape).toEqual([1, 2]);
    const first = placeholderArray(r!, doc.inputs[0]?.data);
    expect(first?.materialize()).toEqual(JSON.parse(big));
    expect(placeholderArray(r!, doc.inputs[1]?.data)?.materialize()).toEqual([JSON.parse(big), JSON.parse(big)].map((a, i) => (i === 0 ? [a] : a)));
    expect(placeholderArray(r!, doc.inputs[0])).toBeUndefined();
  });

  it('small bodies, small arrays, arrays holding strings and bodies using \\u0000 are not split', () => {
    expect(split(`{"data":[1,2]}`)).toBeUndefined();
    expect(split(`{"data":[1,2,3]}${pad}`)).toBeUndefined();
    expect(split(`{"data":[${big},"s"]}${pad}`)).toBeUndefined();
    expect(split(`{"k":"\\u0000","data":${big}}${pad}`)).toBeUndefined();
    expect(split(`{"k":"\\\\u0000","data":${big}}${pad}`)?.arrays.length).toBe(1);
  });

  it('brackets inside strings do not count', () => {
    const s = `{"k":"]]]","data":${big},"q":"[[["}${pad}`;
    const r = split(s);
    expect(r?.arrays.length).toBe(1);
    expect(JSON.parse(r?.skeleton as string).q).toBe('[[[');
  });

  it('unbalanced brackets and many arrays holding strings end the search, not the body', () => {
    expect(split(`{"data":${big.slice(0, -1)}${pad}`)).toBeUndefined();
    const mixed = Array.from({ length: 40 }, () => '["s"]').join(',');
    const r = split(`[${mixed},${big}]${pad}`);
    expect(r).toBeUndefined();
  });
});
