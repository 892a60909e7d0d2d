/**
 * http:// and https:// URIs: one file per URI, named after the last path segment (an
 * archive, archive.ts's kinds, is then unpacked by the engine). Azure storage hosts are not
 * served here: schemes.ts routes them to their provider. Request headers
 * come from the `<hostname>-headers` variable (a JSON object), as the webhook sets it from
 * the `https-host`/`headers` secret keys. Redirects are followed (at most 5). Extra CAs:
 * REQUESTS_CA_BUNDLE / SSL_CERT_FILE / the CA bundle configmap, added to Node's roots.
 */
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import type { Config } from '../config.js';
import { errors, networkError, statusError } from '../errors.js';
import { redact } from '../redact.js';
import type { ByteRange, Listing, OpenedObject, RemoteObject, StorageProvider } from '../provider.js';

const MAX_REDIRECTS = 5;

export class HttpProvider implements StorageProvider {
  readonly scheme = 'http';
  readonly ranged = false;
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;

  constructor(private readonly config: Config) {
    this.httpAgent = new http.Agent({ keepAlive: true });
    this.httpsAgent = new https.Agent({ keepAlive: true, ...(config.http.ca ? { ca: [...tls.rootCertificates, config.http.ca] } : {}) });
  }

  async list(uri: string): Promise<Listing> {
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      throw errors.invalidUri('not a valid URL');
    }
    const name = decodeURIComponent(url.pathname.slice(url.pathname.lastIndexOf('/') + 1));
    if (!name) throw errors.invalidUri('no filename contained in the URI');
    return { single: true, objects: [{ key: name, size: undefined, ref: url.href }] };
  }

  async read(object: RemoteObject, _range: ByteRange | undefined, signal: AbortSignal): Promise<OpenedObject> {
    let href = object.ref as string;
    for (let hop = 0; ; hop++) {
      const res = await this.get(href, signal);
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400 && res.headers.location && hop < MAX_REDIRECTS) {
        res.resume();
        href = new URL(res.headers.location, href).href;
        continue;
      }
      if (status !== 200) {
        res.resume();
        throw statusError(status, `GET ${redact(href)}`);
      }
      const len = res.headers['content-length'];
      return { body: res, length: len === undefined ? undefined : Number(len) };
    }
  }

  private get(href: string, signal: AbortSignal): Promise<IncomingMessage> {
    const url = new URL(href);
    const mod = url.protocol === 'https:' ? https : http;
    const headers = this.config.http.headers.get(url.hostname.toLowerCase()) ?? {};
    return new Promise((resolve, reject) => {
      const req = mod.request(url, {
        method: 'GET',
        headers,
        agent: url.protocol === 'https:' ? this.httpsAgent : this.httpAgent,
        signal,
        timeout: this.config.connectTimeoutMs,
      });
      req.on('timeout', () => req.destroy(Object.assign(new Error('connection timed out'), { code: 'ETIMEDOUT' })));
      req.on('socket', (s) => s.once('connect', () => req.setTimeout(this.config.readTimeoutMs)));
      req.on('response', (res) => {
        req.setTimeout(0);
        resolve(res);
      });
      req.on('error', (err) => reject(networkError(err, `GET ${redact(href)}`)));
      req.end();
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}
