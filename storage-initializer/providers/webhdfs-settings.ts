/**
 * WebHDFS's settings, read as KServe reads its HDFS secret: one file per key in
 * HDFS_SECRET_DIR (default /var/secrets/kserve-hdfscreds, where the webhook mounts it), or
 * the keys of a STORAGE_CONFIG of type hdfs/webhdfs (file keys base64-encoded), or plain
 * variables. Later sources win: directory, then STORAGE_CONFIG, then variables (HDFS_*,
 * USER_PROXY, KERBEROS_PRINCIPAL). HDFS_USER is this project's addition.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { type Env, type StorageConfigObject, parseHeaders } from '../env.js';
import type { ProviderSettings } from '../provider.js';
import { uriSecrets } from '../redact.js';

export interface HdfsConfig {
  /** HDFS_NAMENODE: one or more `http(s)://host:port` WebHDFS addresses, ';'-separated (HA). */
  namenodes: string[];
  /** USER_PROXY: sent as `doas`. */
  proxyUser: string | undefined;
  /** HDFS_ROOTPATH: prefixed to every path; when unset the URI's path is absolute. */
  rootPath: string | undefined;
  /** HDFS_USER (this project's addition): `user.name` for simple authentication. */
  user: string | undefined;
  /** TLS_CERT/TLS_KEY (client certificate, PEM), TLS_CA (PEM), TLS_SKIP_VERIFY. */
  tls: { cert: string | undefined; key: string | undefined; ca: string | undefined; skipVerify: boolean };
  /** HEADERS: a JSON object of extra request headers. */
  headers: Readonly<Record<string, string>>;
  /** KERBEROS_PRINCIPAL: set means Kerberos was asked for (refused by the provider). */
  kerberosPrincipal: string | undefined;
}

const TRUE = /^(1|true|yes|on)$/i;

const HDFS_KEYS = [
  'HDFS_NAMENODE',
  'USER_PROXY',
  'HDFS_ROOTPATH',
  'HDFS_USER',
  'TLS_CERT',
  'TLS_KEY',
  'TLS_CA',
  'TLS_SKIP_VERIFY',
  'HEADERS',
  'N_THREADS',
  'KERBEROS_KEYTAB',
  'KERBEROS_PRINCIPAL',
] as const;
/** Keys that are PEM files in the secret (and base64 in STORAGE_CONFIG). */
const HDFS_FILE_KEYS = new Set(['TLS_CERT', 'TLS_KEY', 'TLS_CA', 'KERBEROS_KEYTAB']);

function hdfsValues(env: Env, storageConfig: StorageConfigObject): Map<string, string> {
  const out = new Map<string, string>();
  const dir = env['HDFS_SECRET_DIR'] || '/var/secrets/kserve-hdfscreds';
  if (existsSync(dir)) {
    for (const name of readdirSync(dir)) {
      if ((HDFS_KEYS as readonly string[]).includes(name)) out.set(name, readFileSync(path.join(dir, name), 'utf8'));
    }
  }
  if (storageConfig['type'] === 'hdfs' || storageConfig['type'] === 'webhdfs') {
    for (const k of HDFS_KEYS) {
      const v = storageConfig[k];
      if (typeof v !== 'string' || v === '') continue;
      out.set(k, HDFS_FILE_KEYS.has(k) ? Buffer.from(v, 'base64').toString('utf8') : v);
    }
  }
  // Plain variables only for the unambiguous names: TLS_*, HEADERS and N_THREADS are too
  // generic to read from a container's environment (KServe reads them from the secret only).
  for (const k of HDFS_KEYS) {
    const v = env[k];
    if (v === undefined || v === '' || !/^(HDFS_|USER_PROXY$|KERBEROS_PRINCIPAL$)/.test(k)) continue;
    out.set(k, v);
  }
  return out;
}

function read(env: Env, storageConfig: StorageConfigObject): HdfsConfig {
  const v = hdfsValues(env, storageConfig);
  const raw = v.get('HEADERS')?.trim();
  return {
    namenodes: (v.get('HDFS_NAMENODE') ?? '')
      .split(';')
      .map((s) => s.trim().replace(/\/+$/, ''))
      .filter((s) => s !== ''),
    proxyUser: v.get('USER_PROXY')?.trim() || undefined,
    rootPath: v.get('HDFS_ROOTPATH')?.trim() || undefined,
    user: v.get('HDFS_USER')?.trim() || undefined,
    tls: { cert: v.get('TLS_CERT'), key: v.get('TLS_KEY'), ca: v.get('TLS_CA'), skipVerify: TRUE.test(v.get('TLS_SKIP_VERIFY')?.trim() ?? '') },
    headers: Object.freeze(raw ? parseHeaders(raw, 'HEADERS', 'HEADERS (HDFS secret)') : {}),
    kerberosPrincipal: v.get('KERBEROS_PRINCIPAL')?.trim() || undefined,
  };
}

export const HDFS_SETTINGS: ProviderSettings<HdfsConfig> = {
  read,
  secrets: (c) => [c.tls.key, ...Object.values(c.headers), ...c.namenodes.flatMap((n) => uriSecrets(n))],
};
