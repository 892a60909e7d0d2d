/** URIs may carry credentials (user:pass@, signed query strings): never print them. */
export function redact(uri: string): string {
  if (!/^https?:\/\//i.test(uri)) return uri;
  try {
    const u = new URL(uri);
    u.username = '';
    u.password = '';
    if (u.search) u.search = '?…';
    return u.href;
  } catch {
    return '(invalid URL)';
  }
}
