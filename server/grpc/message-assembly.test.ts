/**
 * The message assembly that replaces grpc-js's StreamDecoder.write: the same framed messages
 * out of the same bytes however they are chunked (checked against grpc-js's own decoder),
 * the same refusal of a message over the limit, nothing allocated on a declared length alone,
 * one buffer per large message with its raw tensor field aligned, and a raw tensor that
 * decodes as a view on that buffer.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { type DatatypeInfo, datatypeInfo } from '../../protocols/datatypes.js';
import { decodeRawTensor } from '../../protocols/raw-tensor.js';
import { encodeModelInferRequest } from '../../protocols/grpc/wire/encode-infer.js';
import { isDetachable } from '../../protocols/buffer-ownership.js';
import { sizeClass } from '../../protocols/buffer-pool.js';
import { ALIGN, MAX_PAD, OWN_BUFFER_MIN, installMessageAssembly, largeFieldOffset } from './message-assembly.js';

interface Decoder {
  write(data: Buffer): Buffer[];
}
type DecoderClass = new (max: number) => Decoder;

const require = createRequire(import.meta.url);
const mod = require('@grpc/grpc-js/build/src/stream-decoder.js') as { StreamDecoder: DecoderClass };
/** grpc-js's own write, kept before ours is installed, as the reference. */
const originalWrite = mod.StreamDecoder.prototype.write;
const installed = installMessageAssembly();
const FP32 = datatypeInfo('FP32') as DatatypeInfo;

function referenceDecoder(max: number): Decoder {
  const d = new mod.StreamDecoder(max);
  d.write = originalWrite.bind(d);
  return d;
}

function framed(message: Buffer, compressed = 0): Buffer {
  const out = Buffer.alloc(5 + message.byteLength);
  out[0] = compressed;
  out.writeUInt32BE(message.byteLength, 1);
  message.copy(out, 5);
  return out;
}

function rawRequest(floats: number): Buffer {
  const data = new Float32Array(floats).map((_, i) => i * 0.5);
  return encodeModelInferRequest({
    model_name: 'conv',
    id: 'x'.repeat(3),
    inputs: [{ name: 'input', datatype: 'FP32', shape: [1, floats] }],
    raw_input_contents: [new Uint8Array(data.buffer)],
  });
}

function feed(d: Decoder, stream: Buffer, chunk: number): Buffer[] {
  const out: Buffer[] = [];
  for (let p = 0; p < stream.length; p += chunk) out.push(...d.write(stream.subarray(p, p + chunk)));
  return out;
}

describe('gRPC message assembly', () => {
  it('is installed over grpc-js StreamDecoder', () => {
    expect(installed).toBe(true);
    expect(mod.StreamDecoder.prototype.write).not.toBe(originalWrite);
  });

  const messages = [rawRequest(150_528), Buffer.alloc(0), Buffer.from('small message'), rawRequest(16), rawRequest(40_000)];
  const stream = Buffer.concat(messages.map((m, i) => framed(m, i === 2 ? 1 : 0)));

  it.each([1, 3, 5, 7, 1000, 16_384, 65_536, stream.length])('gives grpc-js decoder output for %i-byte chunks', (chunk) => {
    const ours = feed(new mod.StreamDecoder(-1), stream, chunk);
    const theirs = feed(referenceDecoder(-1), stream, chunk);
    expect(ours.map((b) => b.toString('hex'))).toEqual(theirs.map((b) => b.toString('hex')));
    expect(ours).toHaveLength(messages.length);
  });

  it('refuses a declared length over the limit with grpc-js error, before allocating', () => {
    const big = framed(rawRequest(1024));
    const expected = `Received message larger than max (${big.readUInt32BE(1)} vs 100)`;
    expect(() => referenceDecoder(100).write(big)).toThrow(expected);
    expect(() => new mod.StreamDecoder(100).write(big.subarray(0, 5))).toThrow(expected);
  });

  it.each([7, 16_384])('puts a large message in a buffer of its own with the raw tensor aligned, decoded as a view (%i-byte chunks)', (chunk) => {
    const message = rawRequest(150_528);
    const [out] = feed(new mod.StreamDecoder(-1), framed(message), chunk);
    expect(out).toBeDefined();
    const body = (out as Buffer).subarray(5);
    expect(body.byteOffset).toBeLessThanOrEqual(5 + MAX_PAD);
    // The buffer (a pool size class, protocols/buffer-pool.ts) holds this message alone.
    expect(isDetachable(body.buffer)).toBe(true);
    expect(body.buffer.byteLength).toBe(sizeClass(body.buffer.byteLength));
    expect(body.byteOffset + body.byteLength).toBeLessThanOrEqual(body.buffer.byteLength);
    const at = largeFieldOffset(body) as number;
    expect((body.byteOffset + at) % ALIGN).toBe(0);
    const raw = body.subarray(at, at + 150_528 * 4);
    const tensor = decodeRawTensor('input', FP32, [1, 150_528], raw) as Float32Array;
    expect(tensor.buffer).toBe(body.buffer);
    expect(tensor[3]).toBe(1.5);
  });

  it('allocates nothing for the declared length before the bytes arrive', () => {
    const header = Buffer.alloc(5);
    header.writeUInt32BE(64 * 1024 * 1024, 1);
    const d = new mod.StreamDecoder(-1);
    const before = process.memoryUsage().arrayBuffers;
    expect(d.write(Buffer.concat([header, Buffer.from([0x0a])]))).toEqual([]);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(1024 * 1024);
  });

  it('keeps small messages in the shared pool', () => {
    const [out] = feed(new mod.StreamDecoder(-1), framed(rawRequest(16)), 1000);
    expect((out as Buffer).byteLength).toBeLessThan(OWN_BUFFER_MIN);
    expect((out as Buffer).buffer.byteLength).toBeGreaterThan((out as Buffer).byteLength);
  });

  it.each([
    ['no large field', Buffer.from([0x0a, 0x02, 0x61, 0x62]), undefined],
    ['a large field after small ones', Buffer.from([0x0a, 0x01, 0x61, 0x10, 0x05, 0x3a, 0x80, 0x08]), 8],
    ['a truncated varint', Buffer.from([0x3a, 0x80]), undefined],
    ['a group', Buffer.from([0x0b]), undefined],
  ])('finds the first large field: %s', (_name, prefix, expected) => {
    expect(largeFieldOffset(prefix)).toBe(expected);
  });
});
