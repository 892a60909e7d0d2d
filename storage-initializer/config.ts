/**
 * Configuration of one storage-initializer run, read once from the environment at start
 * and passed down (providers never read process.env themselves). Anchor variable names are
 * kept; STORAGE_* variables are this project's additions. Durations are in seconds in the
 * environment and milliseconds here.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { StorageError } from './errors.js';
import { loadStoreConfigs, type StoreConfigs } from './config-stores.js';

export interface S3Config {
  /** Custom endpoint (MinIO, Ceph, moto...): path-style addressing unless virtualBucket. */
  endpoint: string | undefined;
  region: string;
  accessKeyId: string | undefined;
  secretAccessKey: string | undefined;
  sessionToken: string | undefined;
  anonymous: boolean;
  virtualBucket: boolean;
  verifySsl: boolean;
  /** PEM text of AWS_CA_BUNDLE (or the CA bundle configmap). */
  ca: string | undefined;
  /** S3_USE_ACCELERATE: the s3-accelerate endpoint (AWS only; refused with a custom endpoint). */
  accelerate: boolean;
  /**
   * IRSA / web identity: AWS_ROLE_ARN + AWS_WEB_IDENTITY_TOKEN_FILE (as EKS injects them),
   * exchanged at STS (AWS_ENDPOINT_URL_STS for a private or emulated STS).
   */
  webIdentity: { roleArn: string; tokenFile: string; sessionName: string; stsEndpoint: string | undefined } | undefined;
}

export interface GcsConfig {
  /** Emulator or private endpoint, e.g. http://127.0.0.1:4443 (STORAGE_EMULATOR_HOST or GCS_ENDPOINT). */
  endpoint: string | undefined;
  credentialsFile: string | undefined;
  anonymous: boolean;
}

export interface Config extends StoreConfigs {
  s3: S3Config;
  gcs: GcsConfig;
  /** Extra CA bundle (PEM) for https:// downloads. */
  httpCa: string | undefined;
  /** `<hostname>-headers` → parsed headers, looked up per host. */
  httpHeaders: ReadonlyMap<string, Readonly<Record<string, string>>>;
  allowPatterns: readonly string[];
  ignorePatterns: readonly string[];
  /**
   * Requests in flight at once, across all files of one URI: exactly this many when
   * `adaptiveConcurrency` is false, else the most the adaptive plan may reach
   * (concurrency.ts). Connection pools are sized for it.
   */
  concurrency: number;
  /** True unless STORAGE_CONCURRENCY (or --concurrency) gave a number. */
  adaptiveConcurrency: boolean;
  /**
   * Objects larger than this are fetched as parallel ranged GETs of at least this size;
   * exactly this size when `adaptiveParts` is false (part-plan.ts).
   */
  partSize: number;
  /** True unless STORAGE_PART_SIZE was given: part sizes follow the first part's timing. */
  adaptiveParts: boolean;
  maxAttempts: number;
  connectTimeoutMs: number;
  /** A request that delivers no byte for this long is abandoned (and retried). */
  readTimeoutMs: number;
  retryBaseMs: number;
  progressIntervalMs: number;
  limits: Limits;
}

/**
 * Bounds on what a store or an archive may make this process write or hold, checked before
 * a declared size (a listing's object size, an archive member's size or count) sizes a
 * file, a task list or a buffer. Exceeding one is StorageError('invalid' | 'unsafe_archive').
 */
export interface Limits {
  /** Bytes one URI may download in total (sum of the listed sizes, checked before any write). */
  maxBytes: number;
  /** Objects one URI may list (and so files it may create). */
  maxFiles: number;
  /** Bytes an archive may expand to. */
  maxExtractedBytes: number;
  /** Expanded bytes per archive byte, applied once the expansion passes `ratioFloorBytes`. */
  maxExtractRatio: number;
  ratioFloorBytes: number;
  /** Members an archive may have. */
  maxArchiveEntries: number;
}

type Env = Readonly<Record<string, string | undefined>>;

/** Defaults, with units. */
export const DEFAULTS = Object.freeze({
  maxConcurrency: 64, // requests: the adaptive plan's ceiling
  partSize: 16 * 1024 * 1024, // bytes: the first (timed) part, and the smallest adaptive part
  maxAttempts: 5, // per request, first try included
  connectTimeoutS: 15,
  readTimeoutS: 30,
  retryBaseMs: 250, // doubled per attempt, with jitter, capped at 8 s
  progressIntervalS: 5,
  region: 'us-east-1',
  maxBytes: 1024 ** 4, // 1 TiB per URI
  maxFiles: 1_000_000, // objects per URI
  maxExtractedBytes: 256 * 1024 ** 3, // 256 GiB per archive
  maxExtractRatio: 200, // expanded / archive bytes; real model archives stay under ~10
  ratioFloorBytes: 64 * 1024 * 1024, // the ratio is not applied below 64 MiB expanded
  maxArchiveEntries: 1_000_000,
});

const TRUE = new Set(['1', 'true', 'yes', 'on']);
const FALSE = new Set(['0', 'false', 'no', 'off']);

function bool(v: string | undefined, dflt: boolean): boolean {
  if (v === undefined || v === '') return dflt;
  const s = v.trim().toLowerCase();
  if (TRUE.has(s)) return true;
  if (FALSE.has(s)) return false;
  return dflt;
}

function num(env: Env, names: string[], dflt: number, min: number): number {
  for (const n of names) {
    const v = env[n];
    if (v === undefined || v === '') continue;
    const x = Number(v);
    if (!Number.isFinite(x) || x < min) throw new StorageError('invalid', `${n} must be a number >= ${min}, got '${v}'`, { uri: n });
    return x;
  }
  return dflt;
}

/** STORAGE_ALLOW_PATTERNS / STORAGE_IGNORE_PATTERNS: a JSON array or a comma-separated list. */
export function parsePatterns(v: string | undefined): string[] {
  if (v === undefined || v.trim() === '') return [];
  const s = v.trim();
  if (s.startsWith('[')) {
    try {
      const a: unknown = JSON.parse(s);
      if (Array.isArray(a)) return a.map(String).filter((p) => p !== '');
    } catch {
      /* fall through to the comma list */
    }
  }
  return s.split(',').map((p) => p.trim()).filter((p) => p !== '');
}

function readCa(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    throw new StorageError('invalid', `failed to find ca bundle file ${file}`, { uri: what });
  }
}

/**
 * STORAGE_CONFIG (the `storage-config` secret key) merged with STORAGE_OVERRIDE_CONFIG, mapped
 * to the AWS variables as the anchor does. Values from it win over the plain variables.
 */
function storageConfigObject(env: Env): Record<string, unknown> {
  const parse = (name: string): Record<string, unknown> => {
    const v = env[name];
    if (!v) return {};
    try {
      const o: unknown = JSON.parse(v);
      if (o && typeof o === 'object' && !Array.isArray(o)) return o as Record<string, unknown>;
    } catch {
      /* reported below */
    }
    throw new StorageError('invalid', `${name} is not a JSON object`, { uri: name });
  };
  return { ...parse('STORAGE_CONFIG'), ...parse('STORAGE_OVERRIDE_CONFIG') };
}

function storageConfigEnv(cfg: Readonly<Record<string, unknown>>): Record<string, string> {
  const out: Record<string, string> = {};
  if (cfg['type'] !== 's3') return out;
  const map: Record<string, string> = {
    endpoint_url: 'AWS_ENDPOINT_URL',
    access_key_id: 'AWS_ACCESS_KEY_ID',
    secret_access_key: 'AWS_SECRET_ACCESS_KEY',
    region: 'AWS_DEFAULT_REGION',
    ca_bundle: 'AWS_CA_BUNDLE',
    verify_ssl: 'S3_VERIFY_SSL',
    anonymous: 'awsAnonymousCredential',
  };
  for (const [k, envName] of Object.entries(map)) {
    const v = cfg[k];
    if (v !== undefined && v !== null && v !== '') out[envName] = String(v);
  }
  return out;
}

function s3Endpoint(env: Env): string | undefined {
  if (env['AWS_ENDPOINT_URL']) return env['AWS_ENDPOINT_URL'];
  const ep = env['S3_ENDPOINT'];
  if (!ep) return undefined;
  if (/^https?:\/\//i.test(ep)) return ep;
  // The webhook sets S3_ENDPOINT without a scheme and S3_USE_HTTPS=0|1 (default https).
  return `${bool(env['S3_USE_HTTPS'], true) ? 'https' : 'http'}://${ep}`;
}

function headersFromEnv(env: Env): Map<string, Record<string, string>> {
  const out = new Map<string, Record<string, string>>();
  for (const [k, v] of Object.entries(env)) {
    if (!k.endsWith('-headers') || !v) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(v);
    } catch {
      throw new StorageError('invalid', `${k} must be a JSON object of header names to values`, { uri: k });
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new StorageError('invalid', `${k} must be a JSON object of header names to values`, { uri: k });
    }
    const h: Record<string, string> = {};
    for (const [hk, hv] of Object.entries(parsed)) h[hk] = String(hv);
    out.set(k.slice(0, -'-headers'.length).toLowerCase(), h);
  }
  return out;
}

/**
 * As KServe: the legacy global endpoint with a region other than us-east-1 needs virtual
 * addressing, or S3 answers PermanentRedirect.
 */
function legacyGlobalEndpoint(env: Env): boolean {
  const region = env['AWS_DEFAULT_REGION'] || env['AWS_REGION'];
  return env['AWS_ENDPOINT_URL'] === 'https://s3.amazonaws.com' && region !== undefined && region !== '' && region !== 'us-east-1';
}

function webIdentity(env: Env): S3Config['webIdentity'] {
  const tokenFile = env['AWS_WEB_IDENTITY_TOKEN_FILE'];
  const roleArn = env['AWS_ROLE_ARN'];
  if (!tokenFile && !roleArn) return undefined;
  if (!tokenFile || !roleArn) {
    throw new StorageError('invalid', `${tokenFile ? 'AWS_WEB_IDENTITY_TOKEN_FILE' : 'AWS_ROLE_ARN'} is set but ${tokenFile ? 'AWS_ROLE_ARN' : 'AWS_WEB_IDENTITY_TOKEN_FILE'} is not: web identity (IRSA) needs both`, { uri: 'AWS_WEB_IDENTITY_TOKEN_FILE' });
  }
  return { roleArn, tokenFile, sessionName: env['AWS_ROLE_SESSION_NAME'] || `kserve-ts-storage-initializer-${process.pid}`, stsEndpoint: env['AWS_ENDPOINT_URL_STS'] || undefined };
}

/** STORAGE_CONCURRENCY: a number of requests (fixed), or `auto`/unset (adaptive). */
function concurrency(env: Env): Pick<Config, 'concurrency' | 'adaptiveConcurrency'> {
  const v = env['STORAGE_CONCURRENCY']?.trim();
  if (!v || v.toLowerCase() === 'auto') return { concurrency: DEFAULTS.maxConcurrency, adaptiveConcurrency: true };
  return { concurrency: Math.floor(num(env, ['STORAGE_CONCURRENCY'], DEFAULTS.maxConcurrency, 1)), adaptiveConcurrency: false };
}

export function loadConfig(rawEnv: Env): Config {
  const storageConfig = storageConfigObject(rawEnv);
  const env: Env = { ...rawEnv, ...storageConfigEnv(storageConfig) };
  const verifySsl = bool(env['S3_VERIFY_SSL'], true);
  let s3Ca: string | undefined;
  if (env['AWS_CA_BUNDLE']) s3Ca = readCa(env['AWS_CA_BUNDLE'], 'AWS_CA_BUNDLE');
  else if (env['CA_BUNDLE_CONFIGMAP_NAME']) {
    s3Ca = readCa(path.join(env['CA_BUNDLE_VOLUME_MOUNT_POINT'] || '/etc/ssl/custom-certs', 'cabundle.crt'), 'CA_BUNDLE_CONFIGMAP_NAME');
  }
  const httpCaFile = env['REQUESTS_CA_BUNDLE'] || env['SSL_CERT_FILE'] ||
    (env['CA_BUNDLE_CONFIGMAP_NAME'] ? path.join(env['CA_BUNDLE_VOLUME_MOUNT_POINT'] || '/etc/ssl/custom-certs', 'cabundle.crt') : undefined);
  const gcsEndpoint = env['GCS_ENDPOINT'] || (env['STORAGE_EMULATOR_HOST']
    ? (/^https?:\/\//.test(env['STORAGE_EMULATOR_HOST']) ? env['STORAGE_EMULATOR_HOST'] : `http://${env['STORAGE_EMULATOR_HOST']}`)
    : undefined);

  const config: Config = {
    s3: {
      endpoint: s3Endpoint(env),
      region: env['AWS_DEFAULT_REGION'] || env['AWS_REGION'] || DEFAULTS.region,
      accessKeyId: env['AWS_ACCESS_KEY_ID'] || undefined,
      secretAccessKey: env['AWS_SECRET_ACCESS_KEY'] || undefined,
      sessionToken: env['AWS_SESSION_TOKEN'] || undefined,
      anonymous: bool(env['awsAnonymousCredential'], false),
      virtualBucket: bool(env['S3_USER_VIRTUAL_BUCKET'], false) || legacyGlobalEndpoint(env),
      verifySsl,
      ca: s3Ca,
      accelerate: bool(env['S3_USE_ACCELERATE'], false),
      webIdentity: webIdentity(env),
    },
    ...loadStoreConfigs(env, storageConfig),
    gcs: {
      endpoint: gcsEndpoint?.replace(/\/+$/, ''),
      credentialsFile: env['GOOGLE_APPLICATION_CREDENTIALS'] || undefined,
      anonymous: bool(env['GCS_ANONYMOUS'], false),
    },
    httpCa: httpCaFile ? readCa(httpCaFile, 'REQUESTS_CA_BUNDLE/SSL_CERT_FILE') : undefined,
    httpHeaders: headersFromEnv(env),
    allowPatterns: Object.freeze(parsePatterns(env['STORAGE_ALLOW_PATTERNS'])),
    ignorePatterns: Object.freeze(parsePatterns(env['STORAGE_IGNORE_PATTERNS'])),
    ...concurrency(env),
    partSize: Math.floor(num(env, ['STORAGE_PART_SIZE'], DEFAULTS.partSize, 1024)),
    adaptiveParts: !env['STORAGE_PART_SIZE'],
    maxAttempts: Math.floor(num(env, ['STORAGE_MAX_ATTEMPTS', 'S3_MAX_ATTEMPTS'], DEFAULTS.maxAttempts, 1)),
    connectTimeoutMs: num(env, ['STORAGE_CONNECT_TIMEOUT', 'S3_CONNECT_TIMEOUT'], DEFAULTS.connectTimeoutS, 0.001) * 1000,
    readTimeoutMs: num(env, ['STORAGE_READ_TIMEOUT', 'S3_READ_TIMEOUT'], DEFAULTS.readTimeoutS, 0.001) * 1000,
    retryBaseMs: num(env, ['STORAGE_RETRY_BASE_MS'], DEFAULTS.retryBaseMs, 0),
    progressIntervalMs: num(env, ['STORAGE_PROGRESS_INTERVAL'], DEFAULTS.progressIntervalS, 0.01) * 1000,
    limits: Object.freeze({
      maxBytes: num(env, ['STORAGE_MAX_BYTES'], DEFAULTS.maxBytes, 0),
      maxFiles: Math.floor(num(env, ['STORAGE_MAX_FILES'], DEFAULTS.maxFiles, 1)),
      maxExtractedBytes: num(env, ['STORAGE_MAX_EXTRACTED_BYTES'], DEFAULTS.maxExtractedBytes, 0),
      maxExtractRatio: num(env, ['STORAGE_MAX_EXTRACT_RATIO'], DEFAULTS.maxExtractRatio, 1),
      ratioFloorBytes: num(env, ['STORAGE_EXTRACT_RATIO_FLOOR'], DEFAULTS.ratioFloorBytes, 0),
      maxArchiveEntries: Math.floor(num(env, ['STORAGE_MAX_ARCHIVE_ENTRIES'], DEFAULTS.maxArchiveEntries, 1)),
    }),
  };
  Object.freeze(config.s3);
  Object.freeze(config.gcs);
  return Object.freeze(config);
}
