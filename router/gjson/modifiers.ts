/**
 * gjson's stock modifiers (v1.20.4): @pretty, @ugly, @reverse, @this, @flatten, @join,
 * @valid, @keys, @values, @tostr, @fromstr, @group, @dig. Registered into get.ts's table
 * when this module loads (index.ts imports it first), as gjson's init() does.
 */
import { appendJSONString, get, registerModifier, trim } from './get.js';
import { DEFAULT_PRETTY, type PrettyOptions, pretty, ugly } from './pretty.js';
import { type Result, parse } from './result.js';
import { valid } from './valid.js';

function cleanWS(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') continue;
    return [...s].filter((ch) => ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r').join('');
  }
  return s;
}

function unwrap(json: string): string {
  json = trim(json);
  if (json.length >= 2 && (json[0] === '[' || json[0] === '{')) json = json.slice(1, -1);
  return json;
}

function values(res: Result): Result[] {
  const out: Result[] = [];
  res.forEach((_, v) => {
    out.push(v);
    return true;
  });
  return out;
}

function modPretty(json: string, arg: string): string {
  if (arg.length === 0) return pretty(json);
  const opts: PrettyOptions = { ...DEFAULT_PRETTY };
  parse(arg).forEach((key, value) => {
    switch (key.string()) {
      case 'sortKeys':
        opts.sortKeys = value.bool();
        break;
      case 'indent':
        opts.indent = cleanWS(value.string());
        break;
      case 'prefix':
        opts.prefix = cleanWS(value.string());
        break;
      case 'width':
        opts.width = value.int();
        break;
    }
    return true;
  });
  return pretty(json, opts);
}

function modReverse(json: string): string {
  const res = parse(json);
  if (res.isArray())
    return `[${values(res)
      .reverse()
      .map((v) => v.raw)
      .join(',')}]`;
  if (res.isObject()) {
    const members: string[] = [];
    res.forEach((k, v) => {
      members.push(`${k.raw}:${v.raw}`);
      return true;
    });
    return `{${members.reverse().join(',')}}`;
  }
  return json;
}

function boolArg(arg: string, name: string): boolean {
  let on = false;
  if (arg !== '') {
    parse(arg).forEach((k, v) => {
      if (k.string() === name) on = v.bool();
      return true;
    });
  }
  return on;
}

function modFlatten(json: string, arg: string): string {
  const res = parse(json);
  if (!res.isArray()) return json;
  const deep = boolArg(arg, 'deep');
  const parts: string[] = [];
  for (const value of values(res)) {
    let raw = value.isArray() ? (deep ? unwrap(modFlatten(value.raw, arg)) : unwrap(value.raw)) : value.raw;
    raw = raw.replace(/^[\t\n\v\f\r ]+|[\t\n\v\f\r ]+$/g, '');
    if (raw.length > 0) parts.push(raw);
  }
  return `[${parts.join(',')}]`;
}

function modKeys(json: string): string {
  const v = parse(json);
  if (!v.exists()) return '[]';
  const obj = v.isObject();
  const out: string[] = [];
  v.forEach((key) => {
    out.push(obj ? key.raw : 'null');
    return true;
  });
  return `[${out.join(',')}]`;
}

function modValues(json: string): string {
  const v = parse(json);
  if (!v.exists()) return '[]';
  if (v.isArray()) return json;
  return `[${values(v)
    .map((x) => x.raw)
    .join(',')}]`;
}

function modJoin(json: string, arg: string): string {
  const res = parse(json);
  if (!res.isArray()) return json;
  const preserve = boolArg(arg, 'preserve');
  if (preserve) {
    const parts = values(res)
      .filter((v) => v.isObject())
      .map((v) => unwrap(v.raw));
    return `{${parts.join(',')}}`;
  }
  const keys: Result[] = [];
  const kvals = new Map<string, Result>();
  for (const obj of values(res)) {
    if (!obj.isObject()) continue;
    obj.forEach((key, value) => {
      const k = key.string();
      if (!kvals.has(k)) keys.push(key);
      kvals.set(k, value);
      return true;
    });
  }
  return `{${keys.map((k) => `${k.raw}:${kvals.get(k.string())!.raw}`).join(',')}}`;
}

function modGroup(json: string): string {
  const res = parse(json);
  if (!res.isObject()) return '';
  const all: string[] = [];
  res.forEach((key, value) => {
    if (!value.isArray()) return true;
    let idx = 0;
    value.forEach((_, v) => {
      if (idx === all.length) all.push('');
      all[idx] += `,${key.raw}:${v.raw}`;
      idx++;
      return true;
    });
    return true;
  });
  return `[${all.map((item) => `{${item.slice(1)}}`).join(',')}]`;
}

function digInto(all: Result[], parent: Result, path: string): void {
  const res = get(parent.raw, path);
  if (res.exists()) all.push(res);
  if (parent.isArray() || parent.isObject()) {
    parent.forEach((_, v) => {
      digInto(all, v, path);
      return true;
    });
  }
}

function modDig(json: string, arg: string): string {
  const all: Result[] = [];
  digInto(all, parse(json), arg);
  return `[${all.map((r) => r.raw).join(',')}]`;
}

registerModifier('pretty', modPretty);
registerModifier('ugly', (json) => ugly(json));
registerModifier('reverse', modReverse);
registerModifier('this', (json) => json);
registerModifier('flatten', modFlatten);
registerModifier('join', modJoin);
registerModifier('valid', (json) => (valid(json) ? json : ''));
registerModifier('keys', modKeys);
registerModifier('values', modValues);
registerModifier('tostr', (str) => appendJSONString(str));
registerModifier('fromstr', (json) => (valid(json) ? parse(json).string() : ''));
registerModifier('group', modGroup);
registerModifier('dig', modDig);
