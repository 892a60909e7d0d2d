/**
 * A URL as a log line may show it: scheme, host, port and path. User info
 * (`https://user:token@...`) and the query (`?token=...`, SAS and presigned signatures) carry
 * credentials, so they are left out; a query is marked, so the reader knows there was one.
 */
export function redactedUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}${url.search === '' ? '' : '?[redacted]'}`;
}
