/**
 * The storage-initializer's error catalogue: every failure is a StorageError of one kind,
 * printed as one line naming the URI and the cause. `retryable` marks transient failures
 * (connection resets, timeouts, 5xx) that the download loop retries with backoff.
 */
export type StorageErrorKind =
  | 'not_found'
  | 'access_denied'
  | 'unreachable'
  | 'checksum_mismatch'
  | 'unsafe_archive'
  | 'unsupported_scheme'
  | 'invalid';

/** Kind → the words the error line uses for the cause. */
const CAUSE: Readonly<Record<StorageErrorKind, string>> = Object.freeze({
  not_found: 'not found',
  access_denied: 'access denied',
  unreachable: 'unreachable',
  checksum_mismatch: 'checksum mismatch',
  unsafe_archive: 'unsafe archive',
  unsupported_scheme: 'unsupported storage scheme',
  invalid: 'invalid',
});

export class StorageError extends Error {
  readonly kind: StorageErrorKind;
  readonly retryable: boolean;
  /** The URI (or path) the error is about; set by the code that knows it. */
  uri: string | undefined;

  constructor(kind: StorageErrorKind, message: string, opts: { uri?: string; retryable?: boolean; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'StorageError';
    this.kind = kind;
    this.retryable = opts.retryable ?? false;
    this.uri = opts.uri;
  }

  /** The one line printed before exit 1. */
  line(): string {
    return `${this.uri ?? '(no uri)'}: ${CAUSE[this.kind]}: ${this.message}`;
  }
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH',
  'ENETUNREACH', 'ECONNABORTED', 'UND_ERR_SOCKET', 'ERR_STREAM_PREMATURE_CLOSE', 'TimeoutError',
]);

const TLS_CODES = /^(DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|CERT_|ERR_TLS_|UNABLE_TO_GET_ISSUER)/;

/** The error code of a Node/system error (or of its cause), if any. */
export function errorCode(err: unknown): string | undefined {
  for (let e: unknown = err, i = 0; e && i < 4; e = (e as { cause?: unknown }).cause, i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/**
 * Classifies a transport-level error (no HTTP status): TLS failures are not retried,
 * resets, refusals and timeouts are.
 */
export function networkError(err: unknown, what: string): StorageError {
  if (err instanceof StorageError) return err;
  const code = errorCode(err) ?? (err as { name?: string })?.name ?? '';
  const msg = err instanceof Error ? err.message : String(err);
  if (TLS_CODES.test(code)) return new StorageError('unreachable', `TLS verification failed for ${what} (${code}: ${msg})`, { cause: err });
  const retryable = NETWORK_CODES.has(code) || /socket hang up|timed? ?out|aborted|premature close|ECONNRESET/i.test(msg);
  return new StorageError('unreachable', `${what}: ${msg}${code && !msg.includes(code) ? ` (${code})` : ''}`, { retryable, cause: err });
}

/** Maps an HTTP status from any store to the catalogue. */
export function statusError(status: number, what: string, detail = ''): StorageError {
  const suffix = detail ? ` (${detail})` : '';
  if (status === 404) return new StorageError('not_found', `${what} does not exist (HTTP 404)${suffix}`);
  if (status === 401 || status === 403) return new StorageError('access_denied', `${what} (HTTP ${status})${suffix}`);
  if (status === 408 || status === 429 || status >= 500) {
    return new StorageError('unreachable', `${what} answered HTTP ${status}${suffix}`, { retryable: true });
  }
  return new StorageError('invalid', `${what} answered HTTP ${status}${suffix}`);
}
