/**
 * The hand-written ModelInfer codec against protobufjs (through proto-loader with
 * LOADER_OPTIONS, the codec it replaces): random valid messages encoded by protobufjs,
 * packed and unpacked, decode to the same objects with both; messages encoded here decode
 * with protobufjs to what protobufjs's own encoding decodes to.
 */
import { readFileSync } from 'node:fs';
import type * as grpc from '@grpc/grpc-js';
import fc from 'fast-check';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import type { InferParameterMessage, ModelInferRequestMessage, ModelInferResponseMessage } from '../messages.js';
import { INFERENCE_PROTO_PATH, INFERENCE_SERVICE, loadProtocolDefinition } from '../proto.js';
import { decodeModelInferRequest, decodeModelInferResponse } from './decode-infer.js';
import { encodeModelInferRequest, encodeModelInferResponse } from './encode-infer.js';

const RUNS = 300;
const method = (loadProtocolDefinition()[INFERENCE_SERVICE] as grpc.ServiceDefinition)['ModelInfer'] as grpc.MethodDefinition<object, object>;

/** The same schema with every repeated scalar unpacked (one tag per element). */
const unpackedRoot = protobuf.parse(
  readFileSync(INFERENCE_PROTO_PATH, 'utf8').replace(/(repeated (?:bool|int32|int64|uint32|uint64|float|double) \w+ = \d+);/g, '$1 [packed = false];'),
  { keepCase: true },
).root;
function encodeUnpacked(type: string, msg: object): Buffer {
  const t = unpackedRoot.lookupType(type);
  return Buffer.from(t.encode(t.fromObject(msg)).finish());
}

const INT64_MIN = -(2n ** 63n);
const int64 = fc.bigInt({ min: INT64_MIN, max: 2n ** 63n - 1n }).map(String);
const uint64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String);
const text = fc.oneof(fc.string({ maxLength: 12 }), fc.string({ unit: 'grapheme', maxLength: 6 }));
const bytes = fc.uint8Array({ maxLength: 24 }).map((b) => Buffer.from(b));

const parameter: fc.Arbitrary<InferParameterMessage> = fc.oneof(
  fc.record({ bool_param: fc.boolean() }),
  fc.record({ int64_param: int64 }),
  fc.record({ string_param: text }),
  fc.record({ double_param: fc.double() }),
  fc.record({ uint64_param: uint64 }),
  fc.constant({}),
);
const parameters = fc.dictionary(text, parameter, { maxKeys: 3 });

const contents = fc.record(
  {
    bool_contents: fc.array(fc.boolean(), { maxLength: 8 }),
    int_contents: fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { maxLength: 8 }),
    int64_contents: fc.array(int64, { maxLength: 8 }),
    uint_contents: fc.array(fc.nat({ max: 2 ** 32 - 1 }), { maxLength: 8 }),
    uint64_contents: fc.array(uint64, { maxLength: 8 }),
    fp32_contents: fc.array(fc.float(), { maxLength: 8 }),
    fp64_contents: fc.array(fc.double(), { maxLength: 8 }),
    bytes_contents: fc.array(bytes, { maxLength: 4 }),
  },
  { requiredKeys: [] },
);

const tensor = fc.record(
  {
    name: text,
    datatype: fc.constantFrom('FP32', 'INT64', 'BYTES', ''),
    shape: fc.array(int64, { maxLength: 4 }),
    parameters,
    contents,
  },
  { requiredKeys: [] },
);

const request: fc.Arbitrary<ModelInferRequestMessage> = fc.record(
  {
    model_name: text,
    model_version: text,
    id: text,
    parameters,
    inputs: fc.array(tensor, { maxLength: 3 }),
    outputs: fc.array(fc.record({ name: text, parameters }, { requiredKeys: [] }), { maxLength: 3 }),
    raw_input_contents: fc.array(bytes, { maxLength: 3 }),
  },
  { requiredKeys: [] },
);

const response: fc.Arbitrary<ModelInferResponseMessage> = fc.record({
  model_name: text,
  model_version: text,
  id: text,
  parameters,
  outputs: fc.array(tensor, { maxLength: 3 }) as fc.Arbitrary<ModelInferResponseMessage['outputs']>,
  raw_output_contents: fc.array(bytes, { maxLength: 3 }),
});

/** Typed arrays as plain arrays (64-bit elements as decimal strings), maps as plain objects. */
function plain(v: unknown): unknown {
  if (Buffer.isBuffer(v)) return v;
  if (v instanceof BigInt64Array || v instanceof BigUint64Array) return Array.from(v, String);
  if (ArrayBuffer.isView(v)) return Array.from(v as Float64Array);
  if (Array.isArray(v)) return v.map(plain);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) out[k] = plain((v as Record<string, unknown>)[k]);
    return out;
  }
  return v;
}

/** The same message with its numeric contents as typed arrays, as the server's codec builds them. */
function typed<T extends object>(msg: T, key: 'inputs' | 'outputs'): T {
  const tensors = (((msg as Record<string, unknown>)[key] ?? []) as { contents?: Record<string, unknown[]> }[]).map((t) => {
    const c = t.contents;
    if (c === undefined) return t;
    const conv: Record<string, unknown> = { ...c };
    if (c['fp32_contents']) conv['fp32_contents'] = Float32Array.from(c['fp32_contents'] as number[]);
    if (c['fp64_contents']) conv['fp64_contents'] = Float64Array.from(c['fp64_contents'] as number[]);
    if (c['int_contents']) conv['int_contents'] = Int32Array.from(c['int_contents'] as number[]);
    if (c['uint_contents']) conv['uint_contents'] = Uint32Array.from(c['uint_contents'] as number[]);
    if (c['int64_contents']) conv['int64_contents'] = BigInt64Array.from(c['int64_contents'] as string[], BigInt);
    if (c['uint64_contents']) conv['uint64_contents'] = BigUint64Array.from(c['uint64_contents'] as string[], BigInt);
    return { ...t, contents: conv };
  });
  return { ...msg, [key]: tensors };
}

describe('ModelInferRequest decoding', () => {
  it('decodes what protobufjs encodes (packed) to what protobufjs decodes', () => {
    fc.assert(
      fc.property(request, (msg) => {
        const wire = method.requestSerialize(msg);
        expect(plain(decodeModelInferRequest(wire))).toEqual(plain(method.requestDeserialize(wire)));
      }),
      { numRuns: RUNS },
    );
  });

  it('accepts repeated scalars unpacked (one tag per element), as proto3 parsers must', () => {
    fc.assert(
      fc.property(request, (msg) => {
        const wire = encodeUnpacked('inference.ModelInferRequest', msg);
        expect(plain(decodeModelInferRequest(wire))).toEqual(plain(method.requestDeserialize(method.requestSerialize(msg))));
      }),
      { numRuns: RUNS },
    );
  });

  it('keeps raw_input_contents as views on the received message', () => {
    const wire = method.requestSerialize({ raw_input_contents: [Buffer.from('abcdef'), Buffer.from('gh')] });
    const raw = decodeModelInferRequest(wire).raw_input_contents;
    expect(raw.map((b) => b.toString())).toEqual(['abcdef', 'gh']);
    expect(raw.every((b) => b.buffer === wire.buffer)).toBe(true);
  });
});

describe('ModelInferResponse encoding', () => {
  it('encodes what protobufjs decodes to the same message as its own encoding, from plain or typed arrays', () => {
    fc.assert(
      fc.property(response, fc.boolean(), (msg, asTyped) => {
        const ours = encodeModelInferResponse(asTyped ? typed(msg, 'outputs') : msg);
        expect(method.responseDeserialize(ours)).toEqual(method.responseDeserialize(method.responseSerialize(msg)));
      }),
      { numRuns: RUNS },
    );
  });
});

describe('strings', () => {
  it('writes UTF-8 as Buffer does, short or long, a lone surrogate as U+FFFD', () => {
    for (const name of ['mlp', 'é€😀', '\ud800x', 'y\udc00', 'a'.repeat(100) + '😀\ud800']) {
      const wire = encodeModelInferResponse({ model_name: name, model_version: '', id: '', parameters: {}, outputs: [], raw_output_contents: [] });
      expect(wire.subarray(2)).toEqual(Buffer.from(name, 'utf8'));
      expect(decodeModelInferResponse(wire).model_name).toBe(Buffer.from(name, 'utf8').toString());
    }
  });
});

describe('the predictor client side: ModelInferRequest encoding, ModelInferResponse decoding', () => {
  it('encodes requests protobufjs decodes as it decodes its own', () => {
    fc.assert(
      fc.property(request, fc.boolean(), (msg, asTyped) => {
        const ours = encodeModelInferRequest(asTyped ? typed(msg, 'inputs') : msg);
        expect(method.requestDeserialize(ours)).toEqual(method.requestDeserialize(method.requestSerialize(msg)));
      }),
      { numRuns: RUNS },
    );
  });

  it('decodes responses, packed or unpacked, as protobufjs does', () => {
    fc.assert(
      fc.property(response, fc.boolean(), (msg, unpacked) => {
        const wire = unpacked ? encodeUnpacked('inference.ModelInferResponse', msg) : method.responseSerialize(msg);
        expect(plain(decodeModelInferResponse(wire))).toEqual(plain(method.responseDeserialize(method.responseSerialize(msg))));
      }),
      { numRuns: RUNS },
    );
  });
});
