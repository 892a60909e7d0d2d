/** The per-input header decoder shared by REST JSON, REST binary and gRPC: one set of checks and messages. */
import { describe, expect, it } from 'vitest';
import { decodeGrpcInferRequest } from './grpc/infer-request.js';
import { decodeRestInferRequest } from './v2/rest-request.js';

const rest = (inputs: unknown[]) => () => decodeRestInferRequest(Buffer.from(JSON.stringify({ inputs })), undefined);
const grpc = (inputs: Array<Record<string, unknown>>) => () => decodeGrpcInferRequest({ inputs });

describe('one per-input decoder, one set of messages', () => {
  const a = { name: 'a', datatype: 'FP32' };
  it.each([
    ['an empty name', { ...a, name: '', shape: [1] }, { ...a, name: '', shape: ['1'] }, "inputs[0]: 'name' must be a non-empty string"],
    ['an unknown datatype', { ...a, datatype: 'FP8', shape: [1] }, { ...a, datatype: 'FP8', shape: ['1'] }, `input 'a': invalid datatype "FP8"`],
    ['a negative dimension', { ...a, shape: [-1] }, { ...a, shape: ['-1'] }, "input 'a': 'shape' must hold non-negative integers, got -1"],
    ['an unsafe dimension', { ...a, shape: [2 ** 53] }, { ...a, shape: [String(2 ** 53)] }, `input 'a': 'shape' must hold non-negative integers, got ${2 ** 53}`],
  ])('%s gives the same 400 over REST and gRPC', (_case, restInput, grpcInput, message) => {
    for (const decode of [rest([{ ...restInput, data: [1] }]), grpc([{ ...grpcInput, contents: { fp32_contents: [1] } }])]) {
      expect(decode).toThrow(expect.objectContaining({ kind: 'InvalidInput', message }));
    }
  });

  it('refuses a repeated input name in both wire formats', () => {
    const message = "input 'a' appears more than once";
    expect(
      rest([
        { ...a, shape: [1], data: [1] },
        { ...a, shape: [1], data: [1] },
      ]),
    ).toThrow(message);
    const g = { ...a, shape: ['1'], contents: { fp32_contents: [1] } };
    expect(grpc([g, g])).toThrow(message);
  });

  it('JSON dimensions must be numbers; gRPC int64 dimensions arrive as decimal strings', () => {
    expect(rest([{ ...a, shape: ['1'], data: [1] }])).toThrow(`input 'a': 'shape' must hold non-negative integers, got "1"`);
    expect(grpc([{ ...a, shape: ['2'], contents: { fp32_contents: [1, 2] } }])().request.inputs[0]?.shape).toEqual([2]);
  });
});
