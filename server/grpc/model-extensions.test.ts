/**
 * Triton's ModelConfig RPC on a real server over loopback: the configuration of an ONNX
 * fixture model with Triton's enum names, NOT_FOUND for an unknown model or version.
 */
import { describe, expect, it } from 'vitest';
import { grpc, grpcError } from '../../test/grpc/client.js';
import { useGrpcFixture } from '../../test/helpers/grpc-fixture.js';

const f = useGrpcFixture({ m: { versions: { '1': 'identity_fp32', '2': 'scale2_fp32' } }, other: 'identity_int32' });

describe('ModelConfig (gRPC)', () => {
  it('ModelConfig: the model as Triton describes it (TYPE_* names, dims)', async () => {
    for (const version of ['', '1']) {
      const { config } = await f.client.call<{ config: Record<string, unknown> }>('ModelConfig', { name: 'm', version });
      expect(config).toMatchObject({
        name: 'm',
        platform: 'onnxruntime_onnx',
        backend: 'onnxruntime',
        max_batch_size: 0,
        version_policy: { all: {}, policy_choice: 'all' },
        input: [{ name: 'INPUT0', data_type: 'TYPE_FP32', dims: ['-1', '-1'] }],
        output: [{ name: 'OUTPUT0', data_type: 'TYPE_FP32', dims: ['-1', '-1'] }],
        instance_group: [{ name: 'm', kind: 'KIND_CPU', count: 1 }],
      });
      expect([config['dynamic_batching'], config['scheduling_choice']]).toEqual([undefined, undefined]);
    }
  });

  it.each([
    ['ModelConfig', { name: 'nope' }],
    ['ModelConfig', { name: 'm', version: '9' }],
  ])('%s %j: NOT_FOUND', async (method, request) => {
    const err = await grpcError(f.client.call(method, request));
    expect(err.code).toBe(grpc.status.NOT_FOUND);
    expect(err.details).toMatch(/^Model with name \w+ (and version 9 )?does not exist\.$/);
  });
});
