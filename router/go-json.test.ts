/**
 * router/go-json.ts against Go's encoding/json (the oracle CLI of scripts/graph-oracles.sh,
 * built with the same Go toolchain as the KServe router it stands in for): Unmarshal into
 * map[string]interface{} gives the same error message, or Marshal gives the same bytes.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type GjsonAnswer, askGjson } from '../test/helpers/graph-oracles.js';
import { marshalGo, unmarshalObject } from './go-json.js';

const DOCS = [
  // valid objects: key order, escaping, numbers as Go formats float64
  '{"b":1,"a":2,"A":3,"_":4,"é":5,"\\u00e9":6,"😀":7,"\\uffff":8,"":9}',
  '{"s":"<a href=\\"x\\">&amp;</a>","c":"\\u0000\\u0001\\b\\f\\n\\r\\t\\u001f\\u007f","u":"\\u2028\\u2029","e":"😀","lone":"\\ud800x","pair":"\\ud83d\\ude00","sl":"a\\/b\\\\c"}',
  '{"n":[0,-0,1,-1,1.5,1e-6,9.99e-7,1e-7,1e20,1e21,1.5e21,123456789012345678901234,12345678901234567890,0.1,0.30000000000000004,5e-324,1.7976931348623157e308,2.5E+3,1E2,-0.0]}',
  '{"t":true,"f":false,"z":null,"o":{},"a":[],"nest":{"y":[{"b":1,"a":[2,{"d":3,"c":4}]}]}}',
  '  {"padded" : 1 }  ',
  '{"dup":1,"dup":2}',
  '{"predictions":[1,0],"instances":[[1,2]],"model_name":"m","outputs":[{"name":"label","shape":[2],"datatype":"INT64","data":[1,0]}]}',
  'null',
  // not objects
  '[1,2]',
  '"text"',
  '12',
  'true',
  'false',
  // syntax errors, one per state of Go's scanner
  '',
  ' ',
  'x',
  'Internal Server Error',
  '<html>',
  '{',
  '{"a"',
  '{"a":',
  '{"a":1',
  '{"a":1,',
  '{"a" 1}',
  '{"a":1 "b":2}',
  '{a:1}',
  '{"a":1,}',
  '[',
  '[1',
  '[1,',
  '[1,]',
  '[1 2]',
  '[1}',
  '"abc',
  '"a\\',
  '"a\\x"',
  '"a\\u12"',
  '"a\\u12g4"',
  '"a\nb"',
  '-',
  '-a',
  '01',
  '1.',
  '1.e5',
  '1e',
  '1e+',
  '1ex',
  '1 2',
  '{} {}',
  't',
  'tr',
  'tru',
  'trux',
  'nul',
  'nulx',
  'fals',
  'f0',
  "'x'",
  '\\',
  '\x7f',
  '{"a":1}x',
  '"\u00e9"x',
  '{"k":\u00e9}',
  '{"a":\u0085}',
  '{"big":1e400}',
  '{"a":[1,"1e999",2e308],"b":-1e309}',
];

describe('Go encoding/json as the KServe router uses it', () => {
  let answers: GjsonAnswer[];
  beforeAll(async () => {
    answers = await askGjson(DOCS.map((json) => ({ json, path: '@this' })));
  }, 600_000);

  it('gives the same Unmarshal error or the same Marshal bytes for every document', () => {
    const mismatches = DOCS.flatMap((doc, k) => {
      const theirs = answers[k]!;
      const r = unmarshalObject(Buffer.from(doc, 'utf8'));
      const ours = r.ok ? { mapError: '', mapJson: marshalGo(r.value) } : { mapError: r.error, mapJson: '' };
      const want = { mapError: theirs.mapError, mapJson: theirs.mapJson };
      return JSON.stringify(ours) === JSON.stringify(want) ? [] : [{ doc, ours, go: want }];
    });
    expect(mismatches).toEqual([]);
    expect(answers.filter((a) => a.mapError === '').length).toBeGreaterThan(7);
    expect(answers.filter((a) => a.mapError.startsWith('invalid character')).length).toBeGreaterThan(30);
  });
});
