/**
 * TFRecord framing (TensorFlow's `io/record_reader`): each record is a uint64 little-endian
 * length, the masked CRC32C of those 8 bytes, the data, and the masked CRC32C of the data.
 * Both CRCs are checked, as TensorFlow's reader does, so a damaged or truncated file fails
 * with the record's number and what is wrong instead of handing garbage to a decoder.
 * Uncompressed files only (TF Serving's warm-up reader opens them without compression).
 */
import { crc32c } from '../../storage-initializer/checksum.js';

const HEADER = 12;
const FOOTER = 4;

/** TensorFlow masks stored CRCs so that a CRC of data holding CRCs is not degenerate. */
export function maskedCrc32c(bytes: Uint8Array): number {
  const crc = crc32c(bytes);
  return (((crc >>> 15) | (crc << 17)) + 0xa282ead8) >>> 0;
}

/**
 * The records of `file`, views on its buffer. More than `max` records is an error naming the
 * limit (the records are not decoded past it); `where` names the file in every error.
 */
export function readTfRecords(file: Buffer, max: number, where: string): Buffer[] {
  const out: Buffer[] = [];
  let pos = 0;
  while (pos < file.length) {
    const n = out.length;
    if (n === max) throw new Error(`${where}: more than ${max} records; TF Serving's limit is ${max}`);
    if (file.length - pos < HEADER) throw new Error(`${where}: record ${n} is truncated: ${file.length - pos} bytes left, its header needs ${HEADER}`);
    if (file.readUInt32LE(pos + 8) !== maskedCrc32c(file.subarray(pos, pos + 8))) throw new Error(`${where}: record ${n}: the CRC of its length does not match (corrupted file)`);
    const length = file.readBigUInt64LE(pos);
    const left = file.length - pos - HEADER - FOOTER;
    if (length > BigInt(left)) throw new Error(`${where}: record ${n} is truncated: it declares ${length} bytes, ${Math.max(0, left)} are left`);
    const start = pos + HEADER;
    const end = start + Number(length);
    const data = file.subarray(start, end);
    if (file.readUInt32LE(end) !== maskedCrc32c(data)) throw new Error(`${where}: record ${n}: the CRC of its data does not match (corrupted file)`);
    out.push(data);
    pos = end + FOOTER;
  }
  return out;
}
