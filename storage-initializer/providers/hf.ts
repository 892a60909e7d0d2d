/**
 * Hugging Face Hub: `hf://<owner>/<repo>[:<revision>]`, as KServe parses it (exactly two
 * path components; the revision is a branch, tag or commit, default `main`). Plain HTTP
 * against the Hub's REST API at HF_ENDPOINT (a mirror for air-gapped sites), with HF_TOKEN as
 * a bearer token:
 *   GET /api/models/<repo>/revision/<rev>              → the commit the revision names
 *   GET /api/models/<repo>/tree/<commit>?recursive=1   → files and sizes (Link: next pages)
 *   GET /<repo>/resolve/<commit>/<path>                → the bytes (ranged; LFS files redirect)
 * Every file is read at the one commit resolved first, so a push during the download cannot
 * mix two revisions. HF_TOKEN goes only to HF_ENDPOINT's own origin (`headersFor`), whatever
 * names the next URL: a redirect (LFS files go to a CDN) or a listing's `Link: next`.
 * STORAGE_ALLOW_PATTERNS / STORAGE_IGNORE_PATTERNS filter the repo's paths as KServe's
 * allow/ignore patterns do.
 */
import { Readable } from 'node:stream';
import type { Config } from '../config.js';
import { errors, networkError, statusError } from '../errors.js';
import type { ByteRange, Listing, OpenedObject, RemoteObject, StorageProvider } from '../provider.js';

export function parseHfUri(uri: string): { repo: string; revision: string } {
  const parts = uri.replace(/^hf:\/\//i, '').split('/');
  const [owner, model] = parts;
  if (parts.length !== 2 || !owner || !model) throw errors.malformedUri(uri, 'hf://<owner>/<model>[:<revision>]');
  const colon = model.indexOf(':');
  const name = colon < 0 ? model : model.slice(0, colon);
  const revision = colon < 0 ? '' : model.slice(colon + 1);
  if (!name) throw errors.invalidUri('the model name is empty', uri);
  return { repo: `${owner}/${name}`, revision: revision || 'main' };
}

interface TreeEntry {
  type: string;
  path: string;
  size?: number;
  lfs?: { size?: number };
}

const NEXT_LINK = /<([^>]+)>;\s*rel="next"/;
/** Redirects followed for one GET, as fetch's own limit. */
const MAX_REDIRECTS = 20;
const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308]);

export class HfProvider implements StorageProvider {
  readonly scheme = 'hf';
  readonly ranged = true;
  private readonly endpoint: string;

  constructor(private readonly config: Config) {
    this.endpoint = new URL(config.hf.endpoint).origin;
  }

  /**
   * The headers for a GET of `url`: the token only when `url` is on HF_ENDPOINT's origin.
   * The one rule for every URL the provider did not write itself (redirects, next pages).
   */
  private headersFor(url: string): Record<string, string> {
    // identity: a decoded body would not match the sizes the listing declares.
    const headers: Record<string, string> = { 'user-agent': 'kserve-ts-storage-initializer', 'accept-encoding': 'identity' };
    if (this.config.hf.token && new URL(url).origin === this.endpoint) headers['authorization'] = `Bearer ${this.config.hf.token}`;
    return headers;
  }

  /** A GET whose redirects are followed here, each hop with `headersFor` its own URL. */
  private async get(url: string, what: string, extra: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> {
    let res: Response;
    for (let hop = 0, at = url; ; hop++) {
      try {
        res = await fetch(at, { headers: { ...this.headersFor(at), ...extra }, redirect: 'manual', ...(signal ? { signal } : {}) });
      } catch (err) {
        throw networkError(err, what);
      }
      const location = REDIRECT_STATUS.has(res.status) ? res.headers.get('location') : null;
      if (location === null) break;
      await res.body?.cancel();
      if (hop >= MAX_REDIRECTS) throw statusError(res.status, `${what}: more than ${MAX_REDIRECTS} redirects`, '');
      at = new URL(location, at).href;
    }
    if (res.ok) return res;
    await res.body?.cancel();
    // The Hub names the reason in X-Error-Code (RepoNotFound, RevisionNotFound, GatedRepo...).
    const code = res.headers.get('x-error-code') ?? '';
    if (code === 'RepoNotFound' || code === 'RevisionNotFound' || code === 'EntryNotFound') {
      throw errors.notFound(`${what}: ${code}${res.status === 401 ? ' (or it is private and HF_TOKEN is missing or not allowed)' : ''}`);
    }
    if (code === 'GatedRepo') throw errors.accessDenied(`${what}: gated repository, HF_TOKEN must belong to an account that accepted its terms`);
    throw statusError(res.status, what, code);
  }

  async list(uri: string): Promise<Listing> {
    const { repo, revision } = parseHfUri(uri);
    const base = this.config.hf.endpoint;
    const rev = (await (await this.get(`${base}/api/models/${repo}/revision/${encodeURIComponent(revision)}`, `hf://${repo}:${revision}`)).json()) as { sha?: unknown };
    if (typeof rev.sha !== 'string' || !/^[0-9a-f]{40}$/.test(rev.sha)) throw errors.badAnswer(`hf://${repo}:${revision}: the Hub named no commit for the revision`);
    const commit = rev.sha;
    const objects: RemoteObject[] = [];
    let next: string | undefined = `${base}/api/models/${repo}/tree/${commit}?recursive=true`;
    for (let page = 0; next; page++) {
      if (page >= this.config.limits.maxFiles) throw errors.limitExceeded(`hf://${repo}: more listing pages than STORAGE_MAX_FILES`);
      const res = await this.get(next, `listing hf://${repo}:${revision}`);
      const entries = (await res.json()) as TreeEntry[];
      if (!Array.isArray(entries)) throw errors.badAnswer(`listing hf://${repo}:${revision}: not a file list`);
      for (const e of entries) {
        if (e.type !== 'file' || typeof e.path !== 'string') continue;
        objects.push({ key: e.path, size: e.lfs?.size ?? e.size, ref: `${base}/${repo}/resolve/${commit}/${e.path.split('/').map(encodeURIComponent).join('/')}` });
      }
      const link = NEXT_LINK.exec(res.headers.get('link') ?? '')?.[1];
      next = link ? new URL(link, base).href : undefined;
    }
    if (objects.length === 0) throw errors.notFound(`hf://${repo}:${revision} has no files`);
    return { single: false, objects };
  }

  async read(object: RemoteObject, range: ByteRange | undefined, signal: AbortSignal): Promise<OpenedObject> {
    const url = object.ref as string;
    const what = `hf ${object.key}`;
    const res = await this.get(url, what, range ? { range: `bytes=${range.start}-${range.end}` } : {}, signal);
    if (range && res.status !== 206) {
      await res.body?.cancel();
      throw errors.badAnswer(`${what}: the Hub ignored the byte range (HTTP ${res.status})`);
    }
    if (!res.body) throw errors.unreachable(`${what}: no body`);
    const length = Number(res.headers.get('content-length') ?? Number.NaN);
    return { body: Readable.fromWeb(res.body), length: Number.isFinite(length) ? length : undefined };
  }
}
