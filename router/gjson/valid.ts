/**
 * gjson.Valid / ValidBytes (v1.20.4): strict JSON syntax (RFC 8259 numbers, escapes,
 * literals, one value with surrounding whitespace). Like upstream it does not check that
 * strings are valid UTF-8. Works on byte strings (go-bytes.ts).
 */
function isWs(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r';
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

function isHex(c: string | undefined): boolean {
  return c !== undefined && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'));
}

type Step = [number, boolean];

function validAny(d: string, i: number): Step {
  for (; i < d.length; i++) {
    const c = d[i];
    if (isWs(c)) continue;
    switch (c) {
      case '{':
        return validObject(d, i + 1);
      case '[':
        return validArray(d, i + 1);
      case '"':
        return validString(d, i + 1);
      case 't':
        return d.startsWith('rue', i + 1) ? [i + 4, true] : [i + 1, false];
      case 'f':
        return d.startsWith('alse', i + 1) ? [i + 5, true] : [i + 1, false];
      case 'n':
        return d.startsWith('ull', i + 1) ? [i + 4, true] : [i + 1, false];
      default:
        return c === '-' || isDigit(c) ? validNumber(d, i + 1) : [i, false];
    }
  }
  return [i, false];
}

function validObject(d: string, i: number): Step {
  for (; i < d.length; i++) {
    const c = d[i];
    if (isWs(c)) continue;
    if (c === '}') return [i + 1, true];
    if (c !== '"') return [i, false];
    for (;;) {
      let ok: boolean;
      [i, ok] = validString(d, i + 1);
      if (!ok) return [i, false];
      [i, ok] = validColon(d, i);
      if (!ok) return [i, false];
      [i, ok] = validAny(d, i);
      if (!ok) return [i, false];
      [i, ok] = validComma(d, i, '}');
      if (!ok) return [i, false];
      if (d[i] === '}') return [i + 1, true];
      i++;
      for (; i < d.length; i++) {
        if (isWs(d[i])) continue;
        if (d[i] === '"') break;
        return [i, false];
      }
      if (i >= d.length) return [i, false];
    }
  }
  return [i, false];
}

function validColon(d: string, i: number): Step {
  for (; i < d.length; i++) {
    if (isWs(d[i])) continue;
    return d[i] === ':' ? [i + 1, true] : [i, false];
  }
  return [i, false];
}

function validComma(d: string, i: number, end: string): Step {
  for (; i < d.length; i++) {
    if (isWs(d[i])) continue;
    return d[i] === ',' || d[i] === end ? [i, true] : [i, false];
  }
  return [i, false];
}

function validArray(d: string, i: number): Step {
  for (; i < d.length; i++) {
    const c = d[i];
    if (isWs(c)) continue;
    if (c === ']') return [i + 1, true];
    for (; i < d.length; i++) {
      let ok: boolean;
      [i, ok] = validAny(d, i);
      if (!ok) return [i, false];
      [i, ok] = validComma(d, i, ']');
      if (!ok) return [i, false];
      if (d[i] === ']') return [i + 1, true];
    }
    return [i, false];
  }
  return [i, false];
}

function validString(d: string, i: number): Step {
  for (; i < d.length; i++) {
    const c = d[i]!;
    if (c < ' ') return [i, false];
    if (c === '\\') {
      i++;
      if (i === d.length) return [i, false];
      const e = d[i]!;
      if (e === 'u') {
        for (let k = 0; k < 4; k++) {
          i++;
          if (i >= d.length || !isHex(d[i])) return [i, false];
        }
      } else if (!'"\\/bfnrt'.includes(e)) {
        return [i, false];
      }
    } else if (c === '"') {
      return [i + 1, true];
    }
  }
  return [i, false];
}

function validNumber(d: string, i: number): Step {
  i--;
  if (d[i] === '-') {
    i++;
    if (i === d.length || !isDigit(d[i])) return [i, false];
  }
  if (i === d.length) return [i, false];
  if (d[i] === '0') i++;
  else while (i < d.length && isDigit(d[i])) i++;
  if (i === d.length) return [i, true];
  if (d[i] === '.') {
    i++;
    if (i === d.length || !isDigit(d[i])) return [i, false];
    i++;
    while (i < d.length && isDigit(d[i])) i++;
  }
  if (i === d.length) return [i, true];
  if (d[i] === 'e' || d[i] === 'E') {
    i++;
    if (i === d.length) return [i, false];
    if (d[i] === '+' || d[i] === '-') i++;
    if (i === d.length || !isDigit(d[i])) return [i, false];
    i++;
    while (i < d.length && isDigit(d[i])) i++;
  }
  return [i, true];
}

/** gjson.Valid on a byte string. */
export function valid(d: string): boolean {
  for (let i = 0; i < d.length; i++) {
    if (isWs(d[i])) continue;
    let ok: boolean;
    [i, ok] = validAny(d, i);
    if (!ok) return false;
    for (; i < d.length; i++) if (!isWs(d[i])) return false;
    return true;
  }
  return false;
}
