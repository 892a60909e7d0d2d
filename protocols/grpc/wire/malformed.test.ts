/**
 * Wire-level edge cases of the ModelInfer decoder: what proto3 requires it to accept
 * (unknown fields of every wire type, any field order, last-one-wins, packed and unpacked
 * runs mixed, merged nested messages, exact 64-bit values) and what it must refuse with a
 * WireFormatError rather than read past the bytes or allocate what they cannot hold.
 */
import type * as grpc from '@grpc/grpc-js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INFERENCE_SERVICE, loadProtocolDefinition } from '../proto.js';
import { decodeModelInferRequest } from './decode-infer.js';
import { WireFormatError } from './reader.js';

const method = (loadProtocolDefinition()[INFERENCE_SERVICE] as grpc.ServiceDefinition)['ModelInfer'] as grpc.MethodDefinition<object, object>;
const decode = (bytes: number[]) => decodeModelInferRequest(Buffer.from(bytes));
/** A length-delimited field (all tags here are one byte, all lengths under 128). */
const field = (tag: number, body: number[]): number[] => [tag, body.length, ...body];
const ascii = (s: string): number[] => [...Buffer.from(s)];
const f32 = (...v: number[]): number[] => [...Buffer.from(Float32Array.from(v).buffer)];
/** An input tensor (field 5) whose contents (field 5) hold `contents`. */
const inputWith = (contents: number[]): number[] => field(0x2a, field(0x2a, contents));

describe('refuses malformed messages with a WireFormatError', () => {
  const cases: [string, number[], RegExp][] = [
    ['a truncated tag', [0x80], /truncated varint at byte 0/],
    ['a truncated varint', [0x48, 0x80, 0x80], /truncated varint/],
    ['a varint longer than ten bytes', [0x48, ...new Array<number>(10).fill(0xff), 0x01], /varint longer than 10 bytes/],
    ['a string longer than the message', [0x0a, 0x05, 0x61], /length 5 past the end of the message at byte 1/],
    ['raw contents declaring 1 GiB', [0x3a, 0x80, 0x80, 0x80, 0x80, 0x04, 0x00], /length 1073741824 past the end/],
    ['a length beyond 32 bits', [0x3a, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01], /length overflows 32 bits/],
    ['a nested length past its parent (the message has the bytes)', [0x2a, 0x03, 0x0a, 0x05, 0x61, 0x62, 0x63, 0x64, 0x65], /length 5 past the end/],
    ['a known string field sent as a varint', [0x08, 0x01], /field 1 has wire type 0/],
    ['an input sent as a fixed64', [0x29, 0, 0, 0, 0, 0, 0, 0, 0], /field 5 has wire type 1/],
    ['fp32_contents as a varint', inputWith([0x30, 0x01]), /field 6 has wire type 0/],
    ['bytes_contents as a fixed32', inputWith([0x45, 0, 0, 0, 0]), /field 8 has wire type 5/],
    ['a packed fp32 run of 3 bytes', inputWith(field(0x32, [0, 0, 0])), /packed run of 3 bytes is not a whole number of 4-byte values/],
    ['a packed varint run ending inside a varint', inputWith(field(0x12, [0x01, 0x80])), /truncated varint in a packed run/],
    ['a fixed64 past the end', [0x49, 0, 0, 0], /8-byte value past the end/],
    ['a fixed32 past the end', [0x4d, 0, 0], /4-byte value past the end/],
    ['field number 0', [0x00, 0x00], /field number 0/],
    ['wire type 6', [0x4e, 0x00], /wire type 6/],
    ['wire type 7', [0x4f, 0x00], /wire type 7/],
    ['an unterminated group', [0x4b, 0x48, 0x01], /truncated group/],
    ['an end of group never started', [0x4c], /end of a group that was not started/],
    ['groups nested past the limit', new Array<number>(40).fill(0x4b), /groups nested too deeply/],
  ];
  it.each(cases)('%s', (_what, bytes, message) => {
    let err: unknown;
    try {
      decode(bytes);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(WireFormatError);
    expect((err as Error).message).toMatch(message);
  });

  it('throws nothing but WireFormatError for corrupted and truncated valid messages', () => {
    const valid = method.requestSerialize({
      model_name: 'm',
      id: 'r',
      parameters: { a: { int64_param: '-7' }, b: { string_param: 'x' } },
      inputs: [
        {
          name: 'x',
          datatype: 'FP32',
          shape: ['1', '3'],
          parameters: { d: { double_param: 0.5 } },
          contents: { fp32_contents: [1, 2, 3], int_contents: [-1, 300], bytes_contents: [Buffer.from('q')] },
        },
        { name: 'y', datatype: 'INT64', shape: ['2'], contents: { int64_contents: ['-9223372036854775808', '5'], bool_contents: [true] } },
      ],
      outputs: [{ name: 'o', parameters: { c: { bool_param: true } } }],
    });
    for (let n = 0; n < valid.length; n++) {
      try {
        decodeModelInferRequest(valid.subarray(0, n));
      } catch (e) {
        expect(e).toBeInstanceOf(WireFormatError);
      }
    }
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat({ max: valid.length - 1 }), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }), (edits) => {
        const bytes = Buffer.from(valid);
        for (const [at, v] of edits) bytes[at] = v;
        try {
          decodeModelInferRequest(bytes);
        } catch (e) {
          expect(e).toBeInstanceOf(WireFormatError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('accepts what proto3 allows', () => {
  it('skips unknown fields of every wire type, groups included', () => {
    const unknown = [0x48, 0x96, 0x01, 0x51, 1, 2, 3, 4, 5, 6, 7, 8, ...field(0x5a, [1, 2, 3]), 0x65, 1, 2, 3, 4, 0x6b, 0x08, 0x01, 0x73, 0x74, 0x6c];
    expect(decode([...unknown, ...field(0x0a, ascii('m')), ...unknown]).model_name).toBe('m');
  });

  it('takes fields in any order, the last of a scalar winning', () => {
    const msg = decode([...field(0x1a, ascii('id')), ...field(0x0a, ascii('first')), ...field(0x2a, field(0x0a, ascii('x'))), ...field(0x0a, ascii('last'))]);
    expect([msg.model_name, msg.id, msg.inputs.map((i) => i.name)]).toEqual(['last', 'id', ['x']]);
  });

  it('concatenates packed and unpacked occurrences of a repeated field in order, across merged contents', () => {
    const tensor = [...field(0x2a, [0x35, ...f32(1), ...field(0x32, f32(2, 3)), 0x35, ...f32(4)]), ...field(0x2a, [...field(0x32, f32(5)), 0x35, ...f32(6)])];
    const msg = decode(field(0x2a, tensor));
    expect(Array.from(msg.inputs[0]?.contents?.fp32_contents ?? [])).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('keeps 64-bit values exact: shapes, int64_contents, parameters', () => {
    const max = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f];
    const minusOne = [...new Array<number>(9).fill(0xff), 0x01];
    const min = [...new Array<number>(9).fill(0x80), 0x01];
    const tensor = [...field(0x1a, [...max, ...minusOne, ...min]), ...field(0x2a, field(0x1a, [...minusOne, ...max]))];
    const param = field(0x22, [...field(0x0a, ascii('u')), ...field(0x12, [0x28, ...minusOne])]);
    const msg = decode([...field(0x2a, tensor), ...param]);
    expect(msg.inputs[0]?.shape).toEqual(['9223372036854775807', '-1', '-9223372036854775808']);
    expect(Array.from((msg.inputs[0]?.contents?.int64_contents ?? []) as BigInt64Array)).toEqual([-1n, 2n ** 63n - 1n]);
    expect(msg.parameters['u']).toEqual({ parameter_choice: 'uint64_param', uint64_param: '18446744073709551615' });
  });

  it('lets the last oneof member of a parameter win, and a repeated key too', () => {
    const value = [0x08, 0x01, ...field(0x1a, ascii('s')), 0x10, 0x05];
    const msg = decode([
      ...field(0x22, [...field(0x0a, ascii('k')), ...field(0x12, value)]),
      ...field(0x22, [...field(0x0a, ascii('j')), ...field(0x12, [0x08, 0x00])]),
      ...field(0x22, [...field(0x0a, ascii('j')), ...field(0x12, [0x08, 0x01])]),
    ]);
    expect({ ...msg.parameters }).toEqual({ k: { parameter_choice: 'int64_param', int64_param: '5' }, j: { parameter_choice: 'bool_param', bool_param: true } });
  });

  it('treats a parameter key such as __proto__ as a plain key', () => {
    const msg = decode(field(0x22, [...field(0x0a, ascii('__proto__')), ...field(0x12, [0x08, 0x01])]));
    expect(Object.keys(msg.parameters)).toEqual(['__proto__']);
  });
});
