/**
 * When a forwarded request is tried again (--predictor_request_retries). Inference is not
 * assumed idempotent (a model may count, bill or log), so another attempt is made only when
 * the predictor certainly did not run the request:
 * - the connection was never made (refused, unknown host, unreachable network, connect timeout);
 * - the predictor answered 503 / gRPC UNAVAILABLE: not ready, overloaded or draining, which
 *   KServe servers answer before running the model (gRPC UNAVAILABLE is also what grpc-js
 *   reports for a connection it could not make; KServe's client retries it likewise).
 * Never after a timeout, a reset after the request was sent, any other status, or the client
 * going away. Attempts are spaced BACKOFF_MS × attempt apart.
 */
const CONNECT_ERROR_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

export const BACKOFF_MS = 50;

/** The errno-style code of a transport error or the causes it wraps. */
export function errorCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** True when `err` says the connection was never made. */
export function isConnectError(err: unknown): boolean {
  const code = errorCode(err);
  return code !== undefined && CONNECT_ERROR_CODES.has(code);
}

export function backoff(attempt: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, BACKOFF_MS * attempt);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });
}
