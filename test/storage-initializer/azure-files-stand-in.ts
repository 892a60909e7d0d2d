/**
 * An Azure Files REST stand-in on loopback (HTTPS: bearer tokens are only sent over TLS).
 * No emulator serves the Files API (Azurite does Blob, Queue and Table), so this implements
 * exactly the calls @azure/storage-file-share makes for a download, as Azure's REST
 * reference describes them:
 * - List Directories and Files (`GET /<share>/<dir>?restype=directory&comp=list`), a fixed
 *   number of entries per page with NextMarker/marker paging;
 * - Get File Properties (`HEAD /<share>/<path>`): Content-Length, Content-MD5 (when the
 *   file has one), x-ms-type;
 * - Get File (`GET /<share>/<path>`, with or without `x-ms-range`): 206 and Content-Range
 *   for a range.
 * Errors carry `x-ms-error-code` and an XML body as the service sends them.
 *
 * Every request is authorised, and each credential kind is verified, not just present:
 * - SharedKey: the string-to-sign is computed here from the request as received (verb,
 *   standard headers, canonicalized x-ms-* headers and resource) and HMAC-SHA256'd with the
 *   account key; a mismatch is 403 AuthenticationFailed.
 * - SAS (a service SAS for the share, sr=s): the signature is recomputed from the sp, st,
 *   se, canonical resource (/file/<account>/<share>), si, sip, spr, sv and rsc* fields.
 * - Bearer: the token must be one the Entra ID stand-in issued, and the request must carry
 *   `x-ms-file-request-intent: backup`, as the Files OAuth API requires.
 */
import { createHash, createHmac } from 'node:crypto';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Pki } from './helpers.js';

export interface StoredFile {
  body: Buffer;
  /**
   * False: stored without Content-MD5 (files written over SMB usually are); a string: this
   * base64 Content-MD5 instead of the body's (a stale or corrupted property).
   */
  md5?: boolean | string;
}

export interface FilesOptions {
  account: string;
  /** Base64 account key. */
  key: string;
  /** share → path in the share → file. */
  shares: Record<string, Record<string, StoredFile>>;
  /** Bearer tokens to accept (the Entra stand-in's `issued`). */
  tokens?: ReadonlySet<string>;
  /** Entries per listing page. */
  pageSize?: number;
}

export interface SeenRequest {
  method: string;
  url: string;
  range: string | undefined;
  auth: 'sharedkey' | 'sas' | 'bearer';
}

export interface FilesStandIn {
  /** The account's endpoint (path-style: `https://127.0.0.1:<port>/<account>`). */
  url: string;
  requests: SeenRequest[];
  stop(): Promise<void>;
}

const STANDARD = [
  'content-encoding',
  'content-language',
  'content-length',
  'content-md5',
  'content-type',
  'date',
  'if-modified-since',
  'if-match',
  'if-none-match',
  'if-unmodified-since',
  'range',
];

/** Shared Key string-to-sign for the Blob, Queue and File services (version 2015-02-21+). */
export function sharedKeyStringToSign(account: string, method: string, rawUrl: string, headers: IncomingMessage['headers']): string {
  const h = (n: string) => {
    const v = headers[n];
    const s = Array.isArray(v) ? v.join(',') : (v ?? '');
    return n === 'content-length' && s === '0' ? '' : s;
  };
  const msHeaders = Object.keys(headers)
    .filter((n) => n.startsWith('x-ms-'))
    .sort();
  const canonicalHeaders = msHeaders.map((n) => `${n}:${h(n).replace(/\s+/g, ' ').trim()}\n`).join('');
  const u = new URL(rawUrl, 'http://x');
  let resource = `/${account}${u.pathname}`;
  const names = [...new Set([...u.searchParams.keys()].map((k) => k.toLowerCase()))].sort();
  for (const n of names) {
    const values = [...u.searchParams.entries()]
      .filter(([k]) => k.toLowerCase() === n)
      .map(([, v]) => v)
      .sort();
    resource += `\n${n}:${values.join(',')}`;
  }
  return [method.toUpperCase(), ...STANDARD.map(h)].join('\n') + '\n' + canonicalHeaders + resource;
}

/** Service SAS string-to-sign for a share (sr=s), version 2018-11-09 and later. */
export function shareSasStringToSign(account: string, share: string, q: URLSearchParams): string {
  const g = (k: string) => q.get(k) ?? '';
  return [g('sp'), g('st'), g('se'), `/file/${account}/${share}`, g('si'), g('sip'), g('spr'), g('sv'), g('rscc'), g('rscd'), g('rsce'), g('rscl'), g('rsct')].join('\n');
}

const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export async function startFiles(pki: Pki, o: FilesOptions): Promise<FilesStandIn> {
  const requests: SeenRequest[] = [];
  const key = Buffer.from(o.key, 'base64');
  const pageSize = o.pageSize ?? 2;
  const hmac = (s: string) => createHmac('sha256', key).update(s, 'utf8').digest('base64');

  const fail = (res: ServerResponse, status: number, code: string, message: string, head = false) => {
    res.writeHead(status, { 'x-ms-error-code': code, 'content-type': 'application/xml', 'x-ms-version': '2026-10-06' });
    res.end(head ? undefined : `<?xml version="1.0" encoding="utf-8"?><Error><Code>${code}</Code><Message>${xmlEscape(message)}</Message></Error>`);
  };

  /** The credential kind, or undefined after answering the refusal. */
  function authorise(req: IncomingMessage, res: ServerResponse, share: string): SeenRequest['auth'] | undefined {
    const head = req.method === 'HEAD';
    const auth = req.headers.authorization ?? '';
    const q = new URL(req.url ?? '/', 'http://x').searchParams;
    if (auth.startsWith('SharedKey ')) {
      const [account, sig] = auth.slice('SharedKey '.length).split(':');
      const want = hmac(sharedKeyStringToSign(o.account, req.method ?? 'GET', req.url ?? '/', req.headers));
      if (account === o.account && sig === want) return 'sharedkey';
      fail(
        res,
        403,
        'AuthenticationFailed',
        'Server failed to authenticate the request. The MAC signature found in the HTTP request is not the same as any computed signature.',
        head,
      );
      return undefined;
    }
    if (auth.startsWith('Bearer ')) {
      if (o.tokens?.has(auth.slice('Bearer '.length)) && req.headers['x-ms-file-request-intent'] === 'backup') return 'bearer';
      fail(res, 403, req.headers['x-ms-file-request-intent'] ? 'AuthenticationFailed' : 'FileOAuthManagementApiRestrictedToSrp', 'bearer token not accepted', head);
      return undefined;
    }
    if (q.has('sig')) {
      const expired = Date.parse(q.get('se') ?? '') < Date.now();
      if (q.get('sr') === 's' && !expired && q.get('sig') === hmac(shareSasStringToSign(o.account, share, q)) && (q.get('sp') ?? '').includes('r')) return 'sas';
      fail(res, 403, 'AuthenticationFailed', 'Signature did not match.', head);
      return undefined;
    }
    fail(res, 401, 'NoAuthenticationInformation', 'Server failed to authenticate the request. Please refer to the information in the www-authenticate header.', head);
    return undefined;
  }

  function list(res: ServerResponse, share: string, files: Record<string, StoredFile>, dir: string, marker: string): void {
    const prefix = dir === '' ? '' : `${dir}/`;
    const entries = new Map<string, { dir: boolean; size: number }>();
    for (const [p, f] of Object.entries(files)) {
      if (!p.startsWith(prefix)) continue;
      const rest = p.slice(prefix.length).split('/');
      entries.set(rest[0]!, rest.length > 1 ? { dir: true, size: 0 } : { dir: false, size: f.body.length });
    }
    if (dir !== '' && entries.size === 0) {
      fail(res, 404, 'ResourceNotFound', 'The specified resource does not exist.');
      return;
    }
    const names = [...entries.keys()].sort();
    const start = marker === '' ? 0 : names.findIndex((n) => n >= marker);
    const page = start < 0 ? [] : names.slice(start, start + pageSize);
    const next = start >= 0 && start + pageSize < names.length ? names[start + pageSize]! : '';
    const xml = page
      .map((n) => {
        const e = entries.get(n)!;
        return e.dir
          ? `<Directory><Name>${xmlEscape(n)}</Name><Properties /></Directory>`
          : `<File><Name>${xmlEscape(n)}</Name><Properties><Content-Length>${e.size}</Content-Length></Properties></File>`;
      })
      .join('');
    res.writeHead(200, { 'content-type': 'application/xml', 'x-ms-version': '2026-10-06' });
    res.end(
      `<?xml version="1.0" encoding="utf-8"?><EnumerationResults ServiceEndpoint="https://${o.account}.file.core.windows.net/" ShareName="${xmlEscape(share)}" DirectoryPath="${xmlEscape(dir)}"><Marker>${xmlEscape(marker)}</Marker><MaxResults>${pageSize}</MaxResults><Entries>${xml}</Entries><NextMarker>${xmlEscape(next)}</NextMarker></EnumerationResults>`,
    );
  }

  function file(req: IncomingMessage, res: ServerResponse, f: StoredFile): void {
    const md5 = f.md5 === false ? {} : { 'content-md5': typeof f.md5 === 'string' ? f.md5 : createHash('md5').update(f.body).digest('base64') };
    const common = {
      'x-ms-type': 'File',
      'x-ms-version': '2026-10-06',
      etag: '"0x8D0000000000001"',
      'last-modified': new Date(0).toUTCString(),
      'content-type': 'application/octet-stream',
      'accept-ranges': 'bytes',
    };
    if (req.method === 'HEAD') {
      res.writeHead(200, { ...common, ...md5, 'content-length': String(f.body.length) }).end();
      return;
    }
    const range = /^bytes=(\d+)-(\d+)$/.exec(String(req.headers['x-ms-range'] ?? req.headers.range ?? ''));
    if (!range) {
      res.writeHead(200, { ...common, ...md5, 'content-length': String(f.body.length) }).end(f.body);
      return;
    }
    const start = Number(range[1]);
    const end = Math.min(Number(range[2]), f.body.length - 1);
    if (start >= f.body.length || start > end) {
      fail(res, 416, 'InvalidRange', 'The range specified is invalid for the current size of the resource.');
      return;
    }
    // A range's response carries the whole file's MD5 as x-ms-content-md5 (Content-MD5 is the range's, when asked).
    const whole = f.md5 === false ? {} : { 'x-ms-content-md5': md5['content-md5'] };
    res
      .writeHead(206, { ...common, ...whole, 'content-range': `bytes ${start}-${end}/${f.body.length}`, 'content-length': String(end - start + 1) })
      .end(f.body.subarray(start, end + 1));
  }

  const server = https.createServer({ key: pki.key, cert: pki.cert }, (req, res) => {
    req.resume();
    req.on('end', () => {
      const u = new URL(req.url ?? '/', 'http://x');
      // Path-style, as the SDK addresses an IP endpoint: /<account>/<share>/<path>.
      const parts = u.pathname.split('/').slice(1).map(decodeURIComponent);
      if (parts[0] === o.account) parts.shift();
      const share = parts[0] ?? '';
      const p = parts.slice(1).join('/').replace(/\/+$/, '');
      const auth = authorise(req, res, share);
      if (!auth) return;
      requests.push({ method: req.method ?? '', url: req.url ?? '', range: req.headers['x-ms-range'] as string | undefined, auth });
      const files = o.shares[share];
      if (!files) {
        fail(res, 404, 'ShareNotFound', 'The specified share does not exist.', req.method === 'HEAD');
        return;
      }
      if (req.method === 'GET' && u.searchParams.get('restype') === 'directory' && u.searchParams.get('comp') === 'list') {
        list(res, share, files, p, u.searchParams.get('marker') ?? '');
        return;
      }
      const f = files[p];
      if ((req.method === 'GET' || req.method === 'HEAD') && f) {
        file(req, res, f);
        return;
      }
      fail(res, 404, 'ResourceNotFound', 'The specified resource does not exist.', req.method === 'HEAD');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/${o.account}`,
    requests,
    stop: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}
