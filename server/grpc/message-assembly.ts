/**
 * How received gRPC messages are put together from the DATA chunks they arrive in.
 *
 * grpc-js keeps a slice of every chunk and concatenates them when the message is complete.
 * For a 588 KiB raw tensor that is 37+ slices and one fresh buffer, and because the tensor
 * bytes then start at an arbitrary offset, decodeRawTensor copied them once more into a
 * second, zero-filled buffer: two fresh 588 KiB ArrayBuffers per call, and the external
 * memory pressure behind the main thread's mark-compacts (benchmarks/RESULTS.md,
 * "Performance round 3").
 *
 * Here each message is copied once, into one buffer of its own (taken from the pool of
 * large request buffers, protocols/buffer-pool.ts, and marked detachable: nothing else
 * shares it), when its last byte has arrived: the declared length is never trusted for an allocation (a client that declares
 * 8 MiB and sends 1 byte holds 1 byte, counted by the message budget, as before). Until then
 * the chunks are kept as views, as grpc-js kept them. The buffer is offset so that the
 * first large length-delimited field of the message (for ModelInfer, `raw_input_contents`)
 * starts on an ALIGN-byte boundary, which lets the raw tensor be a view instead of a copy.
 *
 * Installed over grpc-js's StreamDecoder (an internal, feature-detected like flow-control.ts):
 * the method keeps its contract (framed messages out, compression flag and length in front,
 * the same error for a message over the limit), so both grpc-js's server and its client
 * (the transformer's predictor client) use it.
 */
import { createRequire } from 'node:module';
import { markDetachable } from '../../protocols/buffer-ownership.js';
import { POOLED_MIN, takeBuffer } from '../../protocols/buffer-pool.js';

/** Raw tensor bytes start on this boundary: enough for every element type and for SIMD loads. */
export const ALIGN = 64;
/** Bytes before the framed message in its buffer (0 ≤ pad < ALIGN). */
export const MAX_PAD = ALIGN - 1;
/**
 * Smaller messages come from Node's shared Buffer pool, as grpc-js's did: a fresh
 * ArrayBuffer per small call costs more than it saves, and nothing in them is worth aligning.
 */
export const OWN_BUFFER_MIN = POOLED_MIN;
/** A length-delimited field at least this long is the one aligned (a tensor, not a name). */
const LARGE_FIELD = 1024;
const FRAME_HEADER = 5;

/** Reads a varint at `p`; undefined when it runs past `end` or is longer than 5 bytes (a length). */
function varint(b: Uint8Array, p: number, end: number): { value: number; next: number } | undefined {
  let value = 0;
  for (let shift = 0, q = p; q < end && shift < 35; shift += 7, q++) {
    const c = b[q] as number;
    value += (c & 0x7f) * 2 ** shift;
    if (c < 0x80) return { value, next: q + 1 };
  }
  return undefined;
}

/**
 * The offset, within the message, of the data of its first top-level length-delimited field
 * of LARGE_FIELD bytes or more, if the visible `prefix` reaches it. Only a hint: a prefix
 * that is not valid protobuf yields undefined (the decoder judges the message later).
 */
export function largeFieldOffset(prefix: Uint8Array): number | undefined {
  const end = prefix.byteLength;
  let p = 0;
  for (let fields = 0; p < end && fields < 64; fields++) {
    const tag = varint(prefix, p, end);
    if (tag === undefined) return undefined;
    p = tag.next;
    switch (tag.value & 7) {
      case 0: {
        const v = varint(prefix, p, prefix.byteLength);
        if (v === undefined) return undefined;
        p = v.next;
        break;
      }
      case 1:
        p += 8;
        break;
      case 5:
        p += 4;
        break;
      case 2: {
        const len = varint(prefix, p, end);
        if (len === undefined) return undefined;
        if (len.value >= LARGE_FIELD) return len.next;
        p = len.next + len.value;
        break;
      }
      default:
        return undefined;
    }
  }
  return undefined;
}

/** The body's first bytes, contiguous, enough to find the large field in any real message. */
const SCAN_PREFIX = 4096;

function scanPrefix(chunks: readonly Buffer[]): Uint8Array {
  const first = chunks[0] as Buffer;
  if (first.byteLength >= SCAN_PREFIX || chunks.length === 1) return first;
  const some: Buffer[] = [];
  let n = 0;
  for (const c of chunks) {
    if (n >= SCAN_PREFIX) break;
    some.push(c);
    n += c.byteLength;
  }
  return Buffer.concat(some, Math.min(n, SCAN_PREFIX));
}

/** The framed message (header, then body) in one buffer, its large field aligned. */
function assemble(header: Buffer, size: number, chunks: readonly Buffer[]): Buffer {
  const total = FRAME_HEADER + size;
  let framed: Buffer;
  if (size < OWN_BUFFER_MIN) {
    framed = Buffer.allocUnsafe(total);
  } else {
    const at = largeFieldOffset(scanPrefix(chunks));
    const pad = at === undefined ? 0 : (ALIGN - ((FRAME_HEADER + at) % ALIGN)) % ALIGN;
    // A buffer of its own from the pool (protocols/buffer-pool.ts): the request may move it
    // to the model's worker, which hands it back for the next message of its size.
    const buffer = takeBuffer(pad + total);
    markDetachable(buffer);
    framed = Buffer.from(buffer, pad, total);
  }
  header.copy(framed, 0);
  let at = FRAME_HEADER;
  for (const c of chunks) {
    c.copy(framed, at);
    at += c.byteLength;
  }
  return framed;
}

/**
 * Framed messages out of a stream's DATA chunks, each copied once into a buffer of its own
 * when its last byte has arrived (see the file comment). Used by grpc-js's StreamDecoder
 * (installed below) and by the calls served below grpc-js (direct-unary.ts).
 */
export class MessageAssembler {
  /** Compression flag and big-endian length, as received. */
  readonly #header = Buffer.alloc(FRAME_HEADER);
  #headerFilled = 0;
  /** The body's bytes so far, as views on the received chunks. */
  #chunks: Buffer[] = [];
  #received = 0;
  #size = 0;

  /** `maxLength`: the largest body accepted (-1: no limit); larger ones throw when declared. */
  constructor(private readonly maxLength: number) {}

  /** True while part of a message (or of its header) has arrived and the rest has not. */
  get partial(): boolean {
    return this.#headerFilled > 0;
  }

  write(data: Buffer): Buffer[] {
    const out: Buffer[] = [];
    let p = 0;
    while (p < data.length) {
      if (this.#headerFilled < FRAME_HEADER) {
        const n = Math.min(FRAME_HEADER - this.#headerFilled, data.length - p);
        data.copy(this.#header, this.#headerFilled, p, p + n);
        this.#headerFilled += n;
        p += n;
        if (this.#headerFilled < FRAME_HEADER) break;
        this.#size = this.#header.readUInt32BE(1);
        if (this.maxLength !== -1 && this.#size > this.maxLength) {
          throw new Error(`Received message larger than max (${this.#size} vs ${this.maxLength})`);
        }
        this.#chunks = [];
        this.#received = 0;
        if (this.#size === 0) {
          out.push(Buffer.from(this.#header));
          this.#headerFilled = 0;
          continue;
        }
        if (p === data.length) break;
      }
      const n = Math.min(this.#size - this.#received, data.length - p);
      this.#chunks.push(data.subarray(p, p + n));
      this.#received += n;
      p += n;
      if (this.#received === this.#size) {
        out.push(assemble(this.#header, this.#size, this.#chunks));
        this.#chunks = [];
        this.#headerFilled = 0;
      }
    }
    return out;
  }
}

interface DecoderInternals {
  readonly maxReadMessageLength: number;
}

const assemblers = new WeakMap<object, MessageAssembler>();

/** StreamDecoder.write with one copy per message into a buffer of its own (see the file comment). */
function write(this: DecoderInternals, data: Buffer): Buffer[] {
  let a = assemblers.get(this);
  if (a === undefined) {
    a = new MessageAssembler(this.maxReadMessageLength);
    assemblers.set(this, a);
  }
  return a.write(data);
}

interface StreamDecoderModule {
  StreamDecoder?: { prototype: { write?: unknown; maxReadMessageLength?: unknown } };
}

let installed: boolean | undefined;

/**
 * Puts `write` in place of grpc-js's StreamDecoder's, once per process. False (and grpc-js's
 * own assembly stays) if this grpc-js release does not have that internal where expected.
 */
export function installMessageAssembly(): boolean {
  if (installed !== undefined) return installed;
  installed = false;
  try {
    const require = createRequire(import.meta.url);
    const mod = require('@grpc/grpc-js/build/src/stream-decoder.js') as StreamDecoderModule;
    const proto = mod.StreamDecoder?.prototype;
    if (proto !== undefined && typeof proto.write === 'function') {
      proto.write = write;
      installed = true;
    }
  } catch {
    // Moved or renamed in this grpc-js release: its own decoder stays.
  }
  return installed;
}
