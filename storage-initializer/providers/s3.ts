/**
 * s3:// with @aws-sdk/client-s3. Custom endpoints (AWS_ENDPOINT_URL, or S3_ENDPOINT +
 * S3_USE_HTTPS as the webhook sets them) use path-style addressing unless
 * S3_USER_VIRTUAL_BUCKET is true. The SDK's own retries are off: the engine retries every
 * request, including body streams cut mid-way, which the SDK cannot.
 *
 * S3_USE_ACCELERATE uses the s3-accelerate endpoint (refused with a custom endpoint: only AWS
 * has it); AWS_ROLE_ARN + AWS_WEB_IDENTITY_TOKEN_FILE (IRSA) are exchanged at STS
 * (AWS_ENDPOINT_URL_STS when set) for temporary credentials.
 *
 * `s3://bucket/path`: an object whose key is exactly `path` is downloaded alone (as the
 * anchor does); otherwise every object under `path/` — whole path segments only, so
 * `s3://b/model` never pulls `model-v2/...` (anchor issue #3776).
 */
import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, S3Client, type ListObjectsV2CommandOutput } from '@aws-sdk/client-s3';
import { fromTokenFile } from '@aws-sdk/credential-provider-web-identity';
import type { Config } from '../config.js';
import { StorageError, errors, networkError, statusError } from '../errors.js';
import { parseMultipartEtag } from '../multipart-etag.js';
import type { ByteRange, Listing, OpenedObject, RemoteObject, StorageProvider } from '../provider.js';

interface S3Ref {
  bucket: string;
  key: string;
}

export function parseS3Uri(uri: string): S3Ref {
  const m = /^s3:\/\/([^/]+)\/?(.*)$/i.exec(uri);
  if (!m || !m[1]) throw errors.malformedUri(uri, 's3://<bucket>/<path>');
  return { bucket: m[1], key: m[2] ?? '' };
}

/** HeadObject requests in flight at once when learning a multipart object's part sizes. */
const PART_HEADS = 8;

const DENIED = new Set(['AccessDenied', 'InvalidAccessKeyId', 'SignatureDoesNotMatch', 'InvalidToken', 'ExpiredToken', 'AllAccessDisabled', 'Forbidden']);
const MISSING = new Set(['NoSuchBucket', 'NoSuchKey', 'NotFound']);

/** SDK error → catalogue. Never includes request headers (they carry the signature). */
function s3Error(err: unknown, what: string): StorageError {
  if (err instanceof StorageError) return err;
  const e = err as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const status = e.$metadata?.httpStatusCode;
  const name = e.name ?? '';
  if (MISSING.has(name)) return errors.notFound(`${what}: ${name}`, err);
  if (DENIED.has(name)) return errors.accessDenied(`${what}: ${name}${e.message && e.message !== name ? ` (${e.message})` : ''}`, err);
  if (status !== undefined && status > 0) return statusError(status, what, name);
  return networkError(err, what);
}

export class S3Provider implements StorageProvider {
  readonly scheme = 's3';
  readonly ranged = true;
  private readonly client: S3Client;

  constructor(config: Config) {
    const c = config.s3;
    // The SDK warns on stderr about Node 20 at every start; container logs need no such noise.
    process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';
    const agentOpts = { keepAlive: true, maxSockets: config.concurrency + 2 };
    const httpsAgent = new https.Agent({ ...agentOpts, rejectUnauthorized: c.verifySsl, ...(c.ca ? { ca: c.ca } : {}) });
    if (c.accelerate && c.endpoint) {
      throw errors.misconfigured(`S3_USE_ACCELERATE=true cannot be combined with the custom endpoint ${c.endpoint}: transfer acceleration exists only on AWS S3`);
    }
    const wi = c.webIdentity;
    this.client = new S3Client({
      region: c.region,
      ...(c.endpoint ? { endpoint: c.endpoint, forcePathStyle: !c.virtualBucket } : { forcePathStyle: false }),
      ...(c.accelerate ? { useAccelerateEndpoint: true } : {}),
      ...(c.anonymous
        ? { credentials: { accessKeyId: '', secretAccessKey: '' }, signer: { sign: async (req: never) => req } }
        : c.accessKeyId && c.secretAccessKey
          ? { credentials: { accessKeyId: c.accessKeyId, secretAccessKey: c.secretAccessKey, ...(c.sessionToken ? { sessionToken: c.sessionToken } : {}) } }
          : wi
            ? {
                credentials: fromTokenFile({
                  roleArn: wi.roleArn,
                  webIdentityTokenFile: wi.tokenFile,
                  roleSessionName: wi.sessionName,
                  clientConfig: { region: c.region, ...(wi.stsEndpoint ? { endpoint: wi.stsEndpoint } : {}) },
                }),
              }
            : {}),
      maxAttempts: 1,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      requestHandler: {
        httpAgent: new http.Agent(agentOpts),
        httpsAgent,
        connectionTimeout: config.connectTimeoutMs,
        requestTimeout: config.readTimeoutMs,
      },
    });
  }

  async list(uri: string): Promise<Listing> {
    const { bucket, key } = parseS3Uri(uri);
    if (key !== '' && !key.endsWith('/')) {
      // The shortest key with this prefix sorts first: it is the exact object if one exists.
      const first = await this.page(bucket, key, undefined, 1);
      const o = first.Contents?.[0];
      if (o?.Key === key) {
        const name = key.slice(key.lastIndexOf('/') + 1);
        return { single: true, objects: [this.object(bucket, o, name)] };
      }
    }
    const prefix = key === '' || key.endsWith('/') ? key : `${key}/`;
    const objects: RemoteObject[] = [];
    let token: string | undefined;
    do {
      const page = await this.page(bucket, prefix, token, 1000);
      for (const o of page.Contents ?? []) {
        if (!o.Key || o.Key.endsWith('/')) continue; // folder markers
        objects.push(this.object(bucket, o, o.Key.slice(prefix.length)));
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    if (objects.length === 0) {
      throw errors.notFound(`no object s3://${bucket}/${key} and no objects under s3://${bucket}/${prefix}`);
    }
    return { single: false, objects };
  }

  private async page(bucket: string, prefix: string, token: string | undefined, max: number): Promise<ListObjectsV2CommandOutput> {
    try {
      return await this.client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, MaxKeys: max, ...(token ? { ContinuationToken: token } : {}) }));
    } catch (err) {
      throw s3Error(err, `listing s3://${bucket}/${prefix}`);
    }
  }

  private object(bucket: string, o: { Key?: string | undefined; Size?: number | undefined; ETag?: string | undefined }, key: string): RemoteObject {
    const etag = (o.ETag ?? '').replace(/"/g, '').toLowerCase();
    const ref: S3Ref = { bucket, key: o.Key! };
    // A single-part upload's ETag is the MD5 of the bytes (except with SSE-KMS/SSE-C, seen on
    // read); a multipart upload's is the MD5 of its parts' MD5s, checked with the part sizes.
    const mp = parseMultipartEtag(etag);
    return {
      key,
      size: o.Size ?? 0,
      md5: /^[0-9a-f]{32}$/.test(etag) ? etag : undefined,
      ...(mp ? { multipart: { etag: mp, partSizes: (signal: AbortSignal) => this.partSizes(ref, mp.parts, signal) } } : {}),
      ref,
    };
  }

  /**
   * The sizes of an object's upload parts, from HeadObject with PartNumber (AWS S3, moto).
   * A store that ignores PartNumber (gofakes3 answers with the whole object and no
   * PartsCount) gives undefined. At most PART_HEADS requests at a time.
   */
  private async partSizes(ref: S3Ref, parts: number, signal: AbortSignal): Promise<number[] | undefined> {
    const head = async (n: number) => {
      try {
        return await this.client.send(new HeadObjectCommand({ Bucket: ref.bucket, Key: ref.key, PartNumber: n }), { abortSignal: signal });
      } catch (err) {
        throw s3Error(err, `s3://${ref.bucket}/${ref.key} (part ${n})`);
      }
    };
    const first = await head(1);
    if (first.PartsCount === undefined) return undefined;
    if (first.PartsCount !== parts) throw errors.checksumMismatch(`s3://${ref.bucket}/${ref.key}`, `the store counts ${first.PartsCount} upload parts, its ETag ${parts}`);
    const sizes = new Array<number>(parts);
    sizes[0] = first.ContentLength ?? -1;
    let next = 2;
    const worker = async () => {
      for (let n = next++; n <= parts; n = next++) sizes[n - 1] = (await head(n)).ContentLength ?? -1;
    };
    await Promise.all(Array.from({ length: Math.min(PART_HEADS, parts - 1) }, worker));
    return sizes;
  }

  async read(object: RemoteObject, range: ByteRange | undefined, signal: AbortSignal): Promise<OpenedObject> {
    const ref = object.ref as S3Ref;
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: ref.bucket, Key: ref.key, ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }), {
        abortSignal: signal,
      });
      const sse = out.ServerSideEncryption ?? '';
      return {
        body: out.Body as Readable,
        skipChecksum: sse.startsWith('aws:kms') || out.SSECustomerAlgorithm !== undefined,
        length: out.ContentLength,
      };
    } catch (err) {
      throw s3Error(err, `s3://${ref.bucket}/${ref.key}`);
    }
  }

  close(): void {
    this.client.destroy();
  }
}
