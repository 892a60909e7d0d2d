/**
 * gjson.Get (github.com/tidwall/gjson v1.20.4), ported line by line so that KServe's
 * conditions (`gjson.GetBytes(body, condition).Exists()`) select the same steps: paths,
 * wildcards, escapes, `#` lengths and projections, `#(...)` / `#(...)#` queries with every
 * operator and the `~` truthiness forms, `.` vs `|`, modifiers (registered by
 * modifiers.ts), multipaths `[...]` / `{...}`, `!` literals and `..` JSON lines.
 * Documents and paths are byte strings (go-bytes.ts). Checked against gjson itself in
 * router/gjson/gjson.test.ts.
 */
import { GType, Result, closingQuote, isNumberLead, parse, parseAny, parseSquash, squash, unescape } from './result.js';
import { asciiLower, decodeRune, parseGoBool, parseGoFloat, RUNE_ERROR } from './go-bytes.js';
import { matchLimit } from './match.js';
import { valid } from './valid.js';

export type Modifier = (json: string, arg: string) => string;

const modifiers = new Map<string, Modifier>();

/** Adds the stock modifiers (modifiers.ts); gjson's table is fixed at start-up likewise. */
export function registerModifier(name: string, fn: Modifier): void {
  modifiers.set(name, fn);
}

function getModifier(name: string): Modifier | undefined {
  return modifiers.get(name);
}

interface ParseContext {
  json: string;
  value: Result;
  pipe: string;
  piped: boolean;
  calcd: boolean;
  lines: boolean;
}

interface ArrayPath {
  part: string;
  path: string;
  pipe: string;
  piped: boolean;
  more: boolean;
  alogok: boolean;
  arrch: boolean;
  alogkey: string;
  query: { on: boolean; all: boolean; path: string; op: string; value: string };
}

export function trim(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && s.charCodeAt(a) <= 0x20) a++;
  while (b > a && s.charCodeAt(b - 1) <= 0x20) b--;
  return s.slice(a, b);
}

function isDotPiperChar(s: string): boolean {
  const c = s[0];
  if (c === '@') {
    let i = 1;
    for (; i < s.length; i++) if (s[i] === '.' || s[i] === '|' || s[i] === ':') break;
    return getModifier(s.slice(1, i)) !== undefined;
  }
  return c === '[' || c === '{';
}

/** parseQuery: `#(path op value)rest` → [path, op, value, remain, next, escaped, ok]. */
function parseQuery(query: string): [string, string, string, string, number, boolean, boolean] {
  let i = 0;
  if (query.length < 2 || query[0] !== '#' || (query[1] !== '(' && query[1] !== '[')) return ['', '', '', '', i, false, false];
  i = 2;
  let j = 0;
  let depth = 1;
  let vesc = false;
  for (; i < query.length; i++) {
    if (depth === 1 && j === 0) {
      const c = query[i];
      if (c === '!' || c === '=' || c === '<' || c === '>' || c === '%') {
        j = i;
        continue;
      }
    }
    const c = query[i];
    if (c === '\\') {
      i++;
    } else if (c === '[' || c === '(') {
      depth++;
    } else if (c === ']' || c === ')') {
      depth--;
      if (depth === 0) break;
    } else if (c === '"') {
      i++;
      for (; i < query.length; i++) {
        if (query[i] === '\\') {
          vesc = true;
          i++;
        } else if (query[i] === '"') {
          break;
        }
      }
    }
  }
  if (depth > 0) return ['', '', '', '', i, false, false];
  let path: string;
  let op = '';
  let value = '';
  let remain: string;
  if (j > 0) {
    path = trim(query.slice(2, j));
    value = trim(query.slice(j, i));
    remain = query.slice(i + 1);
    let opsz = 0;
    const v0 = value[0];
    const v1 = value[1];
    if (value.length === 1) opsz = 1;
    else if (v0 === '!' && v1 === '=') opsz = 2;
    else if (v0 === '!' && v1 === '%') opsz = 2;
    else if (v0 === '<' && v1 === '=') opsz = 2;
    else if (v0 === '>' && v1 === '=') opsz = 2;
    else if (v0 === '=' && v1 === '=') {
      value = value.slice(1);
      opsz = 1;
    } else if (v0 === '<' || v0 === '>' || v0 === '=' || v0 === '%') opsz = 1;
    op = value.slice(0, opsz);
    value = trim(value.slice(opsz));
  } else {
    path = trim(query.slice(2, i));
    remain = query.slice(i + 1);
  }
  return [path, op, value, remain, i + 1, vesc, true];
}

function parseArrayPath(path: string): ArrayPath {
  const r: ArrayPath = {
    part: '',
    path: '',
    pipe: '',
    piped: false,
    more: false,
    alogok: false,
    arrch: false,
    alogkey: '',
    query: { on: false, all: false, path: '', op: '', value: '' },
  };
  for (let i = 0; i < path.length; i++) {
    if (path[i] === '|') {
      r.part = path.slice(0, i);
      r.pipe = path.slice(i + 1);
      r.piped = true;
      return r;
    }
    if (path[i] === '.') {
      r.part = path.slice(0, i);
      if (!r.arrch && i < path.length - 1 && isDotPiperChar(path.slice(i + 1))) {
        r.pipe = path.slice(i + 1);
        r.piped = true;
      } else {
        r.path = path.slice(i + 1);
        r.more = true;
      }
      return r;
    }
    if (path[i] === '#') {
      r.arrch = true;
      if (i === 0 && path.length > 1) {
        if (path[1] === '.') {
          r.alogok = true;
          r.alogkey = path.slice(2);
          r.path = path.slice(0, 1);
        } else if (path[1] === '[' || path[1] === '(') {
          r.query.on = true;
          const [qpath, op, v, , fi, vesc, ok] = parseQuery(path.slice(i));
          if (!ok) break;
          let value = v;
          if (value.length >= 2 && value[0] === '"' && value[value.length - 1] === '"') {
            value = value.slice(1, -1);
            if (vesc) value = unescape(value);
          }
          r.query.path = qpath;
          r.query.op = op;
          r.query.value = value;
          i = fi - 1;
          if (i + 1 < path.length && path[i + 1] === '#') r.query.all = true;
        }
      }
      continue;
    }
  }
  r.part = path;
  r.path = '';
  return r;
}

interface ObjectPath {
  part: string;
  path: string;
  pipe: string;
  piped: boolean;
  wild: boolean;
  more: boolean;
}

/** Ends the first component (`part`) at the separator path[i], '.' or '|'. */
function splitAt(r: ObjectPath, part: string, path: string, i: number): ObjectPath {
  r.part = part;
  const rest = path.slice(i + 1);
  if (path[i] === '|' || (i < path.length - 1 && isDotPiperChar(rest))) {
    r.pipe = rest;
    r.piped = true;
  } else {
    r.path = rest;
    r.more = true;
  }
  return r;
}

function parseObjectPath(path: string): ObjectPath {
  const r: ObjectPath = { part: '', path: '', pipe: '', piped: false, wild: false, more: false };
  for (let i = 0; i < path.length; i++) {
    const c = path[i];
    if (c === '|' || c === '.') return splitAt(r, path.slice(0, i), path, i);
    if (c === '*' || c === '?') {
      r.wild = true;
      continue;
    }
    if (c === '\\') {
      // escape mode: the escape characters are dropped from the part
      let epart = path.slice(0, i);
      i++;
      if (i < path.length) {
        epart += path[i];
        i++;
        for (; i < path.length; i++) {
          const d = path[i];
          if (d === '\\') {
            i++;
            if (i < path.length) epart += path[i];
            continue;
          }
          if (d === '.' || d === '|') return splitAt(r, epart, path, i);
          if (d === '*' || d === '?') r.wild = true;
          epart += d;
        }
      }
      r.part = epart;
      return r;
    }
  }
  r.part = path;
  return r;
}

function parseObject(c: ParseContext, i: number, path: string): [number, boolean] {
  let pmatch: boolean;
  let hit: boolean;
  let key = '';
  let kesc = false;
  let ok = false;
  const rp = parseObjectPath(path);
  if (!rp.more && rp.piped) {
    c.pipe = rp.pipe;
    c.piped = true;
  }
  const json = c.json;
  while (i < json.length) {
    keyLoop: for (; i < json.length; i++) {
      if (json[i] === '"') {
        i++;
        const s = i;
        for (; i < json.length; i++) {
          const ch = json.charCodeAt(i);
          if (ch > 0x5c) continue;
          if (ch === 0x22) {
            key = json.slice(s, i);
            i = i + 1;
            kesc = false;
            ok = true;
            break keyLoop;
          }
          if (ch === 0x5c) {
            const close = closingQuote(json, i + 1);
            i = close;
            if (close < json.length) {
              key = json.slice(s, close);
              i = close + 1;
              kesc = true;
              ok = true;
              break keyLoop;
            }
            break;
          }
        }
        key = json.slice(s);
        kesc = false;
        ok = false;
        break;
      }
      if (json[i] === '}') return [i + 1, false];
    }
    if (!ok) return [i, false];
    const k = kesc ? unescape(key) : key;
    pmatch = rp.wild ? matchLimit(k, rp.part) : rp.part === k;
    hit = pmatch && !rp.more;
    while (i < json.length && !isValueLead(json[i]!)) i++;
    if (i >= json.length) break;
    const ch = json[i]!;
    if ((ch === '{' || ch === '[') && pmatch && !hit) {
      [i, hit] = ch === '{' ? parseObject(c, i + 1, rp.path) : parseArray(c, i + 1, rp.path);
      if (hit) return [i, true];
      continue;
    }
    let value: Result;
    [i, value, ok] = parseAny(json, i, true);
    if (!ok) return [i, false];
    if (hit) {
      c.value = value;
      return [i, true];
    }
  }
  return [i, false];
}

/** A character a JSON value (as gjson scans it) starts with. */
function isValueLead(c: string): boolean {
  return c === '"' || c === '{' || c === '[' || c === 'n' || c === 't' || c === 'f' || isNumberLead(c);
}

function falseish(t: Result): boolean {
  switch (t.type) {
    case GType.Null:
    case GType.False:
      return true;
    case GType.String: {
      const [b, ok] = parseGoBool(asciiLower(t.str));
      return ok ? !b : false;
    }
    case GType.Number:
      return t.num === 0;
    default:
      return false;
  }
}

function trueish(t: Result): boolean {
  switch (t.type) {
    case GType.True:
      return true;
    case GType.String: {
      const [b, ok] = parseGoBool(asciiLower(t.str));
      return ok ? b : false;
    }
    case GType.Number:
      return t.num !== 0;
    default:
      return false;
  }
}

/** The ordering operators on two strings (bytewise) or two numbers. */
function compare<T extends string | number>(op: string, a: T, b: T): boolean {
  switch (op) {
    case '=':
      return a === b;
    case '!=':
      return a !== b;
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    case '>=':
      return a >= b;
    default:
      return false;
  }
}

function queryMatches(rp: ArrayPath, value: Result): boolean {
  let rpv = rp.query.value;
  if (rpv.length > 0 && rpv[0] === '~') {
    rpv = rpv.slice(1);
    let ish: boolean | undefined;
    switch (rpv) {
      case '*':
        ish = value.exists();
        break;
      case 'null':
        ish = value.type === GType.Null;
        break;
      case 'true':
        ish = trueish(value);
        break;
      case 'false':
        ish = falseish(value);
        break;
    }
    if (ish !== undefined) {
      rpv = 'true';
      value = new Result(ish ? GType.True : GType.False);
    } else {
      rpv = '';
      value = new Result();
    }
  }
  if (!value.exists()) return false;
  const op = rp.query.op;
  if (op === '') return true;
  switch (value.type) {
    case GType.String:
      if (op === '%') return matchLimit(value.str, rpv);
      if (op === '!%') return !matchLimit(value.str, rpv);
      return compare(op, value.str, rpv);
    case GType.Number:
      return compare(op, value.num, parseGoFloat(rpv));
    case GType.True:
    case GType.False: {
      const self = value.type === GType.True ? 'true' : 'false';
      if (op === '=') return rpv === self;
      if (op === '!=') return rpv !== self;
      // As upstream: true > false only, and >= (true) / <= (false) hold whatever the right side.
      if (value.type === GType.True) return op === '>=' || (op === '>' && rpv === 'false');
      return op === '<=' || (op === '<' && rpv === 'true');
    }
  }
  return false;
}

/** strconv-free parseUint of gjson (array indexes): [n, ok]; huge values saturate. */
function parseUint(s: string): [number, boolean] {
  if (s.length === 0) return [0, false];
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c < '0' || c > '9') return [0, false];
  }
  // An index that large never matches a position in a document held in memory.
  return [s.length > 15 ? Number.MAX_SAFE_INTEGER : Number(s), true];
}

function parseArray(c: ParseContext, i: number, path: string): [number, boolean] {
  let pmatch = false;
  let hit = false;
  let h = 0;
  const alog: number[] = [];
  let partidx = -1;
  let multires = '';
  const rp = parseArrayPath(path);
  if (!rp.arrch) {
    const [n, ok] = parseUint(rp.part);
    partidx = ok ? n : -1;
  }
  if (!rp.more && rp.piped) {
    c.pipe = rp.pipe;
    c.piped = true;
  }
  const json = c.json;

  const procQuery = (qval: Result): boolean => {
    if (rp.query.all && multires.length === 0) multires = '[';
    let res: Result;
    if (qval.type === GType.JSON) {
      res = get(qval.raw, rp.query.path);
    } else {
      if (rp.query.path !== '') return false;
      res = qval;
    }
    if (queryMatches(rp, res)) {
      if (rp.more) {
        const [left, right, ok] = splitPossiblePipe(rp.path);
        if (ok) {
          rp.path = left;
          c.pipe = right;
          c.piped = true;
        }
        res = get(qval.raw, rp.path);
      } else {
        res = qval;
      }
      if (rp.query.all) {
        let raw = res.raw;
        if (raw.length === 0) raw = res.string();
        if (raw !== '') {
          if (multires.length > 1) multires += ',';
          multires += raw;
        }
      } else {
        c.value = res;
        return true;
      }
    }
    return false;
  };

  while (i < json.length + 1) {
    if (!rp.arrch) {
      pmatch = partidx === h;
      hit = pmatch && !rp.more;
    }
    h++;
    if (rp.alogok) alog.push(i);
    for (; ; i++) {
      let ch: string;
      if (i > json.length) break;
      else if (i === json.length) ch = ']';
      else ch = json[i]!;
      if (ch === ']') {
        if (rp.arrch && rp.part === '#') {
          if (rp.alogok) {
            const [left, right, ok] = splitPossiblePipe(rp.alogkey);
            if (ok) {
              rp.alogkey = left;
              c.pipe = right;
              c.piped = true;
            }
            let jsons = '[';
            let k = 0;
            for (let j = 0; j < alog.length; j++) {
              let idx = alog[j]!;
              while (idx < json.length) {
                const w = json[idx];
                if (w === ' ' || w === '\t' || w === '\r' || w === '\n') {
                  idx++;
                  continue;
                }
                break;
              }
              if (idx < json.length && json[idx] !== ']') {
                const [, res0, ok2] = parseAny(json, idx, true);
                if (ok2) {
                  const res = get(res0.raw, rp.alogkey);
                  if (res.exists()) {
                    if (k > 0) jsons += ',';
                    let raw = res.raw;
                    if (raw.length === 0) raw = res.string();
                    jsons += raw;
                    k++;
                  }
                }
              }
            }
            jsons += ']';
            c.value.type = GType.JSON;
            c.value.raw = jsons;
            return [i + 1, true];
          }
          c.value.type = GType.Number;
          c.value.num = h - 1;
          c.value.raw = String(h - 1);
          c.calcd = true;
          return [i + 1, true];
        }
        if (!c.value.exists()) {
          if (multires.length > 0) c.value = new Result(GType.JSON, `${multires}]`);
          else if (rp.query.all) c.value = new Result(GType.JSON, '[]');
        }
        return [i + 1, false];
      }
      if (!isValueLead(ch)) continue;
      if ((ch === '{' || ch === '[') && pmatch && !hit) {
        [i, hit] = ch === '{' ? parseObject(c, i + 1, rp.path) : parseArray(c, i + 1, rp.path);
        if (hit && !rp.alogok) return [i, true];
        break;
      }
      const [next, value, ok] = parseAny(json, i, true);
      i = next;
      if (!ok) return [i, false];
      if (rp.query.on) {
        if (procQuery(value)) return [i, true];
      } else if (hit && !rp.alogok) {
        c.value = value;
        return [i, true];
      }
      break;
    }
  }
  return [i, false];
}

function splitPossiblePipe(path: string): [string, string, boolean] {
  if (!path.includes('|')) return ['', '', false];
  if (path.length > 0 && path[0] === '{') {
    let squashed = squash(path.slice(1));
    if (squashed.length < path.length - 1) {
      squashed = path.slice(0, squashed.length + 1);
      const remain = path.slice(squashed.length);
      if (remain[0] === '|') return [squashed, remain.slice(1), true];
    }
    return ['', '', false];
  }
  for (let i = 0; i < path.length; i++) {
    if (path[i] === '\\') {
      i++;
    } else if (path[i] === '.') {
      if (i === path.length - 1) return ['', '', false];
      if (path[i + 1] === '#') {
        i += 2;
        if (i === path.length) return ['', '', false];
        if (path[i] === '[' || path[i] === '(') {
          const start = path[i];
          const end = start === '[' ? ']' : ')';
          i++;
          let depth = 1;
          for (; i < path.length; i++) {
            if (path[i] === '\\') {
              i++;
            } else if (path[i] === start) {
              depth++;
            } else if (path[i] === end) {
              depth--;
              if (depth === 0) break;
            } else if (path[i] === '"') {
              i++;
              for (; i < path.length; i++) {
                if (path[i] === '\\') i++;
                else if (path[i] === '"') break;
              }
            }
          }
        }
      }
    } else if (path[i] === '|') {
      return [path.slice(0, i), path.slice(i + 1), true];
    }
  }
  return ['', '', false];
}

interface SubSelector {
  name: string;
  path: string;
}

function parseSubSelectors(path: string): [SubSelector[], string, boolean] {
  const sels: SubSelector[] = [];
  let modifier = 0;
  let depth = 1;
  let colon = 0;
  let start = 1;
  let i = 1;
  const pushSel = (): void => {
    if (colon === 0) sels.push({ name: '', path: path.slice(start, i) });
    else sels.push({ name: path.slice(start, colon), path: path.slice(colon + 1, i) });
    colon = 0;
    modifier = 0;
    start = i + 1;
  };
  for (; i < path.length; i++) {
    switch (path[i]) {
      case '\\':
        i++;
        break;
      case '@':
        if (modifier === 0 && i > 0 && (path[i - 1] === '.' || path[i - 1] === '|')) modifier = i;
        break;
      case ':':
        if (modifier === 0 && colon === 0 && depth === 1) colon = i;
        break;
      case ',':
        if (depth === 1) pushSel();
        break;
      case '"':
        i++;
        for (; i < path.length; i++) {
          if (path[i] === '\\') i++;
          else if (path[i] === '"') break;
        }
        break;
      case '[':
      case '(':
      case '{':
        depth++;
        break;
      case ']':
      case ')':
      case '}':
        depth--;
        if (depth === 0) {
          pushSel();
          return [sels, path.slice(i + 1), true];
        }
        break;
    }
  }
  return [sels, '', false];
}

function nameOfLast(path: string): string {
  for (let i = path.length - 1; i >= 0; i--) {
    if (path[i] === '|' || path[i] === '.') {
      if (i > 0 && path[i - 1] === '\\') continue;
      return path.slice(i + 1);
    }
  }
  return path;
}

function isSimpleName(component: string): boolean {
  for (let i = 0; i < component.length; i++) {
    const c = component[i]!;
    if (c < ' ') return false;
    if ('[]{}()#|!'.includes(c)) return false;
  }
  return true;
}

function hex16(x: number): string {
  return x.toString(16).padStart(4, '0');
}

/** gjson.AppendJSONString (HTML escaping on, gjson's default): a JSON string of byte string s. */
export function appendJSONString(s: string): string {
  let dst = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    const code = c.charCodeAt(0);
    if (code < 0x20) {
      switch (c) {
        case '\b':
          dst += '\\b';
          break;
        case '\f':
          dst += '\\f';
          break;
        case '\n':
          dst += '\\n';
          break;
        case '\r':
          dst += '\\r';
          break;
        case '\t':
          dst += '\\t';
          break;
        default:
          dst += `\\u${hex16(code)}`;
      }
    } else if (c === '>' || c === '<' || c === '&') {
      dst += `\\u${hex16(code)}`;
    } else if (c === '\\') {
      dst += '\\\\';
    } else if (c === '"') {
      dst += '\\"';
    } else if (code > 127) {
      const [r, n] = decodeRune(s, i);
      if (n === 0) break;
      if (r === RUNE_ERROR && n === 1) dst += '\xef\xbf\xbd';
      else if (r === 0x2028 || r === 0x2029) dst += `\\u202${(r & 0xf).toString(16)}`;
      else dst += s.slice(i, i + n);
      i = i + n - 1;
    } else {
      dst += c;
    }
  }
  return `${dst}"`;
}

function execStatic(path: string): [string, string, boolean] {
  let name = path.slice(1);
  let pathOut = '';
  if (name.length > 0 && '{["+-0123456789'.includes(name[0]!)) {
    const [, res] = parseSquash(name, 0);
    return [name.slice(res.length), res, true];
  }
  for (let i = 1; i < path.length; i++) {
    if (path[i] === '|' || path[i] === '.') {
      pathOut = path.slice(i);
      name = path.slice(1, i);
      break;
    }
  }
  switch (asciiLower(name)) {
    case 'true':
    case 'false':
    case 'null':
    case 'nan':
    case 'inf':
      return [pathOut, name, true];
  }
  return [pathOut, '', false];
}

function execModifier(json: string, path: string): [string, string, boolean] {
  let name = path.slice(1);
  let pathOut = '';
  let hasArgs = false;
  for (let i = 1; i < path.length; i++) {
    if (path[i] === ':') {
      pathOut = path.slice(i + 1);
      name = path.slice(1, i);
      hasArgs = pathOut.length > 0;
      break;
    }
    if (path[i] === '|' || path[i] === '.') {
      pathOut = path.slice(i);
      name = path.slice(1, i);
      break;
    }
  }
  const fn = getModifier(name);
  if (fn === undefined) return [pathOut, '', false];
  let args = '';
  if (hasArgs) {
    let parsedArgs = false;
    const first = pathOut[0];
    if (first === '{' || first === '[' || first === '"') {
      if (parse(pathOut).exists()) {
        args = squash(pathOut);
        pathOut = pathOut.slice(args.length);
        parsedArgs = true;
      }
    }
    if (!parsedArgs) {
      let i = 0;
      for (; i < pathOut.length; i++) {
        if (pathOut[i] === '|') break;
        const ch = pathOut[i];
        if (ch === '{' || ch === '[' || ch === '"' || ch === '(') {
          const s = squash(pathOut.slice(i));
          i += s.length - 1;
        }
      }
      args = pathOut.slice(0, i);
      pathOut = pathOut.slice(i);
    }
  }
  return [pathOut, fn(json, args), true];
}

/** gjson.Get(json, path) on byte strings. */
export function get(json: string, path: string): Result {
  if (path.length > 1) {
    if (path[0] === '@' || path[0] === '!') {
      const [npath, rjson, ok] = path[0] === '@' ? execModifier(json, path) : execStatic(path);
      if (ok) {
        if (npath.length > 0 && (npath[0] === '|' || npath[0] === '.')) return get(rjson, npath.slice(1));
        return parse(rjson);
      }
    }
    if (path[0] === '[' || path[0] === '{') {
      const kind = path[0];
      const [subs, rest, ok] = parseSubSelectors(path);
      if (ok && (rest.length === 0 || rest[0] === '|' || rest[0] === '.')) {
        let b = kind;
        let n = 0;
        for (const sub of subs) {
          const res = get(json, sub.path);
          if (!res.exists()) continue;
          if (n > 0) b += ',';
          if (kind === '{') {
            if (sub.name.length > 0) {
              b += sub.name[0] === '"' && valid(sub.name) ? sub.name : appendJSONString(sub.name);
            } else {
              const last = nameOfLast(sub.path);
              b += isSimpleName(last) ? appendJSONString(last) : appendJSONString('_');
            }
            b += ':';
          }
          let raw: string;
          if (res.raw.length === 0) {
            raw = res.string();
            if (raw.length === 0) raw = 'null';
          } else {
            raw = res.raw;
          }
          b += raw;
          n++;
        }
        b += kind === '[' ? ']' : '}';
        const res = new Result(GType.JSON, b);
        return rest.length > 0 ? get(res.raw, rest.slice(1)) : res;
      }
      // As upstream, the path goes on as what parseSubSelectors left ('' when it failed).
      path = rest;
    }
  }
  const c: ParseContext = { json, value: new Result(), pipe: '', piped: false, calcd: false, lines: false };
  if (path.length >= 2 && path[0] === '.' && path[1] === '.') {
    c.lines = true;
    parseArray(c, 0, path.slice(2));
  } else {
    for (let i = 0; i < json.length; i++) {
      if (json[i] === '{') {
        parseObject(c, i + 1, path);
        break;
      }
      if (json[i] === '[') {
        parseArray(c, i + 1, path);
        break;
      }
    }
  }
  if (c.piped) return get(c.value.raw, c.pipe);
  return c.value;
}
