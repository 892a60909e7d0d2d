/**
 * Credentials never reach the output. Two layers, because an error can be built from a raw
 * URI anywhere (a provider, Node's own messages, a stalled stream):
 * - `redact(uri)` shows a URI without user info or query, even one `new URL` rejects;
 * - a `Scrubber` is applied to every line the CLI prints: it replaces each URI given on the
 *   command line by its redacted form, every known secret value (keys, tokens, header values,
 *   URL passwords and query values, raw and percent-decoded) by `***`, and, as a last net,
 *   any `user:password@`, signature/token/key query parameter, SigV4 `Signature=`/
 *   `Credential=` field and Authorization-like header value by `…` (a store may echo the
 *   request into its error message, which the SDKs pass on).
 */

/** Query parameters that carry credentials: SAS `sig`, SigV4/V2, GCS signed URLs, tokens. */
const SECRET_PARAM =
  /([?&;](?:sig|signature|x-amz-signature|x-amz-credential|x-amz-security-token|x-goog-signature|x-goog-credential|awsaccesskeyid|token|access_token|api[-_]?key|key|password|secret|se|sp|sv|skoid|sktid|skt|ske|sks|skv)=)[^&\s'"]*/gi;
/**
 * Request credentials a store may echo into an error body: SigV4/V2 signatures and
 * credential scopes in an Authorization header (`Signature=…`, `Credential=…`), and any
 * Authorization or key header's value in a printed header map.
 */
const SIGNATURE_FIELD = /\b(Signature|Credential)=[^,\s"'&]*/g;
const AUTH_HEADER = /((?:authorization|x-amz-security-token|x-ms-copy-source-authorization|x-goog-api-key|x-api-key)["']?\s*[:=]\s*["']?)[^"'\n,}]*/gi;
/** `scheme://user:password@` or `scheme://token@` in any text. */
const USERINFO = /([a-z][a-z0-9+.-]*:\/\/)[^/\s'"@]*@/gi;

/** Shortest value treated as a secret (shorter strings would blank ordinary words). */
const MIN_SECRET = 4;

export function redact(uri: string): string {
  const m = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)([^?#]*)(\?|#)?/i.exec(uri);
  if (!m) return uri;
  const host = m[2]!.includes('@') ? m[2]!.slice(m[2]!.lastIndexOf('@') + 1) : m[2]!;
  return `${m[1]}${host}${m[3]}${m[4] ? '?…' : ''}`;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** The secret parts of a URI: user, password and every query value (raw and decoded). */
export function uriSecrets(uri: string | undefined): string[] {
  const out: string[] = [];
  if (uri === undefined) return out;
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(uri);
  const auth = m?.[1] ?? '';
  if (auth.includes('@')) {
    for (const part of auth.slice(0, auth.lastIndexOf('@')).split(':')) out.push(part, safeDecode(part));
  }
  const q = uri.indexOf('?');
  if (q >= 0) {
    for (const kv of uri.slice(q + 1).split(/[&;#]/)) {
      const v = kv.slice(kv.indexOf('=') + 1);
      if (kv.includes('=')) out.push(v, safeDecode(v), safeDecode(v.replaceAll('+', ' ')));
    }
  }
  return out;
}

export class Scrubber {
  private readonly secrets: string[];

  constructor(
    private readonly uris: readonly string[],
    secrets: Iterable<string | undefined>,
  ) {
    const all = new Set<string>();
    for (const s of secrets) if (s && s.length >= MIN_SECRET) all.add(s);
    for (const u of uris) for (const s of uriSecrets(u)) if (s.length >= MIN_SECRET) all.add(s);
    // Longest first, so a secret containing another is replaced whole.
    this.secrets = [...all].sort((a, b) => b.length - a.length);
  }

  scrub(line: string): string {
    let out = line;
    for (const u of this.uris) if (u !== redact(u)) out = out.replaceAll(u, redact(u));
    for (const s of this.secrets) out = out.replaceAll(s, '***');
    return out.replace(USERINFO, '$1').replace(SECRET_PARAM, '$1…').replace(AUTH_HEADER, '$1…').replace(SIGNATURE_FIELD, '$1=…');
  }
}
