/**
 * The storage provider contract. A provider knows one URI scheme; the download engine
 * (download.ts) does everything else: filtering, parallelism, ranged parts, retries,
 * verification, the temporary folder and the final rename.
 *
 * Contract:
 * - `list` resolves a URI to the files it names. It may be called again after a retryable
 *   error. A URI naming one object gives `single: true` and that object keyed by its
 *   basename; a prefix gives every object under it, keyed by the path relative to it
 *   (always '/'-separated; the engine rejects keys that would escape the destination).
 *   Nothing found → StorageError('not_found').
 * - `read` opens one object, or one inclusive byte range of it, as a stream. It must not
 *   buffer the whole object. Errors are StorageErrors; transient ones are `retryable`.
 *   `read` is called concurrently for different ranges and objects.
 * - Providers never log and never put credentials into error messages.
 */
import type { Readable } from 'node:stream';
import type { Env, StorageConfigObject } from './env.js';
import type { MultipartEtag } from './multipart-etag.js';

export interface RemoteObject {
  /** Destination path relative to the destination folder, '/'-separated. */
  key: string;
  /** Size in bytes, or undefined when the store only tells it on read (plain HTTP). */
  size: number | undefined;
  /** Hex MD5 of the content when the store gives one that is trustworthy. */
  md5?: string | undefined;
  /** Base64 big-endian CRC32C (GCS). */
  crc32c?: string | undefined;
  /**
   * An S3 multipart ETag (multipart-etag.ts) and how to learn its part sizes, which the
   * engine asks once, while the object downloads; `partSizes` resolves to undefined where the
   * store cannot tell them (the object is then size-checked only).
   */
  multipart?: { etag: MultipartEtag; partSizes(signal: AbortSignal): Promise<number[] | undefined> } | undefined;
  /** Provider-private locator (bucket/key, path, URL...). */
  ref: unknown;
}

export interface Listing {
  single: boolean;
  objects: RemoteObject[];
}

export interface ByteRange {
  /** First byte, inclusive. */
  start: number;
  /** Last byte, inclusive. */
  end: number;
}

export interface OpenedObject {
  body: Readable;
  /** Set when the response says the stored checksum no longer describes the bytes (e.g. SSE-KMS ETags). */
  skipChecksum?: boolean;
  /** Content length announced by the server, if any. */
  length?: number | undefined;
}

export interface StorageProvider {
  readonly scheme: string;
  /** True when `read` honours byte ranges (large objects are then split into parts). */
  readonly ranged: boolean;
  list(uri: string): Promise<Listing>;
  read(object: RemoteObject, range: ByteRange | undefined, signal: AbortSignal): Promise<OpenedObject>;
  close?(): void;
}

/**
 * What a provider reads from its environment, owned by the provider as a backend owns its
 * flags (providers/<name>-settings.ts, free of SDK imports, listed in providers/settings.ts).
 * Every provider's settings are read once at start-up, before any URI is looked at, so a
 * malformed value fails a run whatever its URIs; `secrets` names the credentials among them
 * (keys, tokens, user info in an endpoint), which the CLI's scrubber blanks in every line it
 * prints.
 */
export interface ProviderSettings<S> {
  read(env: Env, storageConfig: StorageConfigObject): S;
  secrets(settings: S): readonly (string | undefined)[];
}
