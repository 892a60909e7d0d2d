/**
 * github.com/tidwall/match v1.1.1 (MatchLimit), as gjson calls it for wildcard keys and
 * the `%` / `!%` query operators: `*` any run of characters, `?` one character (a UTF-8
 * rune), `\c` the character c. Works on byte strings (go-bytes.ts). The complexity limit
 * stops a sandwiched pattern after maxcomp × len(str) steps (no match), as upstream.
 */
import { decodeLastRune, decodeRune } from './go-bytes.js';

const NO_MATCH = 0;
const MATCH = 1;
const STOP = 2;
type Outcome = typeof NO_MATCH | typeof MATCH | typeof STOP;

function runeAt(s: string): [number, number] {
  if (s.length === 0) return [0, 0];
  const c = s.charCodeAt(0);
  return c > 0x7f ? decodeRune(s) : [c, 1];
}

/** Trims the literal suffix after a leading `*` from both; false when it cannot match. */
function trimSuffix(str: string, pat: string): [string, string, boolean] {
  let matched = true;
  while (str.length > 0 && pat.length > 1) {
    const [pc, ps0] = decodeLastRune(pat);
    let ps = ps0;
    let esc = false;
    for (let i = 0; ; i++) {
      if (pat.charCodeAt(pat.length - ps - i - 1) !== 0x5c) {
        if ((i & 1) === 1) {
          esc = true;
          ps++;
        }
        break;
      }
    }
    if (pc === 0x2a && !esc) {
      matched = true;
      break;
    }
    const [sc, ss] = decodeLastRune(str);
    if (!((pc === 0x3f && !esc) || pc === sc)) {
      matched = false;
      break;
    }
    str = str.slice(0, str.length - ss);
    pat = pat.slice(0, pat.length - ps);
  }
  return [str, pat, matched];
}

function run(str: string, pat: string, slen: number, counter: { n: number }, maxcomp: number): Outcome {
  if (maxcomp > -1) {
    if (counter.n > slen * maxcomp) return STOP;
    counter.n++;
  }
  while (pat.length > 0) {
    let wild = false;
    let [pc, ps] = runeAt(pat);
    const [sc, ss] = runeAt(str);
    if (pc === 0x3f) {
      if (ss === 0) return NO_MATCH;
    } else if (pc === 0x2a) {
      while (pat.length > 1 && pat.charCodeAt(1) === 0x2a) pat = pat.slice(1);
      if (pat.length === 1) return MATCH;
      let ok: boolean;
      [str, pat, ok] = trimSuffix(str, pat);
      if (!ok) return NO_MATCH;
      if (pat.length === 1) return MATCH;
      const r = run(str, pat.slice(1), slen, counter, maxcomp);
      if (r !== NO_MATCH) return r;
      if (str.length === 0) return NO_MATCH;
      wild = true;
    } else {
      if (ss === 0) return NO_MATCH;
      if (pc === 0x5c) {
        pat = pat.slice(ps);
        [pc, ps] = decodeRune(pat);
        if (ps === 0) return NO_MATCH;
      }
      if (sc !== pc) return NO_MATCH;
    }
    // After a '*' that did not match here, it consumes one more character of str.
    str = str.slice(ss);
    if (!wild) pat = pat.slice(ps);
  }
  return str.length === 0 ? MATCH : NO_MATCH;
}

/** match.MatchLimit(str, pattern, maxcomp)'s `matched`. */
export function matchLimit(str: string, pattern: string, maxcomp = 10000): boolean {
  if (pattern === '*') return true;
  return run(str, pattern, str.length, { n: 0 }, maxcomp) === MATCH;
}
