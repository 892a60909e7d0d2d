/** Whole-file checksums for verification after parallel ranged writes. */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

const CRC32C_TABLE = (() => {
  const t = new Int32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    t[i] = c;
  }
  return t;
})();

/** CRC32C (Castagnoli) of a file, base64 big-endian as GCS reports it. */
export async function fileCrc32c(file: string): Promise<string> {
  let crc = ~0;
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    for (let i = 0; i < chunk.length; i++) crc = CRC32C_TABLE[(crc ^ chunk[i]!) & 0xff]! ^ (crc >>> 8);
  }
  const out = Buffer.alloc(4);
  out.writeUInt32BE(~crc >>> 0);
  return out.toString('base64');
}

export async function fileMd5(file: string): Promise<string> {
  const h = createHash('md5');
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) h.update(chunk);
  return h.digest('hex');
}
