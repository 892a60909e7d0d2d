/**
 * REST over HTTPS, as KServe's `--ssl_certfile` / `--ssl_keyfile` (or KSERVE_TLS_CERT_FILE /
 * KSERVE_TLS_KEY_FILE): the files are read once at start-up (a missing or unreadable one
 * fails the start with its path), then watched: a Kubernetes Secret or cert-manager renewal
 * replaces them in place (through a symlink swap, which stat-polling follows and inotify on
 * the old inode would not), and new connections get the new pair while open ones keep theirs.
 * A half-written or mismatched pair is logged and the previous one kept.
 */
import { readFileSync, unwatchFile, watchFile } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { type Server as HttpsServer, type ServerOptions, createServer } from 'node:https';
import type { RequestListener } from 'node:http';
import { createSecureContext } from 'node:tls';
import type { Logger } from 'pino';

export interface TlsFiles {
  readonly certFile: string;
  readonly keyFile: string;
}

/** How often the files are stat-ed for a renewal (ms). */
const WATCH_INTERVAL_MS = 5000;

function readPair(files: TlsFiles): { cert: Buffer; key: Buffer } {
  const read = (file: string, what: string) => {
    try {
      return readFileSync(file);
    } catch (e) {
      throw new Error(`cannot read the TLS ${what} ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`, { cause: e });
    }
  };
  return { cert: read(files.certFile, 'certificate (--ssl_certfile)'), key: read(files.keyFile, 'key (--ssl_keyfile)') };
}

/**
 * An HTTPS server with `options` (the HTTP ones: header size, timeouts) and the pair, for
 * fastify's serverFactory. Throws when the pair cannot be read or does not match.
 */
export function createHttpsServer(files: TlsFiles, options: ServerOptions, handler: RequestListener): HttpsServer {
  const pair = readPair(files);
  // createServer would accept a mismatched pair and fail every handshake; fail the start.
  createSecureContext(pair);
  return createServer({ ...options, ...pair }, handler);
}

/**
 * Re-reads the pair whenever either file changes and installs it for new connections.
 * Returns the function that stops watching (the server's close hook calls it).
 */
export function watchTlsFiles(server: HttpsServer, files: TlsFiles, logger: Logger): () => void {
  let reloading: Promise<void> | undefined;
  const reload = () => {
    reloading ??= (async () => {
      try {
        const [cert, key] = await Promise.all([readFile(files.certFile), readFile(files.keyFile)]);
        createSecureContext({ cert, key });
        server.setSecureContext({ cert, key });
        logger.info({ certFile: files.certFile }, 'TLS certificate reloaded');
      } catch (err) {
        logger.warn({ err: (err as Error).message, certFile: files.certFile }, 'TLS certificate not reloaded; keeping the previous one');
      }
    })().finally(() => {
      reloading = undefined;
    });
  };
  const onChange = (curr: { mtimeMs: number; ino: number }, prev: { mtimeMs: number; ino: number }) => {
    if (curr.mtimeMs !== prev.mtimeMs || curr.ino !== prev.ino) reload();
  };
  // Polling keeps no handle that holds the process open once the server has closed.
  for (const f of [files.certFile, files.keyFile]) watchFile(f, { interval: WATCH_INTERVAL_MS, persistent: false }, onChange);
  return () => {
    for (const f of [files.certFile, files.keyFile]) unwatchFile(f, onChange);
  };
}
