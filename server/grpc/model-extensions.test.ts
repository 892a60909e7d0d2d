/**
 * Triton's ModelConfig and ModelStatistics RPCs on a real server over loopback: the
 * configuration of an ONNX fixture model with Triton's enum names, and statistics that add up
 * exactly after a known number of successful and failed ModelInfer calls, per version and for
 * every model (an empty name), with NOT_FOUND for an unknown model.
 */
import { describe, expect, it } from 'vitest';
import { grpc, grpcError } from '../../test/grpc/client.js';
import { useGrpcFixture } from '../../test/helpers/grpc-fixture.js';

const f = useGrpcFixture({ m: { versions: { '1': 'identity_fp32', '2': 'scale2_fp32' } }, other: 'identity_int32' });

const infer = (version: string, datatype = 'FP32') =>
  f.client.infer({
    model_name: 'm',
    model_version: version,
    inputs: [{ name: 'INPUT0', datatype, shape: [1, 2], contents: datatype === 'FP32' ? { fp32_contents: [1, 2] } : { int_contents: [1, 2] } }],
  });

interface Duration {
  count: string;
  ns: string;
}
interface Stats {
  name: string;
  version: string;
  last_inference: string;
  inference_count: string;
  execution_count: string;
  inference_stats: Record<'success' | 'fail' | 'queue' | 'compute_input' | 'compute_infer' | 'compute_output', Duration>;
  batch_stats: Array<{ batch_size: string; compute_infer: Duration }>;
}

const statistics = async (name = '', version = '') => (await f.client.call<{ model_stats: Stats[] }>('ModelStatistics', { name, version })).model_stats;

describe('ModelConfig and ModelStatistics (gRPC)', () => {
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
        instance_group: [{ name: 'm_0', kind: 'KIND_CPU', count: 1 }],
      });
      expect([config['dynamic_batching'], config['scheduling_choice']]).toEqual([undefined, undefined]);
    }
  });

  it.each([
    ['ModelConfig', { name: 'nope' }],
    ['ModelConfig', { name: 'm', version: '9' }],
    ['ModelStatistics', { name: 'nope' }],
    ['ModelStatistics', { name: 'm', version: '9' }],
  ])('%s %j: NOT_FOUND', async (method, request) => {
    const err = await grpcError(f.client.call(method, request));
    expect(err.code).toBe(grpc.status.NOT_FOUND);
    expect(err.details).toMatch(/^Model with name \w+ (and version 9 )?does not exist\.$/);
  });

  it('statistics add up after known successes and failures, per version and for every model', async () => {
    expect((await statistics('m')).map((s) => [s.version, s.inference_count, s.inference_stats.success.count])).toEqual([
      ['1', '0', '0'],
      ['2', '0', '0'],
    ]);
    for (let i = 0; i < 4; i++) await infer('1');
    await infer('');
    // INT32 where the model takes FP32: refused by validation after the version is leased.
    for (let i = 0; i < 2; i++) expect((await grpcError(infer('2', 'INT32'))).code).toBe(grpc.status.INVALID_ARGUMENT);

    const [v1, v2] = await statistics('m');
    expect(await statistics('m', '1')).toEqual([v1]);
    expect(v1).toMatchObject({ name: 'm', version: '1', inference_count: '4', execution_count: '4' });
    expect(v2).toMatchObject({ name: 'm', version: '2', inference_count: '1', execution_count: '1' });
    const counts = (s: Stats | undefined) =>
      (['success', 'fail', 'queue', 'compute_input', 'compute_infer', 'compute_output'] as const).map((k) => Number(s?.inference_stats[k].count));
    expect(counts(v1)).toEqual([4, 0, 0, 4, 4, 4]);
    expect(counts(v2)).toEqual([1, 2, 0, 1, 1, 1]);
    expect(v1?.batch_stats.map((b) => [b.batch_size, b.compute_infer.count])).toEqual([['1', '4']]);
    expect(Number(v2?.last_inference)).toBeGreaterThan(0);

    const all = await statistics();
    expect(all.map((s) => `${s.name}:${s.version}`).sort()).toEqual(['m:1', 'm:2', 'other:']);
    expect(all.filter((s) => s.name === 'm')).toEqual([v1, v2]);
    expect(all.find((s) => s.name === 'other')).toMatchObject({ inference_count: '0', last_inference: '0' });
  });
});
