/**
 * Streaming decompressors for compressed tar archives, one per kind (a registry, so a new
 * compression is one row). Each returns a Duplex that the tar parser reads from; the archive
 * module bounds what comes out (Budget), so a decompression bomb stops at the limit whatever
 * the format. gzip is Node's zlib; bzip2 is unbzip2-stream (MIT, pure JS); xz is
 * xz-decompress (MIT, the xz-embedded decoder compiled to WebAssembly, shipped in the
 * package).
 */
import { Duplex, PassThrough, Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { createRequire } from 'node:module';

export type TarCompression = 'tgz' | 'tbz2' | 'txz';

const require = createRequire(import.meta.url);

/** unbzip2-stream is a classic `through` stream: wrapped so errors and end follow Node's rules. */
function bunzip2(): Duplex {
  const unbzip2 = require('unbzip2-stream') as () => NodeJS.ReadWriteStream;
  const inner = unbzip2();
  const out = new PassThrough();
  const input = new PassThrough();
  input.pipe(inner);
  inner.on('data', (c: Buffer) => {
    if (!out.write(c)) inner.pause();
  });
  out.on('drain', () => inner.resume());
  inner.on('end', () => out.end());
  inner.on('error', (e: unknown) => out.destroy(e instanceof Error ? e : new Error(String(e))));
  return Duplex.from({ writable: input, readable: out });
}

function unxz(): Duplex {
  const input = new PassThrough();
  // Loaded on use: its WebAssembly module is instantiated at import time.
  const { XzReadableStream } = require('xz-decompress') as { XzReadableStream: new (s: ReadableStream<Uint8Array>) => ReadableStream<Uint8Array> };
  const web = new XzReadableStream(Readable.toWeb(input));
  return Duplex.from({ writable: input, readable: Readable.fromWeb(web) });
}

const DECOMPRESSORS: Readonly<Record<TarCompression, () => Duplex>> = Object.freeze({
  tgz: () => createGunzip(),
  tbz2: bunzip2,
  txz: unxz,
});

/** The format's own name, for messages. */
export const COMPRESSION_NAME: Readonly<Record<TarCompression, string>> = Object.freeze({ tgz: 'gzip', tbz2: 'bzip2', txz: 'xz' });

export function decompressor(kind: TarCompression): Duplex {
  return DECOMPRESSORS[kind]();
}
