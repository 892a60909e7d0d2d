/**
 * Raw tensor encoding shared by the V2 binary data extension and gRPC `raw_*_contents`:
 * little-endian, row-major, native element width; BOOL one byte; each BYTES element a
 * 4-byte little-endian length followed by its bytes.
 *
 * Decoding takes views on the received buffer where alignment allows and copies once where
 * it does not, so large tensors never see per-element work. Hosts are little-endian
 * (x86-64, arm64), which is what makes the views valid.
 */
import { type DatatypeInfo, type TensorData, elementCount } from './datatypes.js';
import { errors } from './errors.js';

/** Decodes one raw tensor. `bytes` may be a view into a larger transport buffer. */
export function decodeRawTensor(name: string, info: DatatypeInfo, shape: readonly number[], bytes: Uint8Array): TensorData {
  const count = elementCount(shape);
  if (info.arrayType === undefined) return decodeRawBytes(name, count, bytes);
  const expected = count * info.byteSize;
  if (bytes.byteLength !== expected) {
    throw errors.invalidInput(`input '${name}': expected ${expected} bytes of ${info.name} data for shape [${shape.join(',')}] but got ${bytes.byteLength}`);
  }
  if (bytes.byteOffset % info.byteSize === 0) {
    return new info.arrayType(bytes.buffer, bytes.byteOffset, count);
  }
  const aligned = new Uint8Array(expected);
  aligned.set(bytes);
  return new info.arrayType(aligned.buffer, 0, count);
}

function decodeRawBytes(name: string, count: number, bytes: Uint8Array): Uint8Array[] {
  // Each element takes at least its 4-byte length prefix: a count the bytes cannot hold is
  // refused before it sizes the element list.
  if (count > bytes.byteLength / 4) {
    throw errors.invalidInput(`input '${name}': shape declares ${count} BYTES elements but ${bytes.byteLength} bytes hold at most ${Math.floor(bytes.byteLength / 4)}`);
  }
  const out: Uint8Array[] = new Array<Uint8Array>(count);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let off = 0;
  for (let i = 0; i < count; i++) {
    if (off + 4 > bytes.byteLength) {
      throw errors.invalidInput(`input '${name}': BYTES data ends after ${i} of ${count} elements (truncated length prefix)`);
    }
    const len = view.getUint32(off, true);
    off += 4;
    if (off + len > bytes.byteLength) {
      throw errors.invalidInput(`input '${name}': BYTES element ${i} declares ${len} bytes but only ${bytes.byteLength - off} remain`);
    }
    out[i] = bytes.subarray(off, off + len);
    off += len;
  }
  if (off !== bytes.byteLength) {
    throw errors.invalidInput(`input '${name}': ${bytes.byteLength - off} unexpected trailing bytes after ${count} BYTES elements`);
  }
  return out;
}

/** Byte length of the raw encoding of `data`. */
export function rawByteLength(data: TensorData): number {
  if (!Array.isArray(data)) return data.byteLength;
  let n = 0;
  for (const el of data) n += 4 + el.byteLength;
  return n;
}

/** Raw encoding of `data`: a view for fixed-size types, a new buffer for BYTES. */
export function encodeRawTensor(data: TensorData): Uint8Array {
  if (!Array.isArray(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const out = new Uint8Array(rawByteLength(data));
  const view = new DataView(out.buffer);
  let off = 0;
  for (const el of data) {
    view.setUint32(off, el.byteLength, true);
    out.set(el, off + 4);
    off += 4 + el.byteLength;
  }
  return out;
}
