/**
 * `storage-initializer <src_uri> <dest_path> [<src_uri> <dest_path> ...]` — the init
 * container that puts models into /mnt/models. Pairs run one after another (as the
 * anchor); each is atomic. Exit 0 when every pair is in place, 1 with one error line
 * otherwise.
 */
import { mkdir } from 'node:fs/promises';
import { FlagError, type FlagSpec, parseFlags } from '../cli/flags.js';
import { ARCHIVE_ENDINGS } from './archive.js';
import { cacheSettings } from './cache-settings.js';
import { configSecrets, loadConfig } from './config.js';
import { StorageError } from './errors.js';
import { download } from './download.js';
import { Scrubber, redact } from './redact.js';
import { ProviderSet } from './registry.js';
import type { Log } from './progress.js';
import { DOWNLOADED_SCHEME_NAMES, STORAGE_HOST_ROUTES, STORAGE_SCHEMES } from './schemes.js';

/** `text` broken into lines of at most `width` characters at spaces. */
function wrap(text: string, width = 96): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line].join('\n');
}

/** What a source can be, from the scheme table (schemes.ts): every scheme and host route it downloads. */
const SOURCES = wrap(
  `Sources: ${[...DOWNLOADED_SCHEME_NAMES.map((s) => STORAGE_SCHEMES[s].example), ...Object.values(STORAGE_HOST_ROUTES).map((r) => r.example)].join(', ')}, ` +
    `or a local path. A single archive (${ARCHIVE_ENDINGS.join(' ')}) is unpacked. ${STORAGE_SCHEMES.pvc.example} is not downloaded: the pod webhook mounts the claim.`,
);

export const USAGE = `Usage: storage-initializer [--cache_dir DIR [--cache_max_bytes SIZE]] [--concurrency N|auto] <src_uri> <dest_path> [<src_uri> <dest_path> ...]

Downloads each source into its destination folder (created if missing), atomically.
${SOURCES}
--cache_dir (or STORAGE_CACHE_DIR): a content-addressed cache shared by runs on one node.
--cache_max_bytes (or STORAGE_CACHE_MAX_BYTES): the cache's bound, e.g. 20Gi; least recently used entries go.
--concurrency (or STORAGE_CONCURRENCY): requests in flight, default auto (measured).
Configuration is read from the environment (see README.md, "Storage initializer").`;

const FLAGS: readonly FlagSpec[] = [
  { name: 'cache_dir', kind: 'string', placeholder: 'DIR', help: 'content-addressed cache shared by runs on one node (env STORAGE_CACHE_DIR)' },
  {
    name: 'cache_max_bytes',
    kind: 'string',
    placeholder: 'SIZE',
    help: "the cache's bound, a quantity such as 20Gi: least recently used entries go beyond it (env STORAGE_CACHE_MAX_BYTES; default unbounded)",
  },
  {
    name: 'concurrency',
    kind: 'string',
    placeholder: 'N|auto',
    help: 'requests in flight: a number, or auto (the default: chosen from the measured rate; env STORAGE_CONCURRENCY)',
  },
];

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
    const cache = cacheSettings(
      {
        dir: flags.given('cache_dir') ? flags.string('cache_dir') : undefined,
        maxBytes: flags.given('cache_max_bytes') ? flags.string('cache_max_bytes') : undefined,
        maxBytesFlag: 'cache_max_bytes',
      },
      env,
    );
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
      const s = await download(uri, dest, provider, { config, cache, log: out });
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
