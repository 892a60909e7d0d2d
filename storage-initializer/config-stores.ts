/**
 * Configuration of the stores added for issue 18 (Azure Blob, Hugging Face Hub, WebHDFS),
 * read once at start with the rest of config.ts and passed down. The variable names are
 * KServe's (storage.py); STORAGE_* names are this project's additions (endpoint overrides
 * for emulators and mirrors).
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { StorageError } from './errors.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface AzureConfig {
  /**
   * STORAGE_AZURE_BLOB_ENDPOINT: replaces `https://<account>.blob.core.windows.net` (e.g.
   * Azurite's `http://127.0.0.1:10000/devstoreaccount1`); the URI keeps naming the account.
   */
  blobEndpoint: string | undefined;
  /**
   * STORAGE_AZURE_FILE_ENDPOINT: replaces `https://<account>.file.core.windows.net` for Azure
   * Files (a private endpoint, a stand-in); the URI keeps naming the account.
   */
  fileEndpoint: string | undefined;
  /** AZURE_STORAGE_ACCESS_KEY: the account's shared key. */
  accountKey: string | undefined;
  /** AZ_TENANT_ID/AZ_CLIENT_ID/AZ_CLIENT_SECRET (or the AZURE_* names): a service principal. */
  servicePrincipal: { tenantId: string; clientId: string; clientSecret: string } | undefined;
  /**
   * AKS workload identity: AZURE_CLIENT_ID + AZURE_TENANT_ID + AZURE_FEDERATED_TOKEN_FILE (as
   * its webhook injects them, no secret), which KServe's DefaultAzureCredential also takes.
   */
  workloadIdentity: { tenantId: string; clientId: string; tokenFile: string } | undefined;
  /**
   * Why the Azure credentials cannot be used (a client id without tenant or secret), reported
   * by the Azure provider only: an Azure variable left in the pod must not fail an s3:// run.
   */
  credentialProblem: string | undefined;
  /** AZURE_AUTHORITY_HOST: the Entra ID (AAD) authority, for sovereign clouds. */
  authorityHost: string | undefined;
}

export interface HfConfig {
  /** HF_ENDPOINT (mirrors, air-gapped sites); default https://huggingface.co. */
  endpoint: string;
  /** HF_TOKEN (or the older HUGGING_FACE_HUB_TOKEN). */
  token: string | undefined;
}

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

function azure(env: Env): AzureConfig {
  const tenantId = env['AZ_TENANT_ID'] || env['AZURE_TENANT_ID'] || '';
  const clientId = env['AZ_CLIENT_ID'] || env['AZURE_CLIENT_ID'] || '';
  const clientSecret = env['AZ_CLIENT_SECRET'] || env['AZURE_CLIENT_SECRET'] || '';
  const tokenFile = env['AZURE_FEDERATED_TOKEN_FILE'] || '';
  let servicePrincipal: AzureConfig['servicePrincipal'];
  let workloadIdentity: AzureConfig['workloadIdentity'];
  let credentialProblem: string | undefined;
  // KServe hands a client id to DefaultAzureCredential; of that chain, a secret and a
  // federated token are what a storage-initializer container can have. Anything else is
  // said, not guessed.
  if (clientId && tenantId && clientSecret) servicePrincipal = { tenantId, clientId, clientSecret };
  else if (clientId && tenantId && tokenFile) workloadIdentity = { tenantId, clientId, tokenFile };
  else if (clientId) {
    credentialProblem = `AZ_CLIENT_ID is set but ${!tenantId ? 'AZ_TENANT_ID' : 'AZ_CLIENT_SECRET (or AZURE_FEDERATED_TOKEN_FILE)'} is not: a service principal needs all three`;
  }
  return {
    blobEndpoint: env['STORAGE_AZURE_BLOB_ENDPOINT']?.replace(/\/+$/, '') || undefined,
    fileEndpoint: env['STORAGE_AZURE_FILE_ENDPOINT']?.replace(/\/+$/, '') || undefined,
    accountKey: env['AZURE_STORAGE_ACCESS_KEY'] || undefined,
    servicePrincipal,
    workloadIdentity,
    credentialProblem,
    authorityHost: env['AZURE_AUTHORITY_HOST'] || undefined,
  };
}

function hf(env: Env): HfConfig {
  return {
    endpoint: (env['HF_ENDPOINT'] || 'https://huggingface.co').replace(/\/+$/, ''),
    token: env['HF_TOKEN'] || env['HUGGING_FACE_HUB_TOKEN'] || undefined,
  };
}

const HDFS_KEYS = ['HDFS_NAMENODE', 'USER_PROXY', 'HDFS_ROOTPATH', 'HDFS_USER', 'TLS_CERT', 'TLS_KEY', 'TLS_CA', 'TLS_SKIP_VERIFY', 'HEADERS', 'N_THREADS', 'KERBEROS_KEYTAB', 'KERBEROS_PRINCIPAL'] as const;
/** Keys that are PEM files in the secret (and base64 in STORAGE_CONFIG). */
const HDFS_FILE_KEYS = new Set(['TLS_CERT', 'TLS_KEY', 'TLS_CA', 'KERBEROS_KEYTAB']);

/**
 * The HDFS secret as KServe reads it: one file per key in HDFS_SECRET_DIR (default
 * /var/secrets/kserve-hdfscreds, where the webhook mounts it), or the keys of a
 * STORAGE_CONFIG of type hdfs/webhdfs (file keys base64-encoded), or plain variables.
 * Later sources win: directory, then STORAGE_CONFIG, then variables (HDFS_*, USER_PROXY,
 * KERBEROS_PRINCIPAL).
 */
function hdfsValues(env: Env, storageConfig: Readonly<Record<string, unknown>>): Map<string, string> {
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

function hdfs(env: Env, storageConfig: Readonly<Record<string, unknown>>): HdfsConfig {
  const v = hdfsValues(env, storageConfig);
  let headers: Record<string, string> = {};
  const raw = v.get('HEADERS')?.trim();
  if (raw) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      /* reported below */
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new StorageError('invalid', 'HEADERS (HDFS secret) must be a JSON object of header names to values', { uri: 'HEADERS' });
    headers = Object.fromEntries(Object.entries(parsed).map(([k, x]) => [k, String(x)]));
  }
  return {
    namenodes: (v.get('HDFS_NAMENODE') ?? '').split(';').map((s) => s.trim().replace(/\/+$/, '')).filter((s) => s !== ''),
    proxyUser: v.get('USER_PROXY')?.trim() || undefined,
    rootPath: v.get('HDFS_ROOTPATH')?.trim() || undefined,
    user: v.get('HDFS_USER')?.trim() || undefined,
    tls: { cert: v.get('TLS_CERT'), key: v.get('TLS_KEY'), ca: v.get('TLS_CA'), skipVerify: TRUE.test(v.get('TLS_SKIP_VERIFY')?.trim() ?? '') },
    headers: Object.freeze(headers),
    kerberosPrincipal: v.get('KERBEROS_PRINCIPAL')?.trim() || undefined,
  };
}

export interface StoreConfigs {
  azure: AzureConfig;
  hf: HfConfig;
  hdfs: HdfsConfig;
}

export function loadStoreConfigs(env: Env, storageConfig: Readonly<Record<string, unknown>>): StoreConfigs {
  return { azure: Object.freeze(azure(env)), hf: Object.freeze(hf(env)), hdfs: Object.freeze(hdfs(env, storageConfig)) };
}

/** Every credential these configs hold, for the output scrubber. */
export function storeSecrets(c: StoreConfigs): string[] {
  return [c.azure.accountKey, c.azure.servicePrincipal?.clientSecret, c.hf.token, c.hdfs.tls.key, ...Object.values(c.hdfs.headers)].filter((s): s is string => !!s);
}
