/**
 * The causes KServe's router reports when a step gave no answer: Go's net/http client
 * errors as `err.Error()` prints them (`Post "URL": dial tcp ADDR: connect: connection
 * refused`, the client timeout's wording before and after the answer's headers), so the
 * error answers match KServe's byte for byte in the common cases. DNS failures name no
 * resolver address (Go's does: it is the pod's resolver, which Node does not report).
 */
import { errorCode } from '../../server/predictor-client/retry-policy.js';

/** Go's %q of a URL (the ASCII a URL holds: only `"` and `\` need escaping). */
function quoted(url: string): string {
  return `"${url.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

function urlError(url: string, message: string): string {
  return `Post ${quoted(url)}: ${message}`;
}

/** The address Go's dialer names: the IP and port tried (IPv6 in brackets). */
function dialAddress(err: unknown, url: URL): string {
  let address: string | undefined;
  let port: number | undefined;
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 5; depth++) {
    const o = e as { address?: unknown; port?: unknown; cause?: unknown };
    if (typeof o.address === 'string') address = o.address;
    if (typeof o.port === 'number') port = o.port;
    e = o.cause;
  }
  const host = address ?? url.hostname.replace(/^\[|\]$/g, '');
  const p = port ?? (url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80);
  return host.includes(':') ? `[${host}]:${p}` : `${host}:${p}`;
}

export const goHttpErrors = {
  /** url.Parse failed (Go: `parse "URL": ...`). */
  unparsable: (url: string) => `parse ${quoted(url)}: invalid URL`,
  unsupportedScheme: (url: string, scheme: string) => urlError(url, `unsupported protocol scheme ${quoted(scheme)}`),
  timeoutAwaitingHeaders: (url: string) => urlError(url, 'context deadline exceeded (Client.Timeout exceeded while awaiting headers)'),
  /** Not wrapped: KServe's router returns io.ReadAll's error as it is. */
  timeoutReadingBody: () => 'context deadline exceeded (Client.Timeout or context cancellation while reading body)',
  /** The client went away; nobody reads this answer. */
  cancelled: (url: string) => urlError(url, 'context canceled'),
  transport(url: string, parsed: URL, err: unknown): string {
    switch (errorCode(err)) {
      case 'ECONNREFUSED':
        return urlError(url, `dial tcp ${dialAddress(err, parsed)}: connect: connection refused`);
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
        return urlError(url, `dial tcp: lookup ${parsed.hostname}: no such host`);
      case 'EHOSTUNREACH':
        return urlError(url, `dial tcp ${dialAddress(err, parsed)}: connect: no route to host`);
      case 'ENETUNREACH':
        return urlError(url, `dial tcp ${dialAddress(err, parsed)}: connect: network is unreachable`);
      case 'ECONNRESET':
        return urlError(url, 'read: connection reset by peer');
      case 'UND_ERR_SOCKET':
        return urlError(url, 'EOF');
      default:
        return urlError(url, err instanceof Error ? err.message : String(err));
    }
  },
};
