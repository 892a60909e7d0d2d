/** HTTP status of an error thrown by @kubernetes/client-node (ApiException), if any. */
export function apiStatus(err: unknown): number | undefined {
  if (err === null || typeof err !== 'object') return undefined;
  const e = err as { code?: unknown; statusCode?: unknown; response?: { statusCode?: unknown } };
  for (const v of [e.code, e.statusCode, e.response?.statusCode]) {
    if (typeof v === 'number') return v;
  }
  return undefined;
}

export const isNotFound = (err: unknown): boolean => apiStatus(err) === 404;
export const isConflict = (err: unknown): boolean => apiStatus(err) === 409;

/** One line for logs and status messages: the API server's message when there is one. */
export function apiErrorMessage(err: unknown): string {
  if (err && typeof err === 'object' && 'body' in err) {
    const body = (err as { body?: unknown }).body;
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    try {
      const parsed = JSON.parse(text) as { message?: string };
      if (parsed.message) return parsed.message;
    } catch {
      // not JSON: fall through to the error's own message
    }
  }
  return err instanceof Error ? err.message : String(err);
}
