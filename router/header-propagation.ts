/**
 * Which of the graph request's headers go to every step. KServe's router: the patterns of
 * the PROPAGATE_HEADERS environment variable (comma separated Go regular expressions,
 * unanchored, matched against Go's canonical header names such as `Custom-Header`; a
 * pattern that does not compile is skipped). Beyond KServe, the request id and the trace
 * context (W3C and B3) always go on, so a trace spans the graph without configuration.
 * Hop-by-hop and framing headers never go on: the step request has its own.
 */

/** Always propagated (lower-case). */
export const TRACE_HEADERS: readonly string[] = [
  'x-request-id',
  'traceparent',
  'tracestate',
  'b3',
  'x-b3-traceid',
  'x-b3-spanid',
  'x-b3-parentspanid',
  'x-b3-sampled',
  'x-b3-flags',
];

const NEVER = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'host', 'content-length', 'expect', 'http2-settings']);

/** textproto.CanonicalMIMEHeaderKey: `content-type` → `Content-Type`. */
export function canonicalHeaderKey(name: string): string {
  return name.toLowerCase().replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());
}

export interface CompiledPatterns {
  readonly patterns: readonly RegExp[];
  /** Patterns that did not compile, with the reason (logged once at start-up, as KServe does). */
  readonly rejected: readonly string[];
}

/** Compiles PROPAGATE_HEADERS; Go's leading `(?i)` becomes the `i` flag. */
export function compilePatterns(env: string | undefined): CompiledPatterns {
  if (env === undefined) return { patterns: [], rejected: [] };
  const patterns: RegExp[] = [];
  const rejected: string[] = [];
  for (const p of env.split(',')) {
    const insensitive = p.startsWith('(?i)');
    try {
      patterns.push(new RegExp(insensitive ? p.slice(4) : p, insensitive ? 'i' : ''));
    } catch (err) {
      rejected.push(`failed to compile pattern "${p}": ${(err as Error).message}`);
    }
  }
  return { patterns, rejected };
}

/**
 * The headers a step gets: those whose canonical name a pattern matches (every value),
 * and the trace headers. Names are lower-case; several values are joined with ", ".
 */
export function propagatedHeaders(incoming: Readonly<Record<string, string | string[] | undefined>>, patterns: readonly RegExp[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in incoming) {
    const v = incoming[name];
    if (v === undefined || NEVER.has(name)) continue;
    const value = typeof v === 'string' ? v : v.join(', ');
    if (TRACE_HEADERS.includes(name)) out[name] = value;
    else if (patterns.length > 0 && patterns.some((p) => p.test(canonicalHeaderKey(name)))) out[name] = value;
  }
  return out;
}
