/**
 * STORAGE_ALLOW_PATTERNS / STORAGE_IGNORE_PATTERNS: Python fnmatch semantics on the path
 * relative to the URI (`*` also crosses '/', `?`, `[seq]`, `[!seq]`), as the anchor applies
 * them. An exact single object bypasses the filters, as in the anchor.
 */
export function fnmatchRegExp(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const close = pattern.indexOf(']', i + 2);
      if (close < 0) {
        re += '\\[';
        continue;
      }
      let body = pattern.slice(i + 1, close);
      if (body.startsWith('!')) body = `^${body.slice(1)}`;
      re += `[${body.replace(/\\/g, '\\\\')}]`;
      i = close;
    } else re += c.replace(/[.+^${}()|\\/]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 's');
}

export function makeFilter(allow: readonly string[], ignore: readonly string[]): (key: string) => boolean {
  const a = allow.map(fnmatchRegExp);
  const ig = ignore.map(fnmatchRegExp);
  return (key) => (a.length === 0 || a.some((r) => r.test(key))) && !ig.some((r) => r.test(key));
}
