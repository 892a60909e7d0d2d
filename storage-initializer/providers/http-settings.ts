/** Plain http(s):// downloads' settings: a CA bundle and per-host headers, as KServe's. */
import path from 'node:path';
import { type Env, parseHeaders, readCa } from '../env.js';
import type { ProviderSettings } from '../provider.js';

export interface HttpConfig {
  /** Extra CA bundle (PEM) for https:// downloads. */
  ca: string | undefined;
  /** `<hostname>-headers` → parsed headers, looked up per host. */
  headers: ReadonlyMap<string, Readonly<Record<string, string>>>;
}

function headersFromEnv(env: Env): Map<string, Record<string, string>> {
  const out = new Map<string, Record<string, string>>();
  for (const [k, v] of Object.entries(env)) {
    if (!k.endsWith('-headers') || !v) continue;
    out.set(k.slice(0, -'-headers'.length).toLowerCase(), parseHeaders(v, k));
  }
  return out;
}

function caFile(env: Env): string | undefined {
  return (
    env['REQUESTS_CA_BUNDLE'] ||
    env['SSL_CERT_FILE'] ||
    (env['CA_BUNDLE_CONFIGMAP_NAME'] ? path.join(env['CA_BUNDLE_VOLUME_MOUNT_POINT'] || '/etc/ssl/custom-certs', 'cabundle.crt') : undefined)
  );
}

export const HTTP_SETTINGS: ProviderSettings<HttpConfig> = {
  read(env) {
    const file = caFile(env);
    return { ca: file ? readCa(file, 'REQUESTS_CA_BUNDLE/SSL_CERT_FILE') : undefined, headers: headersFromEnv(env) };
  },
  // A header value, and each long word of it (`Bearer <token>`), is a credential.
  secrets: (c) => [...c.headers.values()].flatMap((h) => Object.values(h).flatMap((v) => [v, ...v.split(/\s+/).filter((w) => w.length >= 8)])),
};
