import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memberValue } from './json-member-span.js';

const text = (json: string, key: string) => {
  const v = memberValue(Buffer.from(json, 'utf8'), key);
  return v === undefined ? undefined : Buffer.from(v).toString('utf8');
};

describe('memberValue', () => {
  it.each<[string, string, string, string | undefined]>([
    ['an array', '{"a":1,"data":[1,[2,3]],"b":2}', 'data', '[1,[2,3]]'],
    ['an object with brackets in its strings', '{"data":{"k":"]}\\"[{"},"x":0}', 'data', '{"k":"]}\\"[{"}'],
    ['a literal last', '{"x":"data","data":-1.5e3}', 'data', '-1.5e3'],
    ['spaces and new lines', '{ "data" :\n\t[ 1 , 2 ] \r\n}', 'data', '[ 1 , 2 ]'],
    ['an escaped key', '{"d\\u0061ta":true}', 'data', 'true'],
    ['a repeated key: the last, as JSON.parse', '{"data":1,"data":[2]}', 'data', '[2]'],
    ['a key only inside a value', '{"x":{"data":1}}', 'data', undefined],
    ['no members', '{}', 'data', undefined],
    ['null', '{"data":null}', 'data', 'null'],
    ['a string value', '{"data":"a,b}"}', 'data', '"a,b}"'],
  ])('%s', (_name, json, key, want) => {
    expect(text(json, key)).toBe(want);
  });

  it('nested 100,000 deep: found without recursion', () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    expect(text(`{"id":"x","data":${deep},"z":1}`, 'data')).toBe(deep);
  });

  it('any object JSON.stringify writes: the value parses to what JSON.parse gives for the member', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.jsonValue(), fc.boolean(), (rest, data, spaced) => {
        const json = JSON.stringify({ ...rest, data }, null, spaced ? 2 : undefined);
        const v = text(json, 'data');
        expect(JSON.parse(v as string)).toEqual(JSON.parse(json).data);
      }),
      { numRuns: 500 },
    );
  });
});
