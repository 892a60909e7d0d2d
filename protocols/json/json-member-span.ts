/**
 * Where a top-level member's value lies in the bytes of a JSON object, found by scanning
 * with a depth counter (no recursion, nothing parsed but the keys): the way to hand a
 * nested document on exactly as the client sent it. Re-serialising a parsed value instead
 * (JSON.stringify) recurses once per level, so a value nested 100,000 deep exhausts the
 * stack before the codec's own depth limit (limits.ts MAX_RANK) can refuse it, and it
 * changes numbers the client wrote (1e400, -0, integers beyond 2^53).
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;

const isSpace = (c: number | undefined): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

function skipSpace(b: Uint8Array, i: number): number {
  while (isSpace(b[i])) i++;
  return i;
}

/** Index just past the string whose opening quote is at `i`. */
function afterString(b: Uint8Array, i: number): number {
  for (i++; i < b.length; i++) {
    if (b[i] === BACKSLASH) i++;
    else if (b[i] === QUOTE) return i + 1;
  }
  return b.length;
}

/** Index just past the value starting at `i`: a string, an object or array (by depth), or a literal. */
function afterValue(b: Uint8Array, i: number): number {
  const c = b[i];
  if (c === QUOTE) return afterString(b, i);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    while (i < b.length) {
      const d = b[i];
      if (d === QUOTE) {
        i = afterString(b, i);
        continue;
      }
      if (d === 0x7b || d === 0x5b) depth++;
      else if ((d === 0x7d || d === 0x5d) && --depth === 0) return i + 1;
      i++;
    }
    return i;
  }
  while (i < b.length && b[i] !== COMMA && b[i] !== 0x7d && b[i] !== 0x5d && !isSpace(b[i])) i++;
  return i;
}

/**
 * The bytes of the value of top-level member `key` in `json`, which must be a JSON object
 * already known to be valid (JSON.parse accepted it); the last occurrence of a repeated key
 * wins, as with JSON.parse. Undefined when the object has no such member. A view, not a copy.
 */
export function memberValue(json: Uint8Array, key: string): Uint8Array | undefined {
  let found: Uint8Array | undefined;
  let i = skipSpace(json, 0) + 1; // past `{`
  for (;;) {
    i = skipSpace(json, i);
    if (json[i] !== QUOTE) return found; // `}`: the end of the object
    const keyEnd = afterString(json, i);
    const name = JSON.parse(Buffer.from(json.buffer, json.byteOffset + i, keyEnd - i).toString('utf8')) as string;
    i = skipSpace(json, keyEnd);
    if (json[i] !== COLON) return found;
    const start = skipSpace(json, i + 1);
    const end = afterValue(json, start);
    if (name === key) found = json.subarray(start, end);
    i = skipSpace(json, end);
    if (json[i] === COMMA) i++;
  }
}
