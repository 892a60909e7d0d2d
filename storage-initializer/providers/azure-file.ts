/**
 * Azure Files: `https://<account>.file.core.windows.net/<share>/<path>` (and the
 * `z<N>.file.storage.azure.net` form), routed here by host as KServe's _AZURE_FILE_RE
 * detects it, with @azure/storage-file-share. `path` naming a file downloads that file alone;
 * naming a directory (or empty: the share's root) downloads every file under it,
 * recursively, keyed by the path relative to it (KServe keeps the prefix in the destination
 * and stops at depth 5; here it is the same layout as for blobs and s3://, and no depth cap
 * beyond MAX_DEPTH below).
 *
 * Credentials in the blob provider's order (azure-common.ts): a service principal or
 * workload identity (bearer token, sent with the `backup` file request intent the Files
 * OAuth API requires), else the account key (AZURE_STORAGE_ACCESS_KEY, as KServe), else none:
 * a SAS in the URI's query. STORAGE_AZURE_FILE_ENDPOINT replaces the account's endpoint.
 * The SDK's own retries are off: the engine retries every request and cut body.
 *
 * Listing gives names and sizes only, so each listed file's properties are read (HEAD,
 * `config.concurrency` at a time) for its Content-MD5, which the engine then checks; a file
 * stored without one is size-checked only.
 */
import type { Readable } from 'node:stream';
import type { TokenCredential } from '@azure/core-auth';
import {
  AnonymousCredential,
  ShareClient,
  StorageSharedKeyCredential,
  type ShareDirectoryClient,
  type ShareFileClient,
  type StoragePipelineOptions,
} from '@azure/storage-file-share';
import type { Config } from '../config.js';
import { errors } from '../errors.js';
import type { ByteRange, Listing, OpenedObject, RemoteObject, StorageProvider } from '../provider.js';
import { azureContainerUrl, azureError, azurePipelineOptions, azureTokenCredential, parseAzureUri, type AzureUri } from './azure-common.js';

const EXPECTED = 'https://<account>.file.core.windows.net/<share>/<path>';
/** Directory nesting followed below the URI's directory; deeper is refused, not cut. */
const MAX_DEPTH = 64;
/** Entries asked for per listing page (the service may return fewer: markers page on). */
const PAGE = 5000;

interface FileRef {
  file: ShareFileClient;
  uri: string;
}

interface Found {
  /** Path relative to the URI's directory, '/'-separated. */
  key: string;
  /** Path in the share. */
  path: string;
  size: number;
}

const MISSING = new Set(['ResourceNotFound', 'ParentNotFound', 'ShareNotFound']);

function isMissing(err: unknown): boolean {
  const e = err as { statusCode?: number; code?: string };
  return e.statusCode === 404 || MISSING.has(e.code ?? '');
}

/** A listed name that is not one plain path segment would walk out of its directory. */
function checkName(name: string, dir: string): void {
  if (name === '' || name === '.' || name === '..' || /[/\\\0]/.test(name)) {
    throw errors.outsideDestination(`the share lists an entry '${name}' in '${dir}' that would be written outside the destination`);
  }
}

export class AzureFileProvider implements StorageProvider {
  readonly scheme = 'azure-file';
  readonly ranged = true;
  private readonly options: StoragePipelineOptions & { fileRequestIntent?: 'backup' };

  constructor(
    private readonly config: Config,
    private readonly identity: TokenCredential | undefined,
  ) {
    this.options = { ...azurePipelineOptions(config), ...(identity ? { fileRequestIntent: 'backup' as const } : {}) };
  }

  private shareFor(uri: AzureUri): ShareClient {
    const a = this.config.azure;
    const url = azureContainerUrl(a.fileEndpoint, uri);
    const credential = this.identity ?? (a.accountKey ? new StorageSharedKeyCredential(uri.account, a.accountKey) : new AnonymousCredential());
    return new ShareClient(url, credential, this.options);
  }

  async list(uri: string): Promise<Listing> {
    const u = parseAzureUri(uri, EXPECTED);
    const share = this.shareFor(u);
    const shown = `https://${u.host}/${u.container}/${u.path}`;
    const fileUri = (p: string) => `https://${u.host}/${u.container}/${p}`;
    if (u.path !== '') {
      const file = share.rootDirectoryClient.getFileClient(u.path);
      try {
        const p = await file.getProperties();
        const md5 = p.contentMD5 ? Buffer.from(p.contentMD5).toString('hex') : undefined;
        const object: RemoteObject = { key: u.path.slice(u.path.lastIndexOf('/') + 1), size: p.contentLength ?? 0, md5, ref: { file, uri: fileUri(u.path) } satisfies FileRef };
        return { single: true, objects: [object] };
      } catch (err) {
        // Not a file: a directory (404, or 409 ResourceTypeMismatch) or nothing; listed next.
        if (!isMissing(err) && (err as { code?: string }).code !== 'ResourceTypeMismatch') throw azureError(err, shown);
      }
    }
    const found: Found[] = [];
    try {
      await this.walk(u.path === '' ? share.rootDirectoryClient : share.getDirectoryClient(u.path), u.path, '', 0, found);
    } catch (err) {
      if (isMissing(err)) throw errors.notFound(`no file ${shown} and no files under it`);
      throw azureError(err, `listing ${shown}`);
    }
    if (found.length === 0) throw errors.notFound(`no file ${shown} and no files under it`);
    const objects = await this.withMd5(share, found, fileUri);
    return { single: false, objects };
  }

  /** Every file under `dir`, depth first, following the service's page markers. */
  private async walk(dir: ShareDirectoryClient, path: string, key: string, depth: number, out: Found[]): Promise<void> {
    if (depth > MAX_DEPTH) throw errors.limitExceeded(`directories nested deeper than ${MAX_DEPTH} levels under the URI`);
    const subdirs: string[] = [];
    for await (const page of dir.listFilesAndDirectories().byPage({ maxPageSize: PAGE })) {
      for (const f of page.segment.fileItems) {
        checkName(f.name, path);
        out.push({ key: `${key}${f.name}`, path: path === '' ? f.name : `${path}/${f.name}`, size: f.properties.contentLength });
        // Bounded while listing: a share with millions of files is refused before more are held.
        if (out.length > this.config.limits.maxFiles) throw errors.limitExceeded(`more than STORAGE_MAX_FILES=${this.config.limits.maxFiles} files listed`);
      }
      for (const d of page.segment.directoryItems) {
        checkName(d.name, path);
        subdirs.push(d.name);
      }
    }
    for (const name of subdirs) {
      await this.walk(dir.getDirectoryClient(name), path === '' ? name : `${path}/${name}`, `${key}${name}/`, depth + 1, out);
    }
  }

  /** Each file's Content-MD5 (listings do not carry it), `config.concurrency` HEADs at a time. */
  private async withMd5(share: ShareClient, found: readonly Found[], fileUri: (p: string) => string): Promise<RemoteObject[]> {
    const objects = new Array<RemoteObject>(found.length);
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < found.length; i = next++) {
        const f = found[i]!;
        const file = share.rootDirectoryClient.getFileClient(f.path);
        let md5: string | undefined;
        try {
          const p = await file.getProperties();
          md5 = p.contentMD5 ? Buffer.from(p.contentMD5).toString('hex') : undefined;
        } catch (err) {
          throw azureError(err, fileUri(f.path));
        }
        objects[i] = { key: f.key, size: f.size, md5, ref: { file, uri: fileUri(f.path) } satisfies FileRef };
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.config.concurrency, found.length) }, worker));
    return objects;
  }

  async read(object: RemoteObject, range: ByteRange | undefined, signal: AbortSignal): Promise<OpenedObject> {
    const ref = object.ref as FileRef;
    try {
      const res = await ref.file.download(range?.start ?? 0, range ? range.end - range.start + 1 : undefined, { abortSignal: signal, maxRetryRequests: 0 });
      if (!res.readableStreamBody) throw errors.unreachable(`${ref.uri}: no body`);
      return { body: res.readableStreamBody as Readable, length: res.contentLength };
    } catch (err) {
      throw azureError(err, ref.uri);
    }
  }
}

/** The provider, with the service principal's credential when one is configured. */
export async function azureFileProvider(config: Config): Promise<AzureFileProvider> {
  return new AzureFileProvider(config, await azureTokenCredential(config.azure));
}
