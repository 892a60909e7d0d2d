/**
 * gjson's Result (github.com/tidwall/gjson v1.20.4) and the scanning helpers it shares
 * with the path evaluator: a value found in a JSON document, with its raw text and, for
 * strings and numbers, the decoded value. All text is byte strings (go-bytes.ts).
 * Indexes into the source document are not tracked (the router never reads them).
 */
import { encodeRune, formatGoFloatF, parseGoBool, parseGoFloat, asciiLower } from './go-bytes.js';

export const GType = { Null: 0, False: 1, Number: 2, String: 3, True: 4, JSON: 5 } as const;
export type GType = (typeof GType)[keyof typeof GType];

export const TYPE_NAMES = ['Null', 'False', 'Number', 'String', 'True', 'JSON'] as const;

export class Result {
  constructor(
    public type: GType = GType.Null,
    public raw = '',
    public str = '',
    public num = 0,
  ) {}

  /** Result.Exists: anything but the zero Result. */
  exists(): boolean {
    return this.type !== GType.Null || this.raw.length !== 0;
  }

  isObject(): boolean {
    return this.type === GType.JSON && this.raw[0] === '{';
  }

  isArray(): boolean {
    return this.type === GType.JSON && this.raw[0] === '[';
  }

  /** Result.String. */
  string(): string {
    switch (this.type) {
      case GType.False:
        return 'false';
      case GType.True:
        return 'true';
      case GType.String:
        return this.str;
      case GType.JSON:
        return this.raw;
      case GType.Number: {
        if (this.raw.length === 0) return formatGoFloatF(this.num);
        let i = this.raw[0] === '-' ? 1 : 0;
        for (; i < this.raw.length; i++) {
          const c = this.raw[i]!;
          if (c < '0' || c > '9') return formatGoFloatF(this.num);
        }
        return this.raw;
      }
      default:
        return '';
    }
  }

  /** Result.Bool. */
  bool(): boolean {
    switch (this.type) {
      case GType.True:
        return true;
      case GType.String:
        return parseGoBool(asciiLower(this.str))[0];
      case GType.Number:
        return this.num !== 0;
      default:
        return false;
    }
  }

  /** Result.Int, within the range a JS number holds exactly (what the modifiers read). */
  int(): number {
    switch (this.type) {
      case GType.True:
        return 1;
      case GType.String: {
        if (/^-?\d+$/.test(this.str)) return Number(this.str);
        return Math.trunc(parseGoFloat(this.str)) || 0;
      }
      case GType.Number:
        return Math.trunc(this.num) || 0;
      default:
        return 0;
    }
  }

  /** Result.ForEach: object members (key, value), array elements (index, value) or the value itself. */
  forEach(iterator: (key: Result, value: Result) => boolean): void {
    if (!this.exists()) return;
    if (this.type !== GType.JSON) {
      iterator(new Result(), this);
      return;
    }
    const json = this.raw;
    let obj = false;
    let i = 0;
    const key = new Result();
    for (; i < json.length; i++) {
      if (json[i] === '{') {
        i++;
        key.type = GType.String;
        obj = true;
        break;
      } else if (json[i] === '[') {
        i++;
        key.type = GType.Number;
        key.num = -1;
        break;
      }
      if (json.charCodeAt(i) > 0x20) return;
    }
    for (; i < json.length; i++) {
      if (obj) {
        if (json[i] !== '"') continue;
        const [ni, str, vesc, ok] = parseString(json, i + 1);
        i = ni;
        if (!ok) return;
        key.str = vesc ? unescape(str.slice(1, -1)) : str.slice(1, -1);
        key.raw = str;
      } else {
        key.num += 1;
      }
      for (; i < json.length; i++) {
        const c = json[i]!;
        if (c.charCodeAt(0) <= 0x20 || c === ',' || c === ':') continue;
        break;
      }
      const [ni, value, ok] = parseAny(json, i, true);
      i = ni;
      if (!ok) return;
      if (!iterator(new Result(key.type, key.raw, key.str, key.num), value)) return;
    }
  }
}

/** The first character of what gjson scans as a number (NaN and Inf included). */
export function isNumberLead(c: string): boolean {
  return (c >= '0' && c <= '9') || c === '+' || c === '-' || c === 'i' || c === 'I' || c === 'N';
}

/**
 * The closing quote of a string whose first escape is just before `from`: the first '"'
 * not escaped (Go's check, counting backslashes down to index 1), or json.length.
 */
export function closingQuote(json: string, from: number): number {
  for (let i = from; i < json.length; i++) {
    const d = json.charCodeAt(i);
    if (d !== 0x22) continue;
    if (json[i - 1] === '\\') {
      let n = 0;
      for (let j = i - 2; j > 0; j--) {
        if (json[j] !== '\\') break;
        n++;
      }
      if (n % 2 === 0) continue;
    }
    return i;
  }
  return json.length;
}

/** parseString: i is just after the opening quote; [next, raw with quotes, escaped, ok]. */
export function parseString(json: string, i: number): [number, string, boolean, boolean] {
  const s = i;
  for (; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c > 0x5c) continue;
    if (c === 0x22) return [i + 1, json.slice(s - 1, i + 1), false, true];
    if (c === 0x5c) {
      const end = closingQuote(json, i + 1);
      if (end < json.length) return [end + 1, json.slice(s - 1, end + 1), true, true];
      i = end;
      break;
    }
  }
  return [i, json.slice(s - 1), false, false];
}

export function parseNumber(json: string, i: number): [number, string] {
  const s = i;
  i++;
  for (; i < json.length; i++) {
    const c = json[i]!;
    if (c.charCodeAt(0) <= 0x20 || c === ',' || c === ']' || c === '}') return [i, json.slice(s, i)];
  }
  return [i, json.slice(s)];
}

export function parseLiteral(json: string, i: number): [number, string] {
  const s = i;
  i++;
  for (; i < json.length; i++) {
    const c = json[i]!;
    if (c < 'a' || c > 'z') return [i, json.slice(s, i)];
  }
  return [i, json.slice(s)];
}

function hex4(s: string, at: number): number {
  // strconv.ParseUint(json[:4], 16, 64) with its error ignored: 0 unless all four are hex.
  const t = s.slice(at, at + 4);
  return /^[0-9a-fA-F]{4}$/.test(t) ? parseInt(t, 16) : 0;
}

/** unescape: a JSON string body's escapes resolved (stops at a control or bad escape, as upstream). */
export function unescape(json: string): string {
  let str = '';
  for (let i = 0; i < json.length; i++) {
    const c = json[i]!;
    if (c.charCodeAt(0) < 0x20) return str;
    if (c !== '\\') {
      str += c;
      continue;
    }
    i++;
    if (i >= json.length) return str;
    switch (json[i]) {
      case '\\':
        str += '\\';
        break;
      case '/':
        str += '/';
        break;
      case 'b':
        str += '\b';
        break;
      case 'f':
        str += '\f';
        break;
      case 'n':
        str += '\n';
        break;
      case 'r':
        str += '\r';
        break;
      case 't':
        str += '\t';
        break;
      case '"':
        str += '"';
        break;
      case 'u': {
        if (i + 5 > json.length) return str;
        let r = hex4(json, i + 1);
        i += 5;
        if (r >= 0xd800 && r < 0xdc00) {
          if (json.length - i >= 6 && json[i] === '\\' && json[i + 1] === 'u') {
            const r2 = hex4(json, i + 2);
            if (r2 >= 0xdc00 && r2 < 0xe000) {
              r = ((r - 0xd800) << 10) + (r2 - 0xdc00) + 0x10000;
              i += 6;
            }
          }
        }
        str += encodeRune(r);
        i--;
        break;
      }
      default:
        return str;
    }
  }
  return str;
}

/** squash: the whole value at the start of json ('[', '{', '(' or '"'), nested values skipped. */
export function squash(json: string): string {
  let i = 0;
  let depth = 0;
  if (json[0] !== '"') {
    i = 1;
    depth = 1;
  }
  for (; i < json.length; i++) {
    const c = json[i]!;
    if (c < '"' || c > '}') continue;
    switch (c) {
      case '"': {
        i++;
        const s2 = i;
        for (; i < json.length; i++) {
          if (json.charCodeAt(i) > 0x5c) continue;
          if (json[i] === '"') {
            if (json[i - 1] === '\\') {
              let n = 0;
              for (let j = i - 2; j > s2 - 1; j--) {
                if (json[j] !== '\\') break;
                n++;
              }
              if (n % 2 === 0) continue;
            }
            break;
          }
        }
        if (depth === 0) {
          if (i >= json.length) return json;
          return json.slice(0, i + 1);
        }
        break;
      }
      case '{':
      case '[':
      case '(':
        depth++;
        break;
      case '}':
      case ']':
      case ')':
        depth--;
        if (depth === 0) return json.slice(0, i + 1);
        break;
    }
  }
  return json;
}

/** parseSquash: i is at '[', '{' or '('; [next, the raw value]. */
export function parseSquash(json: string, i: number): [number, string] {
  const s = i;
  i++;
  let depth = 1;
  while (i < json.length) {
    const c = json[i]!;
    if (c === '"') {
      i++;
      const s2 = i;
      for (; i < json.length; i++) {
        if (json[i] !== '"') continue;
        let n = 0;
        for (let j = i - 1; j >= s2 && json[j] === '\\'; j--) n++;
        if (n % 2 === 0) break;
      }
    } else if (c === '{' || c === '[' || c === '(') {
      depth++;
    } else if (c === '}' || c === ']' || c === ')') {
      depth--;
      if (depth === 0) {
        i++;
        return [i, json.slice(s, i)];
      }
    }
    i++;
  }
  return [i, json.slice(s)];
}

function tonum(json: string): [string, number] {
  for (let i = 1; i < json.length; i++) {
    const c = json[i]!;
    if (c <= '-') {
      if (c.charCodeAt(0) <= 0x20 || c === ',') {
        const raw = json.slice(0, i);
        return [raw, parseGoFloat(raw)];
      }
    } else if (c === ']' || c === '}') {
      const raw = json.slice(0, i);
      return [raw, parseGoFloat(raw)];
    }
  }
  return [json, parseGoFloat(json)];
}

function tolit(json: string): string {
  for (let i = 1; i < json.length; i++) {
    const c = json[i]!;
    if (c < 'a' || c > 'z') return json.slice(0, i);
  }
  return json;
}

function tostr(json: string): [string, string] {
  for (let i = 1; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c > 0x5c) continue;
    if (c === 0x22) return [json.slice(0, i + 1), json.slice(1, i)];
    if (c === 0x5c) {
      const end = closingQuote(json, i + 1);
      if (end < json.length) return [json.slice(0, end + 1), unescape(json.slice(1, end))];
      const ret = end + 1 < json.length ? json.slice(0, end + 1) : json.slice(0, end);
      return [ret, unescape(json.slice(1, end))];
    }
  }
  return [json, json.slice(1)];
}

/** gjson.Parse: the first value of json, not validated. */
export function parse(json: string): Result {
  const value = new Result();
  for (let i = 0; i < json.length; i++) {
    const c = json[i]!;
    if (c === '{' || c === '[') {
      value.type = GType.JSON;
      value.raw = json.slice(i);
      break;
    }
    if (c.charCodeAt(0) <= 0x20) continue;
    switch (c) {
      case 'n':
        if (i + 1 < json.length && json[i + 1] !== 'u') {
          value.type = GType.Number;
          [value.raw, value.num] = tonum(json.slice(i));
        } else {
          value.type = GType.Null;
          value.raw = tolit(json.slice(i));
        }
        break;
      case 't':
        value.type = GType.True;
        value.raw = tolit(json.slice(i));
        break;
      case 'f':
        value.type = GType.False;
        value.raw = tolit(json.slice(i));
        break;
      case '"':
        value.type = GType.String;
        [value.raw, value.str] = tostr(json.slice(i));
        break;
      default:
        if (!isNumberLead(c)) return new Result();
        value.type = GType.Number;
        [value.raw, value.num] = tonum(json.slice(i));
    }
    break;
  }
  return value;
}

/** parseAny: the next value from i; [next, value, ok]. */
export function parseAny(json: string, i: number, hit: boolean): [number, Result, boolean] {
  const res = new Result();
  for (; i < json.length; i++) {
    const c = json[i]!;
    if (c === '{' || c === '[') {
      const [ni, val] = parseSquash(json, i);
      if (hit) {
        res.raw = val;
        res.type = GType.JSON;
      }
      return [ni, res, true];
    }
    if (c.charCodeAt(0) <= 0x20) continue;
    let num = false;
    switch (c) {
      case '"': {
        const [ni, val, vesc, ok] = parseString(json, i + 1);
        if (!ok) return [ni, res, false];
        if (hit) {
          res.type = GType.String;
          res.raw = val;
          res.str = vesc ? unescape(val.slice(1, -1)) : val.slice(1, -1);
        }
        return [ni, res, true];
      }
      case 'n':
      case 't':
      case 'f': {
        if (c === 'n' && i + 1 < json.length && json[i + 1] !== 'u') {
          num = true;
          break;
        }
        const [ni, val] = parseLiteral(json, i);
        i = ni;
        if (hit) {
          res.raw = val;
          if (c === 't') res.type = GType.True;
          else if (c === 'f') res.type = GType.False;
          return [i, res, true];
        }
        break;
      }

      default:
        num = isNumberLead(c);
    }
    if (num) {
      const [ni, val] = parseNumber(json, i);
      if (hit) {
        res.raw = val;
        res.type = GType.Number;
        res.num = parseGoFloat(val);
      }
      return [ni, res, true];
    }
  }
  return [i, res, false];
}
