/**
 * gs:// with @google-cloud/storage. Credentials: GOOGLE_APPLICATION_CREDENTIALS (or the
 * library's default chain); when none can be found, an anonymous client (public buckets),
 * as the anchor falls back. GCS_ENDPOINT or STORAGE_EMULATOR_HOST point at an emulator
 * (fake-gcs-server) or a private endpoint; no credentials are sent there.
 *
 * `gs://bucket/path`: everything under `path/` (whole segments); if nothing is there and
 * the object `path` exists, that object alone (the anchor's order).
 */
import type { Readable } from 'node:stream';
import { Storage, type File, type StorageOptions } from '@google-cloud/storage';
import type { Config } from '../config.js';
import { StorageError, errors, networkError, statusError } from '../errors.js';
import type { ByteRange, Listing, OpenedObject, RemoteObject, StorageProvider } from '../provider.js';

export function parseGsUri(uri: string): { bucket: string; key: string } {
  const m = /^gs:\/\/([^/]+)\/?(.*)$/i.exec(uri);
  if (!m || !m[1]) throw errors.malformedUri(uri, 'gs://<bucket>/<path>');
  return { bucket: m[1], key: m[2] ?? '' };
}

function gcsError(err: unknown, what: string): StorageError {
  if (err instanceof StorageError) return err;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'number' && code >= 100) return statusError(code, what, (err as Error).message?.split('\n')[0]);
  const msg = err instanceof Error ? err.message : String(err);
  if (/Could not load the default credentials|invalid_grant|unauthorized_client/i.test(msg)) {
    return errors.accessDenied(`${what}: ${msg.split('\n')[0]}`, err);
  }
  return networkError(err, what);
}

function hexFromBase64(b64: string | undefined): string | undefined {
  return b64 ? Buffer.from(b64, 'base64').toString('hex') : undefined;
}

export class GcsProvider implements StorageProvider {
  readonly scheme = 'gs';
  readonly ranged = true;
  private storage: Storage;
  private anonymous: boolean;

  constructor(private readonly config: Config) {
    // The library would read STORAGE_EMULATOR_HOST itself (and fail without a scheme in it):
    // the parsed configuration already carries it as apiEndpoint.
    delete process.env['STORAGE_EMULATOR_HOST'];
    this.anonymous = config.gcs.anonymous;
    this.storage = this.make(this.anonymous);
  }

  private make(anonymous: boolean): Storage {
    const g = this.config.gcs;
    // A service-account key is used with a custom endpoint too (a private endpoint still
    // checks it); without one, a custom endpoint is an emulator and gets no credentials.
    const withKey = !!g.credentialsFile && !anonymous;
    const opts: StorageOptions = {
      retryOptions: { autoRetry: false },
      timeout: this.config.readTimeoutMs,
      ...(g.endpoint ? { apiEndpoint: g.endpoint, useAuthWithCustomEndpoint: withKey } : {}),
      ...(withKey ? { keyFilename: g.credentialsFile } : {}),
    };
    if (anonymous || (g.endpoint && !withKey)) {
      // No credential lookup at all: emulators and public buckets.
      Object.assign(opts, { projectId: 'anonymous', authClient: undefined, token: undefined });
      if (anonymous) Object.assign(opts, { apiEndpoint: g.endpoint ?? 'https://storage.googleapis.com', useAuthWithCustomEndpoint: false });
    }
    return new Storage(opts);
  }

  async list(uri: string): Promise<Listing> {
    try {
      return await this.listOnce(uri);
    } catch (err) {
      // The anchor's fallback: no default credentials → anonymous client.
      if (!this.anonymous && err instanceof StorageError && err.kind === 'access_denied' && /default credentials/i.test(err.message)) {
        this.anonymous = true;
        this.storage = this.make(true);
        return this.listOnce(uri);
      }
      throw err;
    }
  }

  private async listOnce(uri: string): Promise<Listing> {
    const { bucket, key } = parseGsUri(uri);
    const prefix = key === '' || key.endsWith('/') ? key : `${key}/`;
    const b = this.storage.bucket(bucket);
    let files: File[];
    try {
      [files] = await b.getFiles({ prefix, autoPaginate: true });
    } catch (err) {
      throw gcsError(err, `listing gs://${bucket}/${prefix}`);
    }
    const objects = files.filter((f) => !f.name.endsWith('/')).map((f) => this.object(f, f.name.slice(prefix.length)));
    if (objects.length > 0) return { single: false, objects };
    if (key !== '' && !key.endsWith('/')) {
      const f = b.file(key);
      try {
        await f.getMetadata();
        return { single: true, objects: [this.object(f, key.slice(key.lastIndexOf('/') + 1))] };
      } catch (err) {
        const e = gcsError(err, `gs://${bucket}/${key}`);
        if (e.kind !== 'not_found') throw e;
      }
    }
    throw errors.notFound(`no object gs://${bucket}/${key} and no objects under gs://${bucket}/${prefix}`);
  }

  private object(f: File, key: string): RemoteObject {
    const m = f.metadata;
    // Composite objects have no MD5 but keep a CRC32C.
    return { key, size: Number(m.size ?? 0), md5: hexFromBase64(m.md5Hash), crc32c: m.crc32c, ref: f };
  }

  async read(object: RemoteObject, range: ByteRange | undefined): Promise<OpenedObject> {
    const f = object.ref as File;
    const what = `gs://${f.bucket.name}/${f.name}`;
    const body: Readable = f.createReadStream({ validation: false, decompress: false, ...(range ? { start: range.start, end: range.end } : {}) });
    return { body: mapErrors(body, (e) => gcsError(e, what)) };
  }
}

function mapErrors(body: Readable, map: (e: unknown) => StorageError): Readable {
  const orig = body.emit.bind(body);
  (body as { emit: typeof body.emit }).emit = ((event: string | symbol, ...args: unknown[]) =>
    event === 'error' ? orig('error', map(args[0])) : orig(event, ...args)) as typeof body.emit;
  return body;
}
