/**
 * Splits a JSON body into a small skeleton for JSON.parse and its large arrays without
 * strings, which stay as bytes (json-number-array.ts). On a 1×3×224×224 FP32 tensor,
 * decoding the body to a string and JSON.parse were 72% of the server's CPU: the numbers
 * are the body, and parsing them into a JavaScript array only to copy that into a typed
 * array is work (and garbage) the request does not need.
 *
 * Each array taken out is replaced in the skeleton by `{"\u0000": k}`. A client cannot
 * send that key without the escape `\u0000` (a raw control character is invalid JSON), so
 * a body containing that escape is not split at all and any object with the key is ours.
 * Arrays are found by their brackets alone (native indexOf), so an array taken out may
 * still hold something other than numbers or be malformed: its decoder finds that, and
 * the caller then gives it to JSON.parse (json-number-array.ts `materialize`) or, on a
 * syntax error, parses the whole text, so every outcome, errors included, is JSON.parse's.
 */
import { JsonNumberArray } from './json-number-array.js';

/** Bodies below this are parsed whole: splitting them would cost more than it saves. */
export const MIN_SPLIT_BODY = 64 * 1024;
/** Arrays below this stay in the skeleton. */
const MIN_REGION = 4096;
/**
 * Arrays holding a string (the `inputs` list, outputs) are lexed byte by byte and the
 * arrays inside them looked for again; past this many the rest stays in the skeleton, so
 * no body can make the search quadratic.
 */
const MAX_MIXED = 16;

export const PLACEHOLDER_KEY = '\u0000';

export interface SplitJson {
  readonly skeleton: string;
  readonly arrays: readonly JsonNumberArray[];
}

/** The next position of one byte value, found with indexOf and reused while it still answers. */
class NextByte {
  #from = 0;
  #at = -1;
  constructor(
    private readonly bytes: Uint8Array,
    private readonly byte: number,
    private readonly end: number,
  ) {}

  /** The first position ≥ from holding the byte, or `end` when none does. */
  from(from: number): number {
    if (from < this.#from || from > this.#at) {
      const p = this.bytes.indexOf(this.byte, from);
      this.#from = from;
      this.#at = p < 0 || p > this.end ? this.end : p;
    }
    return this.#at;
  }
}

/** Index just past the string whose opening quote is at `i`; -1 when it holds `\u0000`. */
function stringEnd(b: Uint8Array, i: number, end: number): number {
  i++;
  while (i < end) {
    const c = b[i];
    if (c === 0x22) return i + 1;
    if (c === 0x5c) {
      if (b[i + 1] === 0x75 && b[i + 2] === 0x30 && b[i + 3] === 0x30 && b[i + 4] === 0x30 && b[i + 5] === 0x30) return -1;
      i += 2;
    } else i++;
  }
  return end;
}

/**
 * Splits `bytes[0, end)`, or returns undefined when there is nothing to take out (or the
 * body uses the placeholder's escape): the caller then parses the whole text. Time is
 * linear in the body (times MAX_MIXED at worst).
 */
export function splitJson(bytes: Uint8Array, end: number): SplitJson | undefined {
  if (end < MIN_SPLIT_BODY) return undefined;
  const arrays: JsonNumberArray[] = [];
  const parts: string[] = [];
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, end);
  const opens = new NextByte(bytes, 0x5b, end);
  const closes = new NextByte(bytes, 0x5d, end);
  const quotes = new NextByte(bytes, 0x22, end);
  let copied = 0;
  // No array is taken out before this: it would hold a string that an earlier attempt met.
  let noArraysBefore = 0;
  let mixed = 0;
  let i = 0;
  while (i < end) {
    const c = bytes[i];
    if (c === 0x22) {
      i = stringEnd(bytes, i, end);
      if (i < 0) return undefined;
      continue;
    }
    if (c !== 0x5b || i < noArraysBefore) {
      i++;
      continue;
    }
    // The matching `]`: opens and closes counted in order until the depth is back to 0.
    let depth = 1;
    let p = i + 1;
    while (depth > 0) {
      const close = closes.from(p);
      if (close === end) return finish();
      const open = opens.from(p);
      if (open < close) {
        depth++;
        p = open + 1;
      } else {
        depth--;
        p = close + 1;
      }
    }
    const quote = quotes.from(i);
    if (quote < p) {
      // A string inside: lexed byte by byte; arrays that end after it are not taken out.
      if (++mixed > MAX_MIXED) return finish();
      noArraysBefore = quote;
      i++;
    } else if (p - i < MIN_REGION) {
      i = p;
    } else {
      parts.push(text.toString('utf8', copied, i), `{"\\u0000":${arrays.length}}`);
      arrays.push(new JsonNumberArray(bytes, i, p));
      copied = i = p;
    }
  }
  return finish();

  function finish(): SplitJson | undefined {
    if (arrays.length === 0) return undefined;
    parts.push(text.toString('utf8', copied, end));
    return { skeleton: parts.join(''), arrays };
  }
}

/** The array a skeleton's placeholder stands for, or undefined when `v` is not a placeholder. */
export function placeholderArray(split: SplitJson, v: unknown): JsonNumberArray | undefined {
  if (typeof v !== 'object' || v === null || !Object.hasOwn(v, PLACEHOLDER_KEY)) return undefined;
  const k = (v as Record<string, unknown>)[PLACEHOLDER_KEY];
  return typeof k === 'number' ? split.arrays[k] : undefined;
}
