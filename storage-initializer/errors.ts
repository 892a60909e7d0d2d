/**
 * The storage-initializer's error catalogue: every failure is a StorageError of one kind,
 * printed as one line naming the URI and the cause. `retryable` marks transient failures
 * (connection resets, timeouts, 5xx) that the download loop retries with backoff.
 *
 * Call sites throw by name through `errors` (as the server's protocols/errors.ts): the name
 * fixes the kind, whether it is retried and the message's template; only this file
 * constructs a StorageError.
 */
export type StorageErrorKind = 'not_found' | 'access_denied' | 'unreachable' | 'checksum_mismatch' | 'unsafe_archive' | 'unsupported_scheme' | 'invalid';

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
  /** The URI (or path, or setting) the error is about; set by the code that knows it. */
  uri: string | undefined;

  constructor(kind: StorageErrorKind, message: string, opts: { uri?: string | undefined; retryable?: boolean; cause?: unknown } = {}) {
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

const reason = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export const errors = {
  // ── the run's settings (environment, STORAGE_CONFIG, secrets): `uri` names the setting
  /** A setting that cannot be used as given. */
  invalidSetting: (setting: string, message: string) => new StorageError('invalid', message, { uri: setting }),
  settingNotANumber: (setting: string, min: number, value: string) => errors.invalidSetting(setting, `${setting} must be a number >= ${min}, got '${value}'`),
  settingNotAJsonObject: (setting: string) => errors.invalidSetting(setting, `${setting} is not a JSON object`),
  /** `<host>-headers`, HDFS's HEADERS. */
  headersNotAJsonObject: (setting: string, shown = setting) => errors.invalidSetting(setting, `${shown} must be a JSON object of header names to values`),
  caBundleNotFound: (file: string, setting: string) => errors.invalidSetting(setting, `failed to find ca bundle file ${file}`),
  /** Settings a provider cannot work with, found when the provider is made (the line names the URI). */
  misconfigured: (message: string) => new StorageError('invalid', message),

  // ── the URI
  /** The URI is not of its scheme's form: `expected <form>`. */
  malformedUri: (uri: string, form: string) => new StorageError('invalid', `expected ${form}`, { uri }),
  invalidUri: (message: string, uri?: string) => new StorageError('invalid', message, { uri }),
  unsupportedScheme: (scheme: string, supported: readonly string[], uri: string) =>
    new StorageError('unsupported_scheme', `'${scheme}://' is not supported (supported: ${supported.map((s) => `${s}://`).join(', ')} and local paths)`, { uri }),
  /** A scheme or a mode of one that kserve-ts does not download (pvc://, Kerberos). */
  notSupported: (message: string) => new StorageError('unsupported_scheme', message),

  // ── what the store answered
  notFound: (message: string, cause?: unknown) => new StorageError('not_found', message, { cause }),
  accessDenied: (message: string, cause?: unknown) => new StorageError('access_denied', message, { cause }),
  /** A transient failure (retried) unless `retryable` is false. */
  unreachable: (message: string, opts: { retryable?: boolean; cause?: unknown } = {}) =>
    new StorageError('unreachable', message, { retryable: opts.retryable ?? true, cause: opts.cause }),
  /** An answer that cannot be used (not JSON, not a listing, a range ignored, an unexpected status). */
  badAnswer: (message: string) => new StorageError('invalid', message),

  // ── bounds (config.limits and fixed ones): what a store may make this process write or hold
  limitExceeded: (message: string) => new StorageError('invalid', message),
  /** A key or entry that would be written outside the destination folder. */
  outsideDestination: (message: string) => new StorageError('invalid', message),

  // ── verification
  checksumMismatch: (what: string, detail: string) => new StorageError('checksum_mismatch', `${what}: ${detail}`),
  /** A written file that could not be read back to verify it. */
  unverifiable: (what: string, err: unknown) => errors.checksumMismatch(what, `could not read it back to check it (${reason(err)})`),

  // ── archives
  badArchive: (format: string, detail: string) => new StorageError('invalid', `not a valid ${format} archive: ${detail}`),
  unsafeArchive: (message: string) => new StorageError('unsafe_archive', message),
};

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
  'ERR_STREAM_PREMATURE_CLOSE',
  'TimeoutError',
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
  if (TLS_CODES.test(code)) return errors.unreachable(`TLS verification failed for ${what} (${code}: ${msg})`, { retryable: false, cause: err });
  const retryable = NETWORK_CODES.has(code) || /socket hang up|timed? ?out|aborted|premature close|ECONNRESET/i.test(msg);
  return errors.unreachable(`${what}: ${msg}${code && !msg.includes(code) ? ` (${code})` : ''}`, { retryable, cause: err });
}

/** Maps an HTTP status from any store to the catalogue. */
export function statusError(status: number, what: string, detail = ''): StorageError {
  const suffix = detail ? ` (${detail})` : '';
  if (status === 404) return errors.notFound(`${what} does not exist (HTTP 404)${suffix}`);
  if (status === 401 || status === 403) return errors.accessDenied(`${what} (HTTP ${status})${suffix}`);
  if (status === 408 || status === 429 || status >= 500) return errors.unreachable(`${what} answered HTTP ${status}${suffix}`);
  return errors.badAnswer(`${what} answered HTTP ${status}${suffix}`);
}
