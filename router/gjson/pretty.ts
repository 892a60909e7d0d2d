/**
 * github.com/tidwall/pretty v1.3.0's Pretty (with options) and Ugly, for gjson's @pretty
 * and @ugly modifiers. Works on byte strings (go-bytes.ts), like upstream on []byte.
 */
import { fromBytes, parseGoFloat, toBytes } from './go-bytes.js';

export interface PrettyOptions {
  width: number;
  prefix: string;
  indent: string;
  sortKeys: boolean;
}

export const DEFAULT_PRETTY: Readonly<PrettyOptions> = Object.freeze({ width: 80, prefix: '', indent: '  ', sortKeys: false });

/** Removes insignificant whitespace. */
export function ugly(src: string): string {
  let dst = '';
  for (let i = 0; i < src.length; i++) {
    if (src.charCodeAt(i) > 0x20) {
      dst += src[i];
      if (src[i] === '"') {
        for (i = i + 1; i < src.length; i++) {
          dst += src[i];
          if (src[i] === '"') {
            let j = dst.length - 2;
            while (dst[j] === '\\') j--;
            if ((j - (dst.length - 1)) % 2 !== 0) break;
          }
        }
      }
    }
  }
  return dst;
}

interface State {
  buf: string;
}

interface Pair {
  kstart: number;
  kend: number;
  vstart: number;
  vend: number;
}

function isNaNOrInf(json: string, i: number): boolean {
  const c = json[i];
  return c === 'i' || c === 'I' || c === '+' || c === 'N' || (c === 'n' && json.length - i > 1 && json[i + 1] !== 'u');
}

function appendTabs(st: State, prefix: string, indent: string, tabs: number): void {
  if (prefix.length !== 0) st.buf += prefix;
  st.buf += indent.repeat(tabs);
}

function appendString(st: State, json: string, i: number): number {
  const s = i;
  i++;
  for (; i < json.length; i++) {
    if (json[i] === '"') {
      let sc = 0;
      for (let j = i - 1; j > s; j--) {
        if (json[j] === '\\') sc++;
        else break;
      }
      if (sc % 2 === 1) continue;
      i++;
      break;
    }
  }
  st.buf += json.slice(s, i);
  return i;
}

function appendNumber(st: State, json: string, i: number): number {
  const s = i;
  i++;
  for (; i < json.length; i++) {
    const c = json[i]!;
    if (c.charCodeAt(0) <= 0x20 || c === ',' || c === ':' || c === ']' || c === '}') break;
  }
  st.buf += json.slice(s, i);
  return i;
}

type Step = [i: number, nl: number, ok: boolean];

function appendAny(st: State, json: string, i: number, pretty: boolean, o: PrettyOptions, sortkeys: boolean, tabs: number, nl: number, max: number): Step {
  for (; i < json.length; i++) {
    if (json.charCodeAt(i) <= 0x20) continue;
    const c = json[i]!;
    if (c === '"') return [appendString(st, json, i), nl, true];
    if ((c >= '0' && c <= '9') || c === '-' || isNaNOrInf(json, i)) return [appendNumber(st, json, i), nl, true];
    if (c === '{') return appendObject(st, json, i, '{', '}', pretty, o, sortkeys, tabs, nl, max);
    if (c === '[') return appendObject(st, json, i, '[', ']', pretty, o, sortkeys, tabs, nl, max);
    switch (c) {
      case 't':
        st.buf += 'true';
        return [i + 4, nl, true];
      case 'f':
        st.buf += 'false';
        return [i + 5, nl, true];
      case 'n':
        st.buf += 'null';
        return [i + 4, nl, true];
    }
  }
  return [i, nl, true];
}

const JType = { Null: 0, False: 1, Number: 2, String: 3, True: 4, Json: 5 } as const;
type JType = (typeof JType)[keyof typeof JType];

function jtype(v: string): JType {
  if (v.length === 0) return JType.Null;
  switch (v[0]) {
    case '"':
      return JType.String;
    case 'f':
      return JType.False;
    case 't':
      return JType.True;
    case 'n':
      return JType.Null;
    case '[':
    case '{':
      return JType.Json;
    default:
      return JType.Number;
  }
}

function parsestr(s: string): string {
  for (let i = 1; i < s.length; i++) {
    if (s[i] === '\\') {
      try {
        const v: unknown = JSON.parse(fromBytes(s));
        return typeof v === 'string' ? toBytes(v) : '';
      } catch {
        return '';
      }
    }
    if (s[i] === '"') return s.slice(1, i);
  }
  return '';
}

function trimSpace(s: string): string {
  return s.replace(/^[\t\n\v\f\r ]+|[\t\n\v\f\r ]+$/g, '');
}

function isLess(json: string, buf: string, a: Pair, b: Pair, byKey: boolean): boolean {
  const k1 = json.slice(a.kstart, a.kend);
  const k2 = json.slice(b.kstart, b.kend);
  let v1 = k1;
  let v2 = k2;
  if (!byKey) {
    v1 = trimSpace(buf.slice(a.vstart, a.vend));
    v2 = trimSpace(buf.slice(b.vstart, b.vend));
    if (v1.length >= k1.length + 1) v1 = trimSpace(v1.slice(k1.length + 1));
    if (v2.length >= k2.length + 1) v2 = trimSpace(v2.slice(k2.length + 1));
  }
  const t1 = jtype(v1);
  const t2 = jtype(v2);
  if (t1 !== t2) return t1 < t2;
  if (t1 === JType.String) return parsestr(v1) < parsestr(v2);
  if (t1 === JType.Number) return parseGoFloat(v1) < parseGoFloat(v2);
  return v1 < v2;
}

function sortPairs(json: string, st: State, pairs: Pair[], pretty: boolean): void {
  if (pairs.length === 0) return;
  const vstart = pairs[0]!.vstart;
  const less = (a: Pair, b: Pair): boolean => {
    if (isLess(json, st.buf, a, b, true)) return true;
    if (isLess(json, st.buf, b, a, true)) return false;
    return isLess(json, st.buf, a, b, false);
  };
  const sorted = [...pairs].sort((a, b) => (less(a, b) ? -1 : less(b, a) ? 1 : 0));
  // Upstream rebuilds only when its stable sort swapped anything, i.e. the order changed.
  if (sorted.every((p, k) => p === pairs[k])) return;
  const sep = pretty ? ',\n' : ', ';
  const nbuf = sorted.map((p) => st.buf.slice(p.vstart, p.vend)).join(sep);
  st.buf = st.buf.slice(0, vstart) + nbuf;
}

function newlineAt(st: State): number {
  const nl = st.buf.length;
  if (st.buf[nl - 1] === ' ') st.buf = `${st.buf.slice(0, nl - 1)}\n`;
  else st.buf += '\n';
  return nl;
}

function appendObject(
  st: State,
  json: string,
  i: number,
  open: string,
  close: string,
  pretty: boolean,
  o: PrettyOptions,
  sortkeys: boolean,
  tabs: number,
  nl: number,
  max: number,
): Step {
  let ok: boolean;
  if (o.width > 0 && pretty && max === -1) {
    // try a single line first
    const lineMax = o.width - (st.buf.length - nl);
    if (lineMax > 3) {
      const s1 = st.buf.length;
      const s2 = i;
      const step: Step = appendObject(st, json, i, open, close, false, { ...o, indent: '' }, sortkeys, 0, 0, lineMax);
      if (step[2] && st.buf.length - s1 <= lineMax) return [step[0], nl, true];
      st.buf = st.buf.slice(0, s1);
      i = s2;
    }
  }
  st.buf += open;
  i++;
  const pairs: Pair[] = [];
  let n = 0;
  for (; i < json.length; i++) {
    if (json.charCodeAt(i) <= 0x20) continue;
    if (json[i] === close) {
      if (open === '{' && sortkeys) sortPairs(json, st, pairs, pretty);
      if (pretty) {
        if (n > 0) nl = newlineAt(st);
        if (st.buf[st.buf.length - 1] !== open) appendTabs(st, o.prefix, o.indent, tabs);
      } else if (open === '{') {
        st.buf += ' ';
      }
      st.buf += close;
      return [i + 1, nl, true];
    }
    if (open === '[' || json[i] === '"') {
      if (n > 0) {
        st.buf += ',';
        if (o.width !== -1) st.buf += ' ';
      } else if (open === '{') {
        if (o.width !== -1) st.buf += ' ';
      }
      const p: Pair = { kstart: 0, kend: 0, vstart: 0, vend: 0 };
      if (pretty) {
        nl = newlineAt(st);
        if (open === '{' && sortkeys) {
          p.kstart = i;
          p.vstart = st.buf.length;
        }
        appendTabs(st, o.prefix, o.indent, tabs + 1);
      } else if (open === '{' && sortkeys) {
        p.kstart = i;
        p.vstart = st.buf.length;
      }
      if (open === '{') {
        i = appendString(st, json, i);
        if (sortkeys) p.kend = i;
        st.buf += ': ';
      }
      [i, nl, ok] = appendAny(st, json, i, pretty, o, sortkeys, tabs + 1, nl, max);
      if (max !== -1 && !ok) return [i, nl, false];
      if (open === '{' && sortkeys) {
        p.vend = st.buf.length;
        if (p.kstart > p.kend || p.vstart > p.vend) sortkeys = false;
        else pairs.push(p);
      }
      i--;
      n++;
    }
  }
  return [i, nl, open !== '{'];
}

/** pretty.PrettyOptions. */
export function pretty(json: string, opts: PrettyOptions = DEFAULT_PRETTY): string {
  const st: State = { buf: opts.prefix };
  appendAny(st, json, 0, true, opts, opts.sortKeys, 0, 0, -1);
  if (st.buf.length > 0) st.buf += '\n';
  return st.buf;
}
