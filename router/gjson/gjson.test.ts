/**
 * The gjson port against gjson itself (the CLI scripts/graph-oracles.sh builds from
 * github.com/tidwall/gjson v1.20.4): for every case, Valid, Exists, Raw and Type must
 * agree. Cases: every example of gjson's README.md and SYNTAX.md, every condition the
 * router tests use (test/router/conditions.ts), edge cases of the scanner, and a seeded
 * batch of generated paths over several documents.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type GjsonAnswer, askGjson } from '../../test/helpers/graph-oracles.js';
import { CONDITION_CASES } from '../../test/router/conditions.js';
import { TYPE_NAMES, fromBytes, get, toBytes, valid } from './index.js';

const DOC = `{
  "name": {"first": "Tom", "last": "Anderson"},
  "age":37,
  "children": ["Sara","Alex","Jack"],
  "fav.movie": "Deer Hunter",
  "friends": [
    {"first": "Dale", "last": "Murphy", "age": 44, "nets": ["ig", "fb", "tw"]},
    {"first": "Roger", "last": "Craig", "age": 68, "nets": ["fb", "tw"]},
    {"first": "Jane", "last": "Murphy", "age": 47, "nets": ["ig", "tw"]}
  ]
}`;

const VALS = `{
  "vals": [
    { "a": 1, "b": "data" },
    { "a": 2, "b": true },
    { "a": 3, "b": false },
    { "a": 4, "b": "0" },
    { "a": 5, "b": 0 },
    { "a": 6, "b": "1" },
    { "a": 7, "b": 1 },
    { "a": 8, "b": "true" },
    { "a": 9, "b": false },
    { "a": 10, "b": null },
    { "a": 11 }
  ]
}`;

const LINES = `{"name": "Gilbert", "age": 61}
{"name": "Alexa", "age": 34}
{"name": "May", "age": 57}
{"name": "Deloise", "age": 44}`;

const PROGRAMMERS = `{"programmers": [{"firstName": "Janet", "lastName": "McLaughlin"}, {"firstName": "Elliotte", "lastName": "Hunter"}, {"firstName": "Jason", "lastName": "Harold"}]}`;

const DOC_PATHS = [
  // SYNTAX.md: basic, wildcards, escape, arrays, queries, dot vs pipe, modifiers, multipaths, literals
  'name.last',
  'name.first',
  'age',
  'children',
  'children.0',
  'children.1',
  'friends.1',
  'friends.1.first',
  'child*.2',
  'c?ildren.0',
  'fav\\.movie',
  'friends.#',
  'friends.#.age',
  'friends.#(last=="Murphy").first',
  'friends.#(last=="Murphy")#.first',
  'friends.#(age>45)#.last',
  'friends.#(first%"D*").last',
  'friends.#(first!%"D*").last',
  'children.#(!%"*a*")',
  'children.#(%"*a*")#',
  'friends.#(nets.#(=="fb"))#.first',
  'friends.0.first',
  'friends|0.first',
  'friends.0|first',
  'friends|0|first',
  'friends|#',
  'friends.#',
  'friends.#(last="Murphy")#',
  'friends.#(last="Murphy")#.first',
  'friends.#(last="Murphy")#|first',
  'friends.#(last="Murphy")#.0',
  'friends.#(last="Murphy")#|0',
  'friends.#(last="Murphy")#.#',
  'friends.#(last="Murphy")#|#',
  'children.@reverse',
  'children.@reverse.0',
  'children|@reverse',
  'children|@reverse|0',
  '@pretty:{"sortKeys":true}',
  '@pretty',
  '@ugly',
  '@this',
  '@valid',
  'friends.@flatten',
  '@keys',
  '@values',
  'name.@tostr',
  'name|@tostr|@fromstr',
  'friends.#.nets|@flatten',
  'friends|@join',
  '{"a":friends.#.first,"b":friends.#.age}|@group',
  '@dig:first',
  '{name.first,age,"the_murphys":friends.#(last="Murphy")#.first}',
  '{name.first,age,"company":!"Happysoft","employed":!true}',
  '[name.first,age,children.0]',
  '{name.first,age}.first',
  '[age,children]|1|0',
  // README.md
  'friends.#.first',
  'friends.1.last',
  'friends.#[last=="Murphy"].first',
  // more modifiers and arguments
  'friends.#.nets|@flatten:{"deep":true}',
  '@pretty:{"indent":"\\t","prefix":"> ","width":20}',
  '@pretty:{"width":0}',
  'children|@join',
  'name|@reverse',
  'name|@keys',
  'name|@values',
  'children|@keys',
  'children|@values',
  '@nothere',
  'name.@nothere',
  '!true',
  '!false',
  '!null',
  '!nan',
  '!inf',
  '!"text"',
  '!{"a":1}',
  '![1,2]|1',
  '!-12.5',
  '!nope',
  '{"k":!NaN}',
  // queries with every operator and type
  'friends.#(age>=47)#.first',
  'friends.#(age<=47)#.first',
  'friends.#(age<47).first',
  'friends.#(age!=44)#.first',
  'friends.#(age==68).last',
  'friends.#(first>"Dale")#.first',
  'friends.#(first<"Jane")#.first',
  'friends.#(first>="Jane")#.first',
  'friends.#(first<="Dale")#.first',
  'friends.#(first!="Dale")#.first',
  'friends.#(nets)#.first',
  'friends.#(missing)#.first',
  'friends.#(missing).first',
  'friends.#(nets.#>2)#.first',
  'friends.#(nets.0=="fb").first',
  'friends.#(first=="Dale"|last).x',
  'friends.#(age>45)#|#',
  'friends.#(first=Dale).last',
  'friends.#(first=="Da\\"le").last',
  'children.#(=="Alex")',
  'children.#(!="Alex")#',
  'children.#(>"B")#',
  'friends.#(age>4e1)#.first',
  'friends.#(age>-1)#.age',
  // paths that do not match or are malformed
  '',
  '.',
  '..',
  'name.',
  'name..first',
  '#',
  'friends.#.',
  'friends.#(',
  'friends.#(age>',
  'friends.#(last=="Murphy"',
  'friends.5',
  'friends.-1',
  'children.01',
  'children.00',
  'children.1e0',
  'children.99999999999999999999',
  'children.18446744073709551615',
  '[',
  '{',
  '[name',
  '{name',
  '\\',
  'fav\\',
  'fav\\.',
  'na\\me.first',
  'name\\.first',
  '*.first',
  'n*.f*',
  '?ame.?irst',
  'friends.*.first',
  'children.*',
  'name|first',
  'name|',
  '|name',
  'friends.#.nets.#',
  'friends.#.nets.0',
  'friends.#.nets|0',
  'friends.#|0',
  '@reverse|friends',
  '{ .input.userId == 1 }',
  '{ .predictions.class == "dog" }',
];

const VALS_PATHS = [
  'vals.#(b==~true)#.a',
  'vals.#(b==~false)#.a',
  'vals.#(b==~null)#.a',
  'vals.#(b==~*)#.a',
  'vals.#(b!=~*)#.a',
  'vals.#(b==~other)#.a',
  'vals.#(b>~false)#.a',
  'vals.#(b)#.a',
  'vals.#(b=="data").a',
];

const LINE_PATHS = ['..#', '..1', '..3', '..#.name', '..#(name="May").age', '..0.age', '..#(age>50)#.name'];

const EDGE_DOCS: readonly { json: string; paths: readonly string[] }[] = [
  { json: PROGRAMMERS, paths: ['programmers.#.lastName', 'programmers.#(lastName="Hunter").firstName', 'programmers.#(lastName="Nobody").firstName'] },
  // escapes, unicode, numbers, literals, nesting, invalid documents
  {
    json: '{"a\\"b": 1, "c\\\\": 2, "é": "ü", "\\u00e9x": 3, "emoji": "\\ud83d\\ude00", "k.k": {"z": [1, [2, [3]]]}}',
    paths: ['a"b', 'a\\"b', 'c\\\\', 'é', 'éx', 'emoji', '\\u00e9x', 'k\\.k.z.1.1.0', 'k\\.k.z|@flatten:{"deep":true}', '?', '??', '*x', 'em?ji', 'emoji|@tostr', '@this|@keys'],
  },
  {
    json: '{"n": [0, -0, 1.5e3, -2E-2, 1e400, 12345678901234567890, 0.1], "t": true, "f": false, "z": null, "s": "", "o": {}, "a": []}',
    paths: [
      'n',
      'n.#',
      'n.2',
      'n.4',
      'n.5',
      'n.#(>1)#',
      'n.#(==1500)',
      'n.#(<0)#',
      't',
      'f',
      'z',
      's',
      'o',
      'a',
      'a.#',
      'a.0',
      'o.x',
      'n.#(=="1500")',
      't|@tostr',
      'z|@tostr',
      's.#',
      '{t,f,z,s}',
    ],
  },
  {
    json: '[1, "two", {"three": 3}, [4], true, null]',
    paths: ['#', '0', '1', '2.three', '3.0', '4', '5', '6', '#.three', '#(three==3)', '#(==1)', '#(=="two")', '#(==true)', '#(==null)', '@reverse', '@flatten', '@values', '@keys'],
  },
  { json: '  "just a string"  ', paths: ['@this', '0', 'a', '@tostr'] },
  { json: '42', paths: ['@this', 'a'] },
  { json: '{"a": 1,}', paths: ['a', '@valid'] },
  { json: '{"a": [1, 2', paths: ['a', 'a.1', 'a.#', 'a.5'] },
  { json: '{"a": "unterminated', paths: ['a', 'b'] },
  { json: '{"a" 1}', paths: ['a'] },
  { json: 'not json', paths: ['a', '@this', '@valid'] },
  { json: '', paths: ['a', '@this', '#'] },
  { json: '{"a": NaN, "b": Infinity, "c": -inf, "d": nan}', paths: ['a', 'b', 'c', 'd', '#(a)'] },
  { json: '{"a": {"b": {"c": {"d": 1}}}, "a.b": 2}', paths: ['a.b.c.d', 'a\\.b', 'a.b|c|d', 'a.b.c|@reverse', 'a.*.c', 'a.*.*.d', '*.b'] },
  {
    json: '{"instances": [[6.8, 2.8, 4.8, 1.4]], "predictions": [1, 0, 2], "outputs": [{"name": "label", "data": [1]}]}',
    paths: ['instances', 'instances.0.0', 'predictions.#(>1)', 'predictions.#(==0)', 'outputs.#(name=="label").data.0', 'outputs.0.data.#(>0)'],
  },
];

function generated(): { json: string; path: string }[] {
  // A seeded LCG, so the batch is the same on every run.
  let seed = 0x5eed;
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const keys = [
    'name',
    'first',
    'last',
    'age',
    'children',
    'friends',
    'nets',
    'fav\\.movie',
    'x',
    '*',
    'f?iends',
    '0',
    '1',
    '2',
    '#',
    '@reverse',
    '@this',
    '@keys',
    '@values',
    '@flatten',
    '!true',
    '!"s"',
  ];
  const queries = ['#(age>45)', '#(age>45)#', '#(last=="Murphy")', '#(last%"M*")#', '#(nets.#(=="ig"))#', '#(first!%"J*")', '#(=="Alex")', '#(%"*a*")#', '#(age)', '#(b==~true)#'];
  const seps = ['.', '.', '.', '|'];
  const docs = [DOC, VALS, PROGRAMMERS, '[[1,2],[3,[4,5]],{"a":{"b":[6]}}]'];
  const out: { json: string; path: string }[] = [];
  for (let n = 0; n < 1500; n++) {
    const parts: string[] = [];
    const len = 1 + rand(4);
    for (let k = 0; k < len; k++) parts.push(rand(5) === 0 ? queries[rand(queries.length)]! : keys[rand(keys.length)]!);
    let path = parts[0]!;
    for (let k = 1; k < parts.length; k++) path += seps[rand(seps.length)]! + parts[k]!;
    if (rand(8) === 0) path = `{${path},${keys[rand(keys.length)]!}}`;
    if (rand(10) === 0) path = `[${path}]`;
    out.push({ json: docs[rand(docs.length)]!, path });
  }
  return out;
}

function oursFor(json: string, path: string): Omit<GjsonAnswer, 'mapError' | 'mapJson'> {
  const doc = toBytes(json);
  const r = get(doc, toBytes(path));
  return { valid: valid(doc), exists: r.exists(), raw: fromBytes(r.raw), type: TYPE_NAMES[r.type] };
}

const CASES: { json: string; path: string }[] = [
  ...DOC_PATHS.map((path) => ({ json: DOC, path })),
  ...VALS_PATHS.map((path) => ({ json: VALS, path })),
  ...LINE_PATHS.map((path) => ({ json: LINES, path })),
  ...EDGE_DOCS.flatMap((d) => d.paths.map((path) => ({ json: d.json, path }))),
  ...CONDITION_CASES.map((c) => ({ json: c.body, path: c.condition })),
  ...generated(),
];

describe('gjson port vs github.com/tidwall/gjson v1.20.4', () => {
  let answers: GjsonAnswer[];
  beforeAll(async () => {
    answers = await askGjson(CASES);
  }, 600_000);

  it('agrees on every documented example, edge case and router condition', () => {
    const hand = CASES.length - 1500;
    const mismatches = CASES.slice(0, hand).flatMap((c, k) => {
      const ours = oursFor(c.json, c.path);
      const theirs = answers[k]!;
      const want = { valid: theirs.valid, exists: theirs.exists, raw: theirs.raw, type: theirs.type };
      return JSON.stringify(ours) === JSON.stringify(want) ? [] : [{ ...c, ours, gjson: want }];
    });
    expect(mismatches).toEqual([]);
    // The examples do exercise both outcomes.
    expect(answers.slice(0, hand).filter((a) => a.exists).length).toBeGreaterThan(100);
    expect(answers.slice(0, hand).filter((a) => !a.exists).length).toBeGreaterThan(30);
  });

  it('agrees on 1,500 generated paths', () => {
    const base = CASES.length - 1500;
    const mismatches = CASES.slice(base).flatMap((c, k) => {
      const ours = oursFor(c.json, c.path);
      const theirs = answers[base + k]!;
      const want = { valid: theirs.valid, exists: theirs.exists, raw: theirs.raw, type: theirs.type };
      return JSON.stringify(ours) === JSON.stringify(want) ? [] : [{ ...c, ours, gjson: want }];
    });
    expect(mismatches.slice(0, 10)).toEqual([]);
  });
});
