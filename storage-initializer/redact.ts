/** URIs may carry credentials (user:pass@, signed query strings): never print them. */
export function redact(uri: string): string {
  if (!/^https?:\/\//i.test(uri)) return uri;
  try {
    const u = new URL(uri);
    return `${u.origin}${u.pathname}${u.search ? '?…' : ''}`;
  } catch {
    return '(invalid URL)';
  }
}
