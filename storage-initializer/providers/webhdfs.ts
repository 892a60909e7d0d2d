/**
 * hdfs:// and webhdfs:// over the WebHDFS REST API, with KServe's HDFS secret keys
 * (webhdfs-settings.ts): HDFS_NAMENODE (';'-separated for HA: the next is tried on a
 * connection failure or a StandbyException), USER_PROXY (`doas`), HDFS_ROOTPATH, TLS_CERT /
 * TLS_KEY / TLS_CA / TLS_SKIP_VERIFY, HEADERS. Kerberos (KERBEROS_PRINCIPAL) is refused:
 * SPNEGO needs a GSSAPI library this Node image does not have.
 *
 * `hdfs://user/me/model` is the path /user/me/model (HDFS_ROOTPATH/user/me/model with a
 * root), as KServe maps it. A file is downloaded alone; a directory recursively. Calls:
 * GETFILESTATUS, LISTSTATUS, and OPEN with offset/length (ranged parts), following the
 * namenode's redirect to a datanode.
 */
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import path from 'node:path';
import type { Config } from '../config.js';
import type { HdfsConfig } from './webhdfs-settings.js';
import { StorageError, errors, networkError, statusError } from '../errors.js';
import type { ByteRange, Listing, OpenedObject, RemoteObject, StorageProvider } from '../provider.js';

interface FileStatus {
  pathSuffix: string;
  type: 'FILE' | 'DIRECTORY' | 'SYMLINK';
  length: number;
}

const MAX_REDIRECTS = 5;
/** Deepest directory nesting walked (a loop of symlinked directories stops here). */
const MAX_DEPTH = 64;

export function hdfsPath(uri: string, rootPath: string | undefined): string {
  const rest = uri.replace(/^(web)?hdfs:\/\//i, '').split(/[?#]/)[0]!;
  const joined = rootPath ? path.posix.join(rootPath.startsWith('/') ? rootPath : `/${rootPath}`, rest) : path.posix.join('/', rest);
  if (joined.split('/').includes('..')) throw errors.invalidUri("the path has a '..' segment", uri);
  return joined.replace(/\/+$/, '') || '/';
}

function remoteException(body: string): { exception: string; message: string } | undefined {
  try {
    const r = (JSON.parse(body) as { RemoteException?: { exception?: string; message?: string } }).RemoteException;
    return r ? { exception: r.exception ?? '', message: (r.message ?? '').split('\n')[0]! } : undefined;
  } catch {
    return undefined;
  }
}

export class WebHdfsProvider implements StorageProvider {
  readonly scheme = 'hdfs';
  readonly ranged = true;
  private readonly h: HdfsConfig;
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;
  /** Index of the namenode that answered last (HA: the active one). */
  private active = 0;

  constructor(config: Config) {
    this.h = config.hdfs;
    if (this.h.kerberosPrincipal) {
      throw errors.notSupported(
        'Kerberos authentication (KERBEROS_PRINCIPAL) is not supported by kserve-ts: use simple authentication (HDFS_USER / USER_PROXY), TLS client certificates (TLS_CERT/TLS_KEY), or gateway HEADERS',
      );
    }
    if (this.h.namenodes.length === 0) throw errors.misconfigured('HDFS_NAMENODE is not set (the WebHDFS address, e.g. http://namenode:9870)');
    for (const nn of this.h.namenodes) {
      if (!/^https?:\/\/[^/]+/i.test(nn)) throw errors.misconfigured(`HDFS_NAMENODE entry '${nn}' must start with http:// or https://`);
    }
    const agentOpts = { keepAlive: true, maxSockets: config.concurrency + 2 };
    this.httpAgent = new http.Agent(agentOpts);
    this.httpsAgent = new https.Agent({
      ...agentOpts,
      rejectUnauthorized: !this.h.tls.skipVerify,
      ...(this.h.tls.ca ? { ca: this.h.tls.ca } : {}),
      ...(this.h.tls.cert && this.h.tls.key ? { cert: this.h.tls.cert, key: this.h.tls.key } : {}),
    });
  }

  private query(op: string, extra: Record<string, string> = {}): string {
    const q = new URLSearchParams({ op, ...extra });
    if (this.h.user) q.set('user.name', this.h.user);
    if (this.h.proxyUser) q.set('doas', this.h.proxyUser);
    return q.toString();
  }

  private request(url: string, signal: AbortSignal | undefined): Promise<IncomingMessage> {
    const u = new URL(url);
    const mod = u.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const req = mod.get(u, { agent: u.protocol === 'https:' ? this.httpsAgent : this.httpAgent, headers: { ...this.h.headers }, ...(signal ? { signal } : {}) }, resolve);
      req.on('error', reject);
    });
  }

  /** GET `p?query` on the active namenode (then the others), following datanode redirects. */
  private async call(p: string, query: string, what: string, signal?: AbortSignal): Promise<IncomingMessage> {
    const n = this.h.namenodes.length;
    let last: StorageError | undefined;
    for (let i = 0; i < n; i++) {
      const idx = (this.active + i) % n;
      let url = `${this.h.namenodes[idx]}/webhdfs/v1${p.split('/').map(encodeURIComponent).join('/')}?${query}`;
      try {
        for (let hop = 0; ; hop++) {
          const res = await this.request(url, signal);
          const status = res.statusCode ?? 0;
          if (status >= 300 && status < 400 && res.headers.location && hop < MAX_REDIRECTS) {
            res.resume();
            url = new URL(res.headers.location, url).href;
            continue;
          }
          if (status >= 200 && status < 300) {
            this.active = idx;
            return res;
          }
          const body = await text(res);
          const rex = remoteException(body);
          if (rex?.exception === 'StandbyException') {
            last = errors.unreachable(`${what}: namenode ${idx + 1} of ${n} is standby`);
            break;
          }
          if (rex?.exception === 'FileNotFoundException') throw errors.notFound(`${what}: ${rex.message}`);
          if (rex?.exception === 'AccessControlException' || rex?.exception === 'SecurityException') throw errors.accessDenied(`${what}: ${rex.message}`);
          throw statusError(status, what, rex ? `${rex.exception}: ${rex.message}` : '');
        }
      } catch (err) {
        if (err instanceof StorageError) {
          if (err.kind !== 'unreachable') throw err;
          last = err;
        } else last = networkError(err, what);
        if (signal?.aborted) throw last;
      }
    }
    throw last ?? errors.unreachable(`${what}: no namenode answered`);
  }

  private async json<T>(p: string, op: string, what: string): Promise<T> {
    const body = await text(await this.call(p, this.query(op), what));
    try {
      return JSON.parse(body) as T;
    } catch {
      throw errors.badAnswer(`${what}: the namenode's answer is not JSON`);
    }
  }

  async list(uri: string): Promise<Listing> {
    const p = hdfsPath(uri, this.h.rootPath);
    const st = (await this.json<{ FileStatus: FileStatus }>(p, 'GETFILESTATUS', `hdfs ${p}`)).FileStatus;
    if (st.type === 'FILE') return { single: true, objects: [{ key: path.posix.basename(p), size: st.length, ref: p }] };
    const objects: RemoteObject[] = [];
    const walk = async (dir: string, rel: string, depth: number): Promise<void> => {
      if (depth > MAX_DEPTH) throw errors.limitExceeded(`hdfs ${dir}: nested deeper than ${MAX_DEPTH} folders`);
      const list = (await this.json<{ FileStatuses: { FileStatus: FileStatus[] } }>(dir, 'LISTSTATUS', `listing hdfs ${dir}`)).FileStatuses.FileStatus;
      for (const f of list) {
        const child = `${dir}/${f.pathSuffix}`;
        const key = rel ? `${rel}/${f.pathSuffix}` : f.pathSuffix;
        if (f.type === 'DIRECTORY') await walk(child, key, depth + 1);
        else if (f.type === 'FILE') objects.push({ key, size: f.length, ref: child });
      }
    };
    await walk(p === '/' ? '' : p, '', 0);
    if (objects.length === 0) throw errors.notFound(`hdfs ${p} is an empty directory`);
    return { single: false, objects };
  }

  async read(object: RemoteObject, range: ByteRange | undefined, signal: AbortSignal): Promise<OpenedObject> {
    const p = object.ref as string;
    const extra: Record<string, string> = range ? { offset: String(range.start), length: String(range.end - range.start + 1) } : {};
    const res = await this.call(p, this.query('OPEN', extra), `hdfs ${p}`, signal);
    const len = Number(res.headers['content-length']);
    return { body: res, length: Number.isFinite(len) ? len : undefined };
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}

async function text(res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const c of res as AsyncIterable<Buffer>) {
    n += c.length;
    // Status answers are small; a namenode sending megabytes of JSON is refused.
    if (n > 64 * 1024 * 1024) throw errors.limitExceeded('a WebHDFS status answer larger than 64 MiB');
    chunks.push(c);
  }
  return Buffer.concat(chunks).toString('utf8');
}
