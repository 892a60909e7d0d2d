/**
 * Azure Blob Storage: `https://<account>.blob.core.windows.net/<container>/<path>` (and the
 * `z<N>.blob.storage.azure.net` form), routed here by host as KServe detects it, with
 * @azure/storage-blob. Credentials in KServe's order: a service principal
 * (AZ_CLIENT_ID/AZ_CLIENT_SECRET/AZ_TENANT_ID) or AKS workload identity
 * (AZURE_FEDERATED_TOKEN_FILE instead of the secret), else the account key
 * (AZURE_STORAGE_ACCESS_KEY), else none: a SAS in the URI's query, or a public container.
 * STORAGE_AZURE_BLOB_ENDPOINT replaces the account's endpoint (Azurite, private links).
 * The SDK's own retries are off: the engine retries every request and cut body.
 *
 * `<container>/<path>`: a blob named exactly `path` is downloaded alone; otherwise every blob
 * under `path/` (whole segments, as for s3://).
 */
import type { Readable } from 'node:stream';
import { AnonymousCredential, ContainerClient, StorageSharedKeyCredential, type StoragePipelineOptions } from '@azure/storage-blob';
import type { TokenCredential } from '@azure/core-auth';
import type { Config } from '../config.js';
import { errors } from '../errors.js';
import type { ByteRange, Listing, OpenedObject, RemoteObject, StorageProvider } from '../provider.js';
import { azureContainerUrl, azureError, azurePipelineOptions, azureTokenCredential, parseAzureUri, type AzureUri } from './azure-common.js';

interface BlobRef {
  container: ContainerClient;
  name: string;
  uri: string;
}

const EXPECTED = 'https://<account>.blob.core.windows.net/<container>/<path>';

export class AzureBlobProvider implements StorageProvider {
  readonly scheme = 'azure-blob';
  readonly ranged = true;
  private readonly credential: StorageSharedKeyCredential | TokenCredential | AnonymousCredential | undefined;
  private readonly options: StoragePipelineOptions;

  constructor(
    private readonly config: Config,
    identity: TokenCredential | undefined,
  ) {
    this.credential = identity;
    this.options = azurePipelineOptions(config);
  }

  private containerFor(uri: AzureUri): ContainerClient {
    const a = this.config.azure;
    const url = azureContainerUrl(a.blobEndpoint, uri);
    const credential = this.credential ?? (a.accountKey ? new StorageSharedKeyCredential(uri.account, a.accountKey) : new AnonymousCredential());
    return new ContainerClient(url, credential, this.options);
  }

  async list(uri: string): Promise<Listing> {
    const u = parseAzureUri(uri, EXPECTED);
    const container = this.containerFor(u);
    const shown = `https://${u.host}/${u.container}/${u.path}`;
    const found: Array<{ name: string; size: number; md5: string | undefined }> = [];
    try {
      for await (const b of container.listBlobsFlat({ prefix: u.path })) {
        if (b.name.endsWith('/')) continue;
        const md5 = b.properties.contentMD5 ? Buffer.from(b.properties.contentMD5).toString('hex') : undefined;
        found.push({ name: b.name, size: b.properties.contentLength ?? 0, md5 });
      }
    } catch (err) {
      throw azureError(err, `listing ${shown}`);
    }
    const exact = u.path !== '' ? found.find((b) => b.name === u.path) : undefined;
    const object = (b: (typeof found)[number], key: string): RemoteObject => ({
      key,
      size: b.size,
      md5: b.md5,
      ref: { container, name: b.name, uri: `https://${u.host}/${u.container}/${b.name}` } satisfies BlobRef,
    });
    if (exact) return { single: true, objects: [object(exact, u.path.slice(u.path.lastIndexOf('/') + 1))] };
    const prefix = u.path === '' ? '' : `${u.path}/`;
    const objects = found.filter((b) => b.name.startsWith(prefix)).map((b) => object(b, b.name.slice(prefix.length)));
    if (objects.length === 0) throw errors.notFound(`no blob ${shown} and no blobs under it`);
    return { single: false, objects };
  }

  async read(object: RemoteObject, range: ByteRange | undefined, signal: AbortSignal): Promise<OpenedObject> {
    const ref = object.ref as BlobRef;
    try {
      const res = await ref.container
        .getBlobClient(ref.name)
        .download(range?.start ?? 0, range ? range.end - range.start + 1 : undefined, { abortSignal: signal, maxRetryRequests: 0 });
      if (!res.readableStreamBody) throw errors.unreachable(`${ref.uri}: no body`);
      return { body: res.readableStreamBody as Readable, length: res.contentLength };
    } catch (err) {
      throw azureError(err, ref.uri);
    }
  }
}

/** The provider, with the service principal's credential when one is configured. */
export async function azureBlobProvider(config: Config): Promise<AzureBlobProvider> {
  return new AzureBlobProvider(config, await azureTokenCredential(config.azure));
}
