/**
 * `storage-initializer <src_uri> <dest_path> [<src_uri> <dest_path> ...]` — the init
 * container that puts models into /mnt/models. Pairs run one after another (as the
 * anchor); each is atomic. Exit 0 when every pair is in place, 1 with one error line
 * otherwise.
 */
import { mkdir } from 'node:fs/promises';
import { FlagError, type FlagSpec, parseFlags } from '../cli/flags.js';
import { loadConfig } from './config.js';
import { storeSecrets } from './config-stores.js';
import { StorageError } from './errors.js';
import { download } from './download.js';
import type { Config } from './config.js';
import { Scrubber, redact, uriSecrets } from './redact.js';
import { PROVIDER_LOADERS } from './providers/index.js';
import { ProviderSet, registerProvider } from './registry.js';
import type { Log } from './progress.js';

for (const [scheme, load] of Object.entries(PROVIDER_LOADERS)) registerProvider(scheme, load);

export const USAGE = `Usage: storage-initializer [--cache_dir DIR] [--concurrency N|auto] <src_uri> <dest_path> [<src_uri> <dest_path> ...]

Downloads each source into its destination folder (created if missing), atomically.
Sources: s3://bucket/path, gs://bucket/path, https://account.blob.core.windows.net/container/path,
hf://owner/model[:revision], hdfs://path or webhdfs://path,
http(s)://host/file[.zip|.tar|.tar.gz|.tgz|.tar.bz2|.tar.xz], file:///path or a local path. --cache_dir (or STORAGE_CACHE_DIR): a content-addressed cache
shared by runs on one node. --concurrency (or STORAGE_CONCURRENCY): requests in flight, default
auto (measured). Configuration is read from the environment (see README.md,
"Storage initializer").`;

const FLAGS: readonly FlagSpec[] = [
  { name: 'cache_dir', kind: 'string', placeholder: 'DIR', help: 'content-addressed cache shared by runs on one node (env STORAGE_CACHE_DIR)' },
  { name: 'concurrency', kind: 'string', placeholder: 'N|auto', help: 'requests in flight: a number, or auto (the default: chosen from the measured rate; env STORAGE_CONCURRENCY)' },
];

/** Every credential the config holds, for the output scrubber. */
function configSecrets(config: Config): string[] {
  const out = [config.s3.accessKeyId, config.s3.secretAccessKey, config.s3.sessionToken, ...storeSecrets(config)].filter((s): s is string => !!s);
  // User info or a token in a configured endpoint (AWS_ENDPOINT_URL, HF_ENDPOINT...).
  for (const ep of [config.s3.endpoint, config.gcs.endpoint, config.hf.endpoint, config.azure.blobEndpoint, config.azure.fileEndpoint, ...config.hdfs.namenodes]) {
    if (ep) out.push(...uriSecrets(ep));
  }
  for (const h of config.httpHeaders.values()) {
    for (const v of Object.values(h)) out.push(v, ...v.split(/\s+/).filter((w) => w.length >= 8));
  }
  return out;
}

const stderrLog: Log = (line) => process.stderr.write(`storage-initializer: ${line}\n`);

export async function storageInitializer(argv: string[], env: NodeJS.ProcessEnv, log: Log = stderrLog): Promise<number> {
  // --cache_dir DIR / --cache_dir=DIR / --cache-dir anywhere (or STORAGE_CACHE_DIR); the rest are pairs.
  let flags;
  try {
    flags = parseFlags(argv, FLAGS, { positionals: 'collect' });
  } catch (err) {
    if (!(err instanceof FlagError)) throw err;
    process.stderr.write(`storage-initializer: ${err.message}\n${USAGE}\n`);
    return 1;
  }
  if (flags.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const cacheDir = (flags.given('cache_dir') ? flags.string('cache_dir') : env['STORAGE_CACHE_DIR']) || undefined;
  argv = [...flags.positionals];
  if (argv.length < 2 || argv.length % 2 !== 0) {
    process.stderr.write(`storage-initializer: expected <src_uri> <dest_path> pairs, got ${argv.length} argument${argv.length === 1 ? '' : 's'}\n${USAGE}\n`);
    return 1;
  }
  let current = '';
  let providers: ProviderSet | undefined;
  const uris = argv.filter((_, i) => i % 2 === 0);
  // Until the config is read, only the URIs' own secrets are known.
  let scrubber = new Scrubber(uris, []);
  const out: Log = (line) => log(scrubber.scrub(line));
  try {
    // The flag wins over the variable; both are read by the one config parser.
    const config = loadConfig(flags.given('concurrency') ? { ...env, STORAGE_CONCURRENCY: flags.string('concurrency') } : env);
    scrubber = new Scrubber(uris, configSecrets(config));
    providers = new ProviderSet(config);
    const started = performance.now();
    let bytes = 0;
    let files = 0;
    for (let i = 0; i < argv.length; i += 2) {
      const uri = argv[i]!;
      const dest = argv[i + 1]!;
      current = redact(uri);
      await mkdir(dest, { recursive: true });
      const provider = await providers.for(uri);
      const s = await download(uri, dest, provider, { config, cacheDir, log: out });
      bytes += s.bytes;
      files += s.files;
    }
    if (argv.length > 2) out(`all ${argv.length / 2} sources downloaded: ${bytes} bytes, ${files} files in ${((performance.now() - started) / 1000).toFixed(2)}s`);
    return 0;
  } catch (err) {
    if (err instanceof StorageError) {
      if (err.uri !== undefined) err.uri = redact(err.uri);
      else err.uri = current;
      out(`error: ${err.line().replaceAll(/[\r\n]+/g, ' ')}`);
    } else {
      out(`error: ${current || '(setup)'}: ${(err instanceof Error ? err.message : String(err)).replaceAll(/[\r\n]+/g, ' ')}`);
    }
    return 1;
  } finally {
    providers?.close();
  }
}
